import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, setDbHandle, type DbHandle } from '../lib/db';
import { applyMigrations } from '../scripts/db/migrate';
import { createScratchDatabase } from '../lib/scratch-database';
import { stopRunQueue } from '../lib/queue';
import { closeRunEventsListener } from '../lib/runs/notify';
import { appendRunEvents } from '../lib/runs/events';
import { issuePersonalToken } from '../lib/tokens/personal-tokens';
import { PHASES, runEvent } from '../common/run-events';
import { FlowfixClient } from '../extension/src/core/client';
import { buildView } from '../extension/src/core/view';
import { serveExtensionRoutes } from '../test/helpers/route-server';
import { BRANCH, buildWorkingRepo, createFixFor, createUser, git } from '../test/integration/fixes/helpers';
import { summarise } from './stats';
import type { BenchModule } from './types';

// The VS Code extension's two speed targets (issue 23), with the extension's
// real core (extension/src/core: the client, the view model the tree view and
// the status bar are drawn from) against the real server code: the routes the
// extension calls served over HTTP on loopback (test/integration/extension/
// route-server.ts, as extension-core.test.ts does), a scratch PostgreSQL
// database, so live events go through the real NOTIFY/LISTEN path.
//
// 1. branch state: what the extension does when the workspace opens (its
//    activation's first refresh): a new client, GET /api/changes/for-branch
//    for the checkout's remote and branch, the panel's model built. After the
//    first (reported on its own: a new connection, cold routes and pool) the
//    connection is kept alive, as fetch keeps it. Target ≤ 1 s.
// 2. live event: an event saved by the agent's own writer (appendRunEvents,
//    what agent/worker/db-sink.ts calls) → the extension's SSE client has it
//    → the extension's refresh on that event (for-branch again) has rebuilt
//    the panel's model showing the event's phase. Timed from before the
//    write, so the write itself is counted. Target ≤ 500 ms.
//
// What it does not count: VS Code drawing the tree from the model (the
// editor's own work, a frame or two), and the Git extension's discovery of
// the repository before the first refresh. Server and client share one
// process and one clock here.
//
//   npm run bench -- --only editor [--samples N] [--scale CHANGES]

const DEFAULT_CHANGES = 2_000;

