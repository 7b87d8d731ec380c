import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NextRequest } from 'next/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { sessionCookie } from '../routes/http-helpers';
import { GET as eventsRoute } from '../../../app/api/runs/[id]/events/route';
import { GET as runRoute } from '../../../app/api/runs/[id]/route';
import { appendRunEvents } from '../../../lib/runs/events';
import { claimRun } from '../../../lib/runs/lease';
import { finishRun } from '../../../lib/runs/service';
import { createRunEventStream } from '../../../lib/runs/stream';
import { closeRunEventsListener, runEventSubscriberCount } from '../../../lib/runs/notify';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { runEvent, RUN_EVENT_TYPES, type PublicRunEvent, type RunEventInput } from '../../../common/run-events';
import { EventItem } from '../../../components/run/event-item';
import { AppError } from '../../../lib/errors';
import { RUN_EVENT_EXAMPLES } from '../../helpers/run-event-examples';

// The live trajectory over SSE, through the real route handler and the real
// run lifecycle (claim → append → finish): resume after a dropped connection
// with no gap and no duplicate, late and concurrent viewers, the end of a
// finished run, the public projection, and access.

interface SseMessage {
  id?: number;
  event: string;
  data: unknown;
}

/** A run event's type: every run event is a default `message`, its type inside the data. */
const typeOf = (m: SseMessage) => (m.event === 'message' ? (m.data as { type: string }).type : `(${m.event})`);

