import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { onServer } from '../../../lib/scratch-database';
import { openDb, type DbHandle } from '../../../lib/db';
import {
  RUN_EVENTS_CHANNEL,
  closeRunEventsListener,
  decodeNotice,
  encodeNotice,
  publishRunEvent,
  runEventsReady,
  subscribeRunEvents,
  type RunEventNotice,
} from '../../../lib/runs/notify';
import { appendRunEvents } from '../../../lib/runs/events';
import { claimRun } from '../../../lib/runs/lease';
import { createRunEventStream } from '../../../lib/runs/stream';

// Server mode: writers NOTIFY after commit, each web process has ONE LISTEN
// client. Always against a real PostgreSQL server (whatever FLOWFIX_TEST_DB
// says), with the writer and the viewer on different connections, as a
// worker process and a web process would be.

let db: TestDb;
let url: string;
let viewerHandle: DbHandle;

before(async () => {
  db = await createTestDb({ kind: 'postgres' });
  url = db.target.location;
  // a second pool on the same database: the web process's side
  viewerHandle = openDb({ kind: 'postgres', location: url });
});

after(async () => {
  await closeRunEventsListener();
  await viewerHandle?.close();
  await db?.drop();
});

function collect(runId: string, handle: DbHandle): { notices: RunEventNotice[]; stop: () => void } {
  const notices: RunEventNotice[] = [];
  const stop = subscribeRunEvents(runId, (n) => notices.push(n), { handle });
  return { notices, stop };
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function withClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  return onServer(url, fn);
}

async function listenerBackends(): Promise<number[]> {
  return withClient(async (c) => {
    const { rows } = await c.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'flowfix-run-events'`,
    );
    return rows.map((r) => r.pid);
  });
}

describe('run event notifications on PostgreSQL', () => {
  test('the payload codec round-trips and refuses garbage', () => {
    assert.equal(encodeNotice({ runId: 'cabc123', seq: 42 }), 'cabc123:42');
    assert.deepEqual(decodeNotice('cabc123:42'), { runId: 'cabc123', seq: 42 });
    assert.equal(decodeNotice('no-colon'), null);
    assert.equal(decodeNotice(':5'), null);
    assert.equal(decodeNotice('run:abc'), null);
  });

  test('a NOTIFY from another connection reaches the subscribers of that run only', async () => {
    const a = collect('run-a', viewerHandle);
    const b = collect('run-b', viewerHandle);
    await runEventsReady({ handle: viewerHandle });
    await withClient((c) => c.query('SELECT pg_notify($1, $2)', [RUN_EVENTS_CHANNEL, 'run-a:7']));
    // publishRunEvent through the other pool (the worker's)
    await publishRunEvent({ runId: 'run-b', seq: 3 }, { handle: db });
    await waitFor(() => a.notices.length === 1 && b.notices.length === 1);
    assert.deepEqual(a.notices, [{ runId: 'run-a', seq: 7 }]);
    assert.deepEqual(b.notices, [{ runId: 'run-b', seq: 3 }]);
    a.stop();
    b.stop();
  });

  test('one LISTEN connection per process, however many viewers', async () => {
    const subs = Array.from({ length: 25 }, (_, i) => collect(`many-${i % 5}`, viewerHandle));
    await runEventsReady({ handle: viewerHandle });
    assert.equal((await listenerBackends()).length, 1);
    await publishRunEvent({ runId: 'many-2', seq: 1 }, { handle: db });
    await waitFor(() => subs.filter((s) => s.notices.length > 0).length === 5);
    for (const s of subs) s.stop();
  });

  test('a lost LISTEN connection reconnects, wakes every viewer, and keeps delivering', async () => {
    const sub = collect('run-reconnect', viewerHandle);
    await runEventsReady({ handle: viewerHandle });
    const [pid] = await listenerBackends();
    assert.ok(pid);
    await withClient((c) => c.query('SELECT pg_terminate_backend($1)', [pid]));
    // the reconnect tells viewers to re-read (notices may have been lost meanwhile)
    await waitFor(() => sub.notices.some((n) => n.seq === -1));
    await waitFor(async () => {
      const pids = await listenerBackends();
      return pids.length === 1 && pids[0] !== pid;
    });
    await runEventsReady({ handle: viewerHandle });
    await publishRunEvent({ runId: 'run-reconnect', seq: 9 }, { handle: db });
    await waitFor(() => sub.notices.some((n) => n.seq === 9));
    sub.stop();
  });

  test('a live stream on one pool is woken by events appended through another', async () => {
    const repo = await db.db.repository.create({ data: { name: 'notify-repo', gitUrl: '/nonexistent' } });
    const change = await db.db.change.create({
      data: { repositoryId: repo.id, externalId: 'PR-9', title: 't', author: 'a', branch: 'b', baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40) },
    });
    const revision = await db.db.changeRevision.create({
      data: { changeId: change.id, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: 'b' },
    });
    const run = await db.db.run.create({ data: { changeId: change.id, revisionId: revision.id, policy: 'offline', activeKey: revision.id } });
    assert.equal((await claimRun({ runId: run.id, workerId: 'w1' })).claimed, true);

    const controller = new AbortController();
    // the safety poll is far beyond the test's patience: only NOTIFY can deliver
    const body = createRunEventStream({ runId: run.id, afterSeq: 0, signal: controller.signal, handle: viewerHandle, pollMs: 600_000 });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`stream ended: ${text}`);
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    await readUntil(/^retry:/m);
    // appendRunEvents writes through the process handle (the worker's pool)
    await appendRunEvents({ runId: run.id, workerId: 'w1', events: [{ type: 'thought', payload: { text: 'across pools' } }] });
    // run events are default messages: no `event:` line, the type inside the data
    await readUntil(/id: 1\ndata: \{[^\n]*"type":"thought"/);
    await appendRunEvents({ runId: run.id, workerId: 'w1', events: [{ type: 'log', payload: { text: 'second' } }] });
    await readUntil(/id: 2\ndata: \{[^\n]*"type":"log"/);
    controller.abort();
    assert.equal((text.match(/^id: /gm) ?? []).length, 2, 'each event once');
  });
});
