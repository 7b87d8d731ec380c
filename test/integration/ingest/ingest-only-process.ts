import { createTestDb } from '../../helpers/test-db';
import { jsonRequest, metadata, seed, send } from './helpers';

// A process that imports the ingestion route and nothing else of flowfix's
// server start-up (no instrumentation.ts, no worker, no lib/runs import of its
// own): it reports one failure and prints what it stored and queued as JSON.
// Run by triage.test.ts in a child process, so no other test's imports help.

const db = await createTestDb();
try {
  const seeded = await seed(db.db);
  const res = await send(
    jsonRequest({ token: seeded.tokens.scoped, body: metadata({ tests: [{ name: 'total', classname: 'cart', message: 'expected 3, got 4' }] }) }),
  );
  const changeId = res.body.changeId as string;
  const runs = await db.db.run.findMany({ where: { changeId }, select: { id: true, status: true, trigger: true } });
  const change = await db.db.change.findUniqueOrThrow({ where: { id: changeId }, select: { status: true } });
  // the queue the ingestion used (one per process); fetched only after ingesting
  const { getRunQueue, stopRunQueue } = await import('../../../lib/queue');
  const jobs = await (await getRunQueue()).fetch(10);
  await stopRunQueue();
  process.stdout.write(JSON.stringify({ status: res.status, runs, changeStatus: change.status, queuedRunIds: jobs.map((j) => j.runId) }));
} finally {
  await db.drop();
}