/** Reads SSE messages off a body until `until` says stop or the stream ends. */
class SseReader {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  readonly messages: SseMessage[] = [];
  ended = false;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  async readUntil(until: (messages: SseMessage[]) => boolean, timeoutMs = 10_000): Promise<SseMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (!until(this.messages)) {
      if (this.ended) throw new Error(`stream ended after ${this.messages.length} message(s) before the condition held`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${this.messages.length} message(s): ${JSON.stringify(this.messages.map((m) => [m.event, m.id]))}`);
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), left);
        }),
      ]);
      clearTimeout(timer);
      if (chunk === 'timeout') continue;
      if (chunk.done) {
        this.ended = true;
        this.parse(true);
        continue;
      }
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      this.parse(false);
    }
    return this.messages;
  }

  private parse(final: boolean): void {
    const blocks = this.buffer.split('\n\n');
    this.buffer = final ? '' : (blocks.pop() ?? '');
    for (const block of blocks) {
      let id: number | undefined;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':') || line === '') continue;
        const at = line.indexOf(':');
        const field = at === -1 ? line : line.slice(0, at);
        const value = at === -1 ? '' : line.slice(at + 1).replace(/^ /, '');
        if (field === 'id') id = Number(value);
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length === 0) continue; // retry: / comments only
      this.messages.push({ ...(id === undefined ? {} : { id }), event, data: JSON.parse(data.join('\n')) });
    }
  }
}

let db: TestDb;
let reviewer: { id: string; email: string; name: string };
let changeId: string;
let revisionId: string;
let cookie: string;

before(async () => {
  db = await createTestDb();
  reviewer = await db.db.user.create({
    data: { email: 'rev@stream.test', name: 'Rita Reviewer', roles: ['REVIEWER'] },
    select: { id: true, email: true, name: true },
  });
  cookie = await sessionCookie(reviewer);
  const repo = await db.db.repository.create({ data: { name: 'stream-repo', gitUrl: '/nonexistent' } });
  const change = await db.db.change.create({
    data: { repositoryId: repo.id, externalId: 'PR-1', title: 'Streamed change', author: 'ada', branch: 'b', baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40) },
  });
  changeId = change.id;
  const revision = await db.db.changeRevision.create({
    data: { changeId, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: 'b' },
  });
  revisionId = revision.id;
});

after(async () => {
  await closeRunEventsListener();
  await db?.drop();
});

let runCounter = 0;

/** A running run claimed by a (test) worker: the same path agent/worker takes. */
async function startRun(): Promise<{ runId: string; workerId: string }> {
  runCounter += 1;
  const run = await db.db.run.create({ data: { changeId, revisionId, policy: 'offline', activeKey: `${revisionId}:${runCounter}` } });
  const workerId = `test-worker-${runCounter}`;
  const claim = await claimRun({ runId: run.id, workerId });
  assert.equal(claim.claimed, true);
  return { runId: run.id, workerId };
}

function thoughts(from: number, count: number): RunEventInput[] {
  return Array.from({ length: count }, (_, i) => ({ type: 'thought', phase: 'patch', payload: { text: `thought ${from + i}` } }));
}

async function finish({ runId, workerId }: { runId: string; workerId: string }): Promise<void> {
  await finishRun({ runId, workerId, result: { status: 'no_fix', exitReason: 'no_candidate', exitDetail: 'nothing worked' } });
}

function open({ runId, lastEventId, after: afterParam, withCookie = true }: { runId: string; lastEventId?: number; after?: string; withCookie?: boolean }): {
  response: Promise<Response>;
  abort: () => void;
} {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (withCookie) headers.cookie = cookie;
  if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
  const qs = afterParam === undefined ? '' : `?after=${encodeURIComponent(afterParam)}`;
  const req = new NextRequest(`http://localhost:3000/api/runs/${runId}/events${qs}`, { headers, signal: controller.signal });
  return { response: eventsRoute(req, { params: Promise.resolve({ id: runId }) }), abort: () => controller.abort() };
}

async function connect(args: Parameters<typeof open>[0]): Promise<{ reader: SseReader; abort: () => void; response: Response }> {
  const { response, abort } = open(args);
  const res = await response;
  // never read the body of a 200 as text: it only ends when the run does
  if (res.status !== 200) assert.fail(`status ${res.status}: ${await res.text()}`);
  return { reader: new SseReader(res.body!.getReader()), abort, response: res };
}

const seqsOf = (messages: SseMessage[]) => messages.filter((m) => m.event !== 'end').map((m) => m.id!);
const hasEnd = (messages: SseMessage[]) => messages.some((m) => m.event === 'end');

describe('GET /api/runs/:id/events', () => {
  test('sends SSE headers and the saved events as default messages with their seq as id and their type in the data', async () => {
    const run = await startRun();
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(0, 2) });
    const { reader, abort, response } = await connect({ runId: run.runId });
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(response.headers.get('cache-control'), 'no-cache, no-transform');
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    // seq 0 is the claim's status event
    const messages = await reader.readUntil((m) => m.length >= 3);
    abort();
    assert.deepEqual(
      messages.map((m) => [m.id, m.event, typeOf(m)]),
      [
        [0, 'message', 'status'],
        [1, 'message', 'thought'],
        [2, 'message', 'thought'],
      ],
    );
    const data = messages[1]!.data as { seq: number; type: string; phase: string; payload: { text: string } };
    assert.equal(data.seq, 1);
    assert.equal(data.phase, 'patch');
    assert.equal(data.payload.text, 'thought 0');
  });

  test('resumes after a dropped connection from Last-Event-ID with no gap and no duplicate', async () => {
    const run = await startRun();
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(0, 5) });

    const first = await connect({ runId: run.runId });
    const seen = await first.reader.readUntil((m) => m.length >= 3);
    const firstPart = seqsOf(seen).slice(0, 3);
    first.abort();
    // the aborted stream lets go of its subscription
    await waitFor(() => runEventSubscriberCount(run.runId) === 0);

    // events saved while nobody watched, one at a time as a worker would
    for (let i = 0; i < 4; i += 1) {
      await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(100 + i, 1) });
    }
    const second = await connect({ runId: run.runId, lastEventId: firstPart.at(-1)! });
    await second.reader.readUntil((m) => seqsOf(m).length >= 6);
    // and events saved while the new connection tails
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(200, 3) });
    await finish(run);
    const rest = await second.reader.readUntil(hasEnd);
    second.abort();

    const all = [...firstPart, ...seqsOf(rest)];
    const total = await db.db.runEvent.count({ where: { runId: run.runId } });
    assert.deepEqual(
      all,
      Array.from({ length: total }, (_, i) => i),
      'contiguous from 0, each seq once',
    );
    assert.equal(rest.at(-1)!.event, 'end');
  });

  test('?after= resumes like Last-Event-ID, and Last-Event-ID wins over it', async () => {
    const run = await startRun();
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(0, 4) });
    await finish(run);
    const byQuery = await connect({ runId: run.runId, after: '2' });
    const a = await byQuery.reader.readUntil(hasEnd);
    const both = await connect({ runId: run.runId, after: '0', lastEventId: 3 });
    const b = await both.reader.readUntil(hasEnd);
    const total = await db.db.runEvent.count({ where: { runId: run.runId } });
    assert.deepEqual(
      seqsOf(a),
      Array.from({ length: total - 3 }, (_, i) => i + 3),
    );
    assert.deepEqual(
      seqsOf(b),
      Array.from({ length: total - 4 }, (_, i) => i + 4),
    );
  });

  test('a late viewer of a finished run replays everything, then `end`, and the stream closes', async () => {
    const run = await startRun();
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(0, 7) });
    await finish(run);
    const { reader } = await connect({ runId: run.runId });
    const messages = await reader.readUntil(hasEnd);
    // nothing after end: the body is done
    await reader.readUntil(() => reader.ended || false).catch(() => undefined);
    assert.equal(reader.ended, true, 'the stream closes after end');
    const total = await db.db.runEvent.count({ where: { runId: run.runId } });
    assert.deepEqual(
      seqsOf(messages),
      Array.from({ length: total }, (_, i) => i),
    );
    const end = messages.at(-1)!;
    assert.equal(end.event, 'end');
    assert.equal(end.id, undefined, 'end carries no id, so it never becomes a Last-Event-ID');
    assert.deepEqual(end.data, { status: 'NO_FIX', exitReason: 'no_candidate', exitDetail: 'nothing worked', fixId: null, lastSeq: total - 1 });
    const final = messages.at(-2)!;
    assert.equal(typeOf(final), 'final');
  });

  test('two viewers watching live see the same sequence', async () => {
    const run = await startRun();
    const one = await connect({ runId: run.runId });
    const two = await connect({ runId: run.runId });
    for (let i = 0; i < 10; i += 1) {
      await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(i * 3, 1 + (i % 3)) });
    }
    await finish(run);
    const [a, b] = await Promise.all([one.reader.readUntil(hasEnd), two.reader.readUntil(hasEnd)]);
    assert.deepEqual(
      a.map((m) => [m.id, typeOf(m)]),
      b.map((m) => [m.id, typeOf(m)]),
    );
    const total = await db.db.runEvent.count({ where: { runId: run.runId } });
    assert.deepEqual(
      seqsOf(a),
      Array.from({ length: total }, (_, i) => i),
    );
    assert.deepEqual(
      a.map((m) => m.data),
      b.map((m) => m.data),
    );
  });

  test('a notification wakes a tailing viewer (no waiting for the safety poll)', async () => {
    const run = await startRun();
    const controller = new AbortController();
    // a poll far longer than the test's timeout: only a notification can deliver
    const body = createRunEventStream({ runId: run.runId, afterSeq: 0, signal: controller.signal, pollMs: 600_000 });
    const reader = new SseReader(body.getReader());
    await waitFor(() => runEventSubscriberCount(run.runId) === 1);
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(0, 1) });
    const messages = await reader.readUntil((m) => m.length >= 1, 5_000);
    assert.deepEqual(seqsOf(messages), [1]);
    controller.abort();
    await waitFor(() => runEventSubscriberCount(run.runId) === 0);
  });

  test('the public projection strips secrets', async () => {
    const run = await startRun();
    const leaky: RunEventInput[] = [
      {
        type: 'tool_call',
        phase: 'patch',
        payload: {
          name: 'run_tests',
          arguments: '{"file":"src/a.ts"}',
          apiKey: 'sk-live-abcdefghijklmnopqrstuvwxyz',
          env: { FLOWFIX_MODEL_API_KEY: 'hunter2-hunter2', PATH: '/usr/bin' },
          headers: { authorization: 'Bearer abc.def.ghi' },
        },
      },
      {
        type: 'observation',
        phase: 'patch',
        payload: {
          text: 'connecting to postgresql://flowfix:s3cr3t-pass@db:5432/app with Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig and key sk-proj-0123456789abcdefghijkl, FLOWFIX_MODEL_API_KEY=topsecretvalue1',
          usage: { promptTokens: 12, completionTokens: 3 },
          nested: [{ password: 'pw-1234567' }, { secret: 'x' }],
        },
      },
    ];
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: leaky });
    await finish(run);
    const { reader } = await connect({ runId: run.runId });
    const messages = await reader.readUntil(hasEnd);
    const wire = JSON.stringify(messages);
    for (const secret of [
      'sk-live-abcdefghijklmnopqrstuvwxyz',
      'hunter2-hunter2',
      'abc.def.ghi',
      's3cr3t-pass',
      'eyJhbGciOiJIUzI1NiJ9',
      'sk-proj-0123456789abcdefghijkl',
      'topsecretvalue1',
      'pw-1234567',
    ]) {
      assert.ok(!wire.includes(secret), `${secret} must not reach the browser`);
    }
    const call = messages.find((m) => typeOf(m) === 'tool_call')!.data as { payload: Record<string, unknown> };
    assert.equal(call.payload.name, 'run_tests');
    assert.equal(call.payload.arguments, '{"file":"src/a.ts"}');
    assert.equal('apiKey' in call.payload, false);
    assert.equal('env' in call.payload, false);
    const obs = messages.find((m) => typeOf(m) === 'observation')!.data as { payload: { text: string; usage: unknown } };
    // what is not secret survives: the counters and the shape of the text
    assert.deepEqual(obs.payload.usage, { promptTokens: 12, completionTokens: 3 });
    assert.match(obs.payload.text, /postgresql:\/\/flowfix:\[redacted\]@db:5432\/app/);
  });

  test('every type of the contract travels from the writer over the stream to the run page, with no list of types on the way', async () => {
    const run = await startRun();
    // the final event is the lifecycle's own (finishRun), as for a real worker
    const written = RUN_EVENT_TYPES.filter((t) => t !== 'final').map((t) => runEvent(t, RUN_EVENT_EXAMPLES[t], 'patch'));
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: written });
    await finish(run);
    const { reader } = await connect({ runId: run.runId });
    const messages = await reader.readUntil(hasEnd);
    const events = messages.filter((m) => m.event === 'message').map((m) => m.data as PublicRunEvent);
    assert.deepEqual(new Set(events.map((e) => e.type)), new Set(RUN_EVENT_TYPES));
    for (const event of events) {
      // what the browser does with a message: the run page's row for it
      const html = renderToStaticMarkup(createElement(EventItem, { event, searching: false }));
      assert.match(html, new RegExp(`data-type="${event.type}" data-seq="${event.seq}"`));
    }
    const gate = events.find((e) => e.type === 'gate');
    assert.deepEqual(gate?.payload.counts, RUN_EVENT_EXAMPLES.gate.counts);
  });

  test('a stored type this server does not know still reaches the viewer in order, and replays from Last-Event-ID', async () => {
    const run = await startRun();
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(0, 1) });
    // as a newer worker would store it: the writer's contract, not this one
    const seq = await db.db.$transaction(async (tx) => {
      const { nextEventSeq } = await tx.run.update({ where: { id: run.runId }, data: { nextEventSeq: { increment: 1 } } });
      await tx.runEvent.create({ data: { runId: run.runId, seq: nextEventSeq - 1, type: 'hint', payload: { text: 'look at fees.py', phase: 'patch' } } });
      return nextEventSeq - 1;
    });
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(1, 1) });
    await finish(run);

    const first = await connect({ runId: run.runId });
    const all = await first.reader.readUntil(hasEnd);
    const total = await db.db.runEvent.count({ where: { runId: run.runId } });
    assert.deepEqual(
      seqsOf(all),
      Array.from({ length: total }, (_, i) => i),
    );
    const hint = all.find((m) => m.id === seq)!;
    assert.equal(hint.event, 'message');
    assert.deepEqual(hint.data, {
      seq,
      phase: 'patch',
      at: (hint.data as { at: string }).at,
      type: 'unknown',
      name: 'hint',
      payload: { text: 'look at fees.py', phase: 'patch' },
    });

    const resumed = await connect({ runId: run.runId, lastEventId: seq - 1 });
    const rest = await resumed.reader.readUntil(hasEnd);
    assert.deepEqual(
      seqsOf(rest),
      Array.from({ length: total - seq }, (_, i) => seq + i),
    );
    assert.deepEqual(rest[0]!.data, hint.data);
  });

  test('an event that breaks the contract is refused with its reason, and nothing of its batch is stored', async () => {
    const run = await startRun();
    const before = await db.db.runEvent.count({ where: { runId: run.runId } });
    const bad = { type: 'gate', payload: { gate: 'green', passed: 'yes', durationMs: 3 } } as unknown as RunEventInput;
    await assert.rejects(
      appendRunEvents({ runId: run.runId, workerId: run.workerId, events: [...thoughts(0, 1), bad] }),
      (err: unknown) => err instanceof AppError && err.code === 'validation' && /event 2 of 2: gate event: payload\.passed/.test(err.message),
    );
    assert.equal(await db.db.runEvent.count({ where: { runId: run.runId } }), before);
  });

  test('unauthenticated → 401, unknown run → 404, a malformed Last-Event-ID → 422', async () => {
    const run = await startRun();
    const anonymous = await open({ runId: run.runId, withCookie: false }).response;
    assert.equal(anonymous.status, 401);
    const missing = await open({ runId: 'no-such-run' }).response;
    assert.equal(missing.status, 404);
    const bad = await open({ runId: run.runId, after: 'abc' }).response;
    assert.equal(bad.status, 422);
  });
});