export const editorBench: BenchModule = {
  name: 'editor',
  description: 'VS Code extension core vs the real routes: branch state after the workspace opens; a saved run event → the panel model',
  async run(options) {
    const { url, drop } = await createScratchDatabase({ serverUrl: options.serverUrl, prefix: 'flowfix_bench_editor' });
    const unregister = options.keep ? () => undefined : options.onInterrupt(drop);
    const handle: DbHandle = openDb({ kind: 'postgres', location: url });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-bench-editor-'));
    const changes = options.scale ?? DEFAULT_CHANGES;
    let routes: Awaited<ReturnType<typeof serveExtensionRoutes>> | null = null;
    try {
      await applyMigrations({ handle });
      setDbHandle(handle);
      const db = handle.db;

      // the developer's checkout of a change with a READY fix, among other repositories' changes
      const repo = buildWorkingRepo(dir);
      const made = await createFixFor(db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev, name: 'acme/shop' });
      await db.failure.create({
        data: {
          changeId: made.change.id,
          revisionId: made.revision.id,
          testId: 'cart::total',
          testName: 'total of nothing is 0',
          message: 'expected 1 to be 0',
        },
      });
      await db.change.update({ where: { id: made.change.id }, data: { failingTestCount: 1, lastFailureAt: new Date() } });
      const others = await Promise.all(
        Array.from({ length: 20 }, (_, r) => db.repository.create({ data: { name: `acme/other-${r}`, gitUrl: `https://git.invalid/acme/other-${r}.git` } })),
      );
      for (let from = 0; from < changes; from += 1_000) {
        await db.change.createMany({
          data: Array.from({ length: Math.min(1_000, changes - from) }, (_, k) => {
            const i = from + k;
            return {
              repositoryId: others[i % others.length]!.id,
              externalId: `PR-${i}`,
              title: `change ${i}`,
              author: 'Dev',
              branch: i % 2 ? BRANCH : `feature/${i}`,
              baseRev: repo.baseRev,
              headRev: repo.headRev,
              status: 'NEW' as const,
              lastFailureAt: new Date(Date.now() - i * 1000),
            };
          }),
        });
      }
      const clone = path.join(dir, 'clone');
      git(dir, 'clone', '-q', '--branch', BRANCH, repo.dir, clone);
      const remotes = [git(clone, 'remote', 'get-url', 'origin')];
      const localHead = git(clone, 'rev-parse', 'HEAD');
      const user = await createUser(db, 'Eddie Editor', ['REVIEWER']);
      const { token } = await issuePersonalToken({ userId: user.id, input: { name: 'bench editor', scope: 'decide', kind: 'ide' } });
      routes = await serveExtensionRoutes();
      const serverUrl = routes.url;
      options.log(`editor: ${changes} other changes in ${others.length} repositories; the extension's routes on ${serverUrl}`);

      // ── 1. the branch's state after the workspace opens
      const opens = Math.min(options.samples, 100);
      const openTimes: number[] = [];
      let firstOpen = 0;
      for (let i = 0; i < Math.min(options.warmup, 5) + opens; i++) {
        const started = performance.now();
        const client = new FlowfixClient({ serverUrl, token });
        const state = await client.branchState({ remotes, branch: BRANCH });
        const view = buildView({ kind: 'state', state, localHead });
        const took = performance.now() - started;
        if (view.status.text !== '$(wrench) flowfix: fixed, fix ready') throw new Error(`the panel shows "${view.status.text}", not the ready fix`);
        if (i === 0) firstOpen = took;
        if (i >= Math.min(options.warmup, 5)) openTimes.push(took);
      }
      options.log(`editor: ${openTimes.length} workspace opens`);

      // ── 2. a live run event: the agent re-runs on the change, the extension follows it
      const workerId = 'bench-worker';
      const live = await db.run.create({
        data: {
          changeId: made.change.id,
          revisionId: made.revision.id,
          policy: 'offline',
          status: 'RUNNING',
          activeKey: made.revision.id,
          leaseOwner: workerId,
          leaseExpiresAt: new Date(Date.now() + 3_600_000),
          heartbeatAt: new Date(),
          startedAt: new Date(),
        },
      });
      await db.change.update({ where: { id: made.change.id }, data: { lastFailureAt: new Date() } });
      const client = new FlowfixClient({ serverUrl, token });
      const first = await client.branchState({ remotes, branch: BRANCH });
      if (first.change?.run?.id !== live.id) throw new Error(`the branch shows run ${first.change?.run?.id}, not the live one`);

      const waiting = new Map<number, (at: { received: number; rendered: number; line: string }) => void>();
      const abort = new AbortController();
      // as the extension's followRun: every event makes the panel look again
      const following = client.followRun(
        live.id,
        (event) => {
          const received = performance.now();
          const seq = Number(event.id);
          const done = waiting.get(seq);
          if (!done) return;
          void client.branchState({ remotes, branch: BRANCH }).then((state) => {
            const line = buildView({ kind: 'state', state, localHead }).status.text;
            done({ received, rendered: performance.now(), line });
          });
        },
        abort.signal,
      );
      const events = Math.min(options.samples, 60);
      const received: number[] = [];
      const rendered: number[] = [];
      for (let i = 0; i < Math.min(options.warmup, 3) + events; i++) {
        const phase = PHASES[i % PHASES.length]!;
        const seq = i;
        const shown = new Promise<{ received: number; rendered: number; line: string }>((resolve, reject) => {
          waiting.set(seq, resolve);
          setTimeout(() => reject(new Error(`event ${seq} not shown within 10 s`)), 10_000).unref();
        });
        const started = performance.now();
        const saved = await appendRunEvents({ runId: live.id, workerId, events: [runEvent('phase', { phase, status: 'started' })] });
        if (saved.lastSeq !== seq) throw new Error(`saved as seq ${saved.lastSeq}, expected ${seq}`);
        const at = await shown;
        waiting.delete(seq);
        if (!at.line.includes(`running (${phase})`)) throw new Error(`after the ${phase} event the status bar says "${at.line}"`);
        if (i >= Math.min(options.warmup, 3)) {
          received.push(at.received - started);
          rendered.push(at.rendered - started);
        }
        // the agent's events come seconds apart; a gap keeps each trial on its own
        await new Promise((r) => setTimeout(r, 100));
      }
      abort.abort();
      await following.catch(() => undefined);
      options.log(`editor: ${rendered.length} live events`);

      return {
        bench: 'editor (VS Code extension core)',
        setup: `the extension's core (extension/src/core) against the real routes over HTTP on loopback, scratch PostgreSQL, ${changes} other changes in ${others.length} repositories, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
        figures: [
          { name: 'workspace opens → branch state in the panel model', ...summarise(openTimes), targetP95: 1_000 },
          { name: 'run event saved → received by the SSE client', ...summarise(received) },
          { name: 'run event saved → panel model shows it (refresh)', ...summarise(rendered), targetP95: 500 },
        ],
        notes: [
          `first open of the process (a new connection, cold routes and database pool): ${firstOpen.toFixed(1)} ms`,
          "saved → shown is timed from before appendRunEvents (the agent worker's writer), so the write, NOTIFY/LISTEN, the SSE read and the extension's refresh are all counted; VS Code drawing the tree from the model is not",
        ],
      };
    } finally {
      if (routes) {
        routes.server.closeAllConnections();
        await new Promise((r) => routes!.server.close(r));
      }
      await closeRunEventsListener().catch(() => undefined);
      await stopRunQueue().catch(() => undefined);
      setDbHandle(undefined);
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
      if (!options.keep) {
        await drop();
        unregister();
      }
    }
  },
};
