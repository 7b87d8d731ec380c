import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { listChanges } from '../../../lib/changes/list-changes';
import { clearPhaseMediansCache, loadPhaseMedians } from '../../../lib/runs/estimate';
import { getActiveRunsForChanges } from '../../../lib/runs/queries';

// The triage list's "Running · Patch, ~3 min left": the active run of each
// queued/running row of the page, with an estimate from the medians of the
// repository's real finished runs (generated demo history excluded).

let db: TestDb;
const NOW = Date.parse('2026-06-01T12:00:00.000Z');
let repoId: string;
let otherRepoId: string;

async function change(repositoryId: string, externalId: string, status: 'NEW' | 'QUEUED' | 'RUNNING' | 'FIX_READY', origin: 'CI' | 'DEMO_HISTORY' = 'CI') {
  const c = await db.db.change.create({
    data: {
      repositoryId,
      externalId,
      title: externalId,
      author: 'ada',
      branch: 'b',
      baseRev: 'a'.repeat(40),
      headRev: 'b'.repeat(40),
      status,
      origin,
      lastFailureAt: new Date(NOW - 1000),
    },
  });
  const r = await db.db.changeRevision.create({ data: { changeId: c.id, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: 'b' } });
  return { changeId: c.id, revisionId: r.id };
}

before(async () => {
  db = await createTestDb();
  repoId = (await db.db.repository.create({ data: { name: 'est-repo', gitUrl: '/x' } })).id;
  otherRepoId = (await db.db.repository.create({ data: { name: 'est-other', gitUrl: '/y' } })).id;
  // three real finished runs of est-repo: medians setup 2 s, red 3 s, localise 1 s, patch 10 s, verify 4 s, summary 1 s
  const timings = [
    { setup: 1000, red: 2000, localise: 1000, patch: 8000, verify: 3000, summary: 1000 },
    { setup: 2000, red: 3000, localise: 1000, patch: 10000, verify: 4000, summary: 1000 },
    { setup: 3000, red: 4000, localise: 1000, patch: 12000, verify: 5000, summary: 1000 },
  ];
  for (const [i, t] of timings.entries()) {
    const c = await change(repoId, `DONE-${i}`, 'FIX_READY');
    await db.db.run.create({ data: { ...c, policy: 'offline', status: 'FIXED', phaseTimings: t, finishedAt: new Date(NOW - 60_000 * (i + 1)) } });
  }
  // generated history, ten minutes a phase: must not move the estimate
  for (let i = 0; i < 5; i += 1) {
    const c = await change(repoId, `HIST-${i}`, 'FIX_READY', 'DEMO_HISTORY');
    await db.db.run.create({
      data: {
        ...c,
        policy: 'offline',
        status: 'FIXED',
        phaseTimings: { setup: 600_000, red: 600_000, localise: 600_000, patch: 600_000, verify: 600_000, summary: 600_000 },
        finishedAt: new Date(NOW - 1000),
      },
    });
  }
  clearPhaseMediansCache();
});

after(async () => {
  await db?.drop();
});

describe('active runs on the triage list', () => {
  test('medians come from the real finished runs of the repository', async () => {
    const m = await loadPhaseMedians({ repositoryId: repoId, db: db.db, now: NOW });
    assert.equal(m.basis, 'history');
    assert.equal(m.runs, 3);
    assert.deepEqual(m.medians, { setup: 2000, red: 3000, localise: 1000, patch: 10000, verify: 4000, summary: 1000 });
    const none = await loadPhaseMedians({ repositoryId: otherRepoId, db: db.db, now: NOW });
    assert.equal(none.basis, 'default');
  });

  test('a running change shows its phase and time left; a queued one the whole estimate; others nothing', async () => {
    const running = await change(repoId, 'RUN-1', 'RUNNING');
    const run = await db.db.run.create({
      data: { ...running, policy: 'offline', status: 'RUNNING', activeKey: running.revisionId, startedAt: new Date(NOW - 20_000), nextEventSeq: 6 },
    });
    const phases: Array<[string, string, number]> = [
      ['setup', 'started', 20_000],
      ['setup', 'finished', 18_000],
      ['red', 'started', 18_000],
      ['red', 'finished', 15_000],
      ['localise', 'started', 15_000],
      ['localise', 'finished', 14_000],
    ];
    await db.db.runEvent.createMany({
      data: [
        ...phases.map(([phase, status, ago], seq) => ({ runId: run.id, seq, type: 'phase', payload: { phase, status }, createdAt: new Date(NOW - ago) })),
        { runId: run.id, seq: 6, type: 'phase', payload: { phase: 'patch', status: 'started' }, createdAt: new Date(NOW - 4_000) },
      ],
    });
    const queued = await change(otherRepoId, 'Q-1', 'QUEUED');
    const qrun = await db.db.run.create({ data: { ...queued, policy: 'offline', status: 'QUEUED', activeKey: queued.revisionId } });
    const idle = await change(repoId, 'IDLE-1', 'NEW');

    const page = await listChanges({ filters: { history: 'exclude' }, now: new Date(NOW), limit: 100 });
    const byId = new Map(page.items.map((i) => [i.id, i]));
    const r = byId.get(running.changeId)!.activeRun!;
    assert.equal(r.id, run.id);
    assert.equal(r.status, 'RUNNING');
    assert.equal(r.phase, 'patch');
    // 4 s into a 10 s patch: 6 s + verify 4 s + summary 1 s
    assert.equal(r.remainingMs, 11_000);
    assert.equal(r.basis, 'history');
    const q = byId.get(queued.changeId)!.activeRun!;
    assert.equal(q.id, qrun.id);
    assert.equal(q.status, 'QUEUED');
    assert.equal(q.phase, null);
    assert.equal(q.basis, 'default');
    assert.equal(q.remainingMs, 190_000, 'the default medians, summed');
    assert.equal(byId.get(idle.changeId)!.activeRun, null);
    assert.equal(byId.get(running.changeId) !== undefined && page.items.filter((i) => i.activeRun).length, 2);
  });

  test('getActiveRunsForChanges with no ids asks nothing', async () => {
    assert.equal((await getActiveRunsForChanges({ changeIds: [], db: db.db })).size, 0);
  });
});