describe('GET /api/runs/:id', () => {
  test('returns the run summary with its change, counters and estimate', async () => {
    const run = await startRun();
    await appendRunEvents({ runId: run.runId, workerId: run.workerId, events: thoughts(0, 2) });
    const res = await runRoute(new NextRequest(`http://localhost:3000/api/runs/${run.runId}`, { headers: { cookie } }), {
      params: Promise.resolve({ id: run.runId }),
    });
    assert.equal(res.status, 200);
    const { run: summary } = (await res.json()) as {
      run: { id: string; status: string; lastSeq: number; change: { id: string }; estimate: { basis: string } };
    };
    assert.equal(summary.id, run.runId);
    assert.equal(summary.status, 'RUNNING');
    assert.equal(summary.lastSeq, 2);
    assert.equal(summary.change.id, changeId);
    assert.ok(['history', 'default'].includes(summary.estimate.basis));
    const anonymous = await runRoute(new NextRequest(`http://localhost:3000/api/runs/${run.runId}`), { params: Promise.resolve({ id: run.runId }) });
    assert.equal(anonymous.status, 401);
    const missing = await runRoute(new NextRequest('http://localhost:3000/api/runs/nope', { headers: { cookie } }), {
      params: Promise.resolve({ id: 'nope' }),
    });
    assert.equal(missing.status, 404);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
