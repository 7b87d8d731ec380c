import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { insightsSection } from '../../../lib/insights';
import { InsightsQuerySchema } from '../../../common/insights-query';
import { recordDeveloperFiles } from '../../../lib/insights/developer-files';
import { rebuildInsightsRollups, verifyInsightsRollups } from '../../../lib/insights/rollup';

// "Mislocalised": a run that searched in vain where the developer's next
// revision changed none of its suspects' files. The files come from a real
// repository (base → the change → the developer's own next push), recorded by
// the workers' housekeeping (recordDeveloperFiles); the rollups follow in the
// same transaction. On PGlite and on PostgreSQL (FLOWFIX_TEST_DB).
//
//   C1 no_candidate, suspects src/cart.js         → mislocalised (developer changed src/tax.js)
//   C2 no_candidate, reached GREEN, suspects tax   → green_not_reached (the developer's file was a suspect)
//   C3 not_reproduced, no suspects                 → not_reproduced
//   C4 time_limit, suspects src/cart.js            → mislocalised
//   C5 no_candidate, repository not on this disk   → compile_rejected (nothing known of the next revision)
//   C6 no_candidate, suspects src/cart.js, never superseded → compile_rejected

const NOW = new Date('2026-11-30T12:00:00Z');
const AT = Date.parse('2026-11-20T09:00:00Z');
const MIN = 60_000;
const NOVEMBER = InsightsQuerySchema.parse({ period: 'custom', from: '2026-11-01', to: '2026-11-30' });

let db: TestDb;
let dir: string;
const revs = { base: '', head: '', next: '' };

function suspect(file: string) {
  return { file, symbol: 'f', kind: 'function', startLine: 1, endLine: 3, score: 1, reasons: ['edited by the change'] };
}

async function addChange(n: number, opts: { repo: string; exit: string; suspects?: string[]; green?: boolean; superseded?: boolean }): Promise<string> {
  const d = db.db;
  const at = AT + n * MIN;
  const change = await d.change.create({
    data: {
      repositoryId: opts.repo,
      externalId: `C${n}`,
      title: `change ${n}`,
      author: 'dev',
      branch: `b${n}`,
      baseRev: revs.base,
      headRev: opts.superseded === false ? revs.head : revs.next,
      createdAt: new Date(at),
      lastFailureAt: new Date(at),
    },
  });
  const first = await d.changeRevision.create({
    data: {
      changeId: change.id,
      number: 1,
      baseRev: revs.base,
      headRev: revs.head,
      branch: `b${n}`,
      createdAt: new Date(at),
      supersededAt: opts.superseded === false ? null : new Date(at + 30 * MIN),
    },
  });
  if (opts.superseded !== false) {
    await d.changeRevision.create({
      data: { changeId: change.id, number: 2, baseRev: revs.base, headRev: revs.next, branch: `b${n}`, createdAt: new Date(at + 30 * MIN) },
    });
  }
  const run = await d.run.create({
    data: {
      changeId: change.id,
      revisionId: first.id,
      policy: 'offline',
      status: 'NO_FIX',
      exitReason: opts.exit,
      createdAt: new Date(at + MIN),
      startedAt: new Date(at + MIN),
      finishedAt: new Date(at + 9 * MIN),
    },
  });
  let seq = 0;
  if (opts.suspects) await d.runEvent.create({ data: { runId: run.id, seq: seq++, type: 'suspects', payload: { suspects: opts.suspects.map(suspect) } } });
  if (opts.green) await d.runEvent.create({ data: { runId: run.id, seq, type: 'gate', payload: { gate: 'green', passed: false } } });
  return first.id;
}

async function categories(): Promise<Record<string, { count: number; exitReasons: Record<string, number> }>> {
  const { data } = await insightsSection({ section: 'quality', query: NOVEMBER, now: NOW, db: db.db });
  const noFix = (data as { noFix: { categories: Array<{ category: string; count: number; exitReasons: Record<string, number> }> } }).noFix;
  return Object.fromEntries(noFix.categories.filter((c) => c.count > 0).map((c) => [c.category, { count: c.count, exitReasons: c.exitReasons }]));
}

before(async () => {
  db = await createTestDb();
  dir = mkdtempSync(path.join(tmpdir(), 'flowfix-mislocalised-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } as unknown as NodeJS.ProcessEnv }).trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'dev@example.com');
  git('config', 'user.name', 'Dev');
  mkdirSync(path.join(dir, 'src'));
  const commit = (files: Record<string, string>, message: string) => {
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
    git('add', '--all');
    git('commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  revs.base = commit({ 'src/cart.js': 'export const total = (xs) => xs.length;\n', 'src/tax.js': 'export const rate = 0.2;\n' }, 'base');
  revs.head = commit({ 'src/cart.js': 'export const total = (xs) => xs.reduce((a, x) => a + x * (1 + rate), 0);\n' }, 'the change');
  revs.next = commit({ 'src/tax.js': 'export const rate = 0.25;\n' }, 'the developer’s own next push');
});

after(async () => {
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a run is mislocalised once the developer’s next revision shows none of its suspects’ files changed', async () => {
  const d = db.db;
  const repo = (await d.repository.create({ data: { name: 'cart', gitUrl: dir } })).id;
  const away = (await d.repository.create({ data: { name: 'elsewhere', gitUrl: 'https://git.example.test/elsewhere.git' } })).id;
  const c1 = await addChange(1, { repo, exit: 'no_candidate', suspects: ['src/cart.js'] });
  await addChange(2, { repo, exit: 'no_candidate', suspects: ['src/cart.js', 'src/tax.js'], green: true });
  await addChange(3, { repo, exit: 'not_reproduced' });
  await addChange(4, { repo, exit: 'time_limit', suspects: ['src/cart.js'] });
  const c5 = await addChange(5, { repo: away, exit: 'no_candidate', suspects: ['src/cart.js'] });
  await addChange(6, { repo, exit: 'no_candidate', suspects: ['src/cart.js'], superseded: false });
  // written past the writers: the rollups are built from the rows
  await rebuildInsightsRollups({ db: d });

  // before the housekeeping, nothing is known of what the developer did next
  assert.deepEqual(await categories(), {
    compile_rejected: { count: 3, exitReasons: { no_candidate: 3 } },
    green_not_reached: { count: 1, exitReasons: { no_candidate: 1 } },
    not_reproduced: { count: 1, exitReasons: { not_reproduced: 1 } },
    budget_exhausted: { count: 1, exitReasons: { time_limit: 1 } },
  });

  const first = await recordDeveloperFiles({ db: d });
  assert.deepEqual(first, { recorded: 5, unknown: 1 });
  assert.deepEqual((await d.changeRevision.findUniqueOrThrow({ where: { id: c1 } })).nextFiles, ['src/tax.js']);
  assert.deepEqual((await d.changeRevision.findUniqueOrThrow({ where: { id: c5 } })).nextFiles, []);

  assert.deepEqual(await categories(), {
    mislocalised: { count: 2, exitReasons: { no_candidate: 1, time_limit: 1 } },
    compile_rejected: { count: 2, exitReasons: { no_candidate: 2 } },
    green_not_reached: { count: 1, exitReasons: { no_candidate: 1 } },
    not_reproduced: { count: 1, exitReasons: { not_reproduced: 1 } },
  });
  // the housekeeping refreshed the rollups in its own transactions: nothing drifted
  assert.deepEqual((await verifyInsightsRollups({ db: d })).differences, []);
  // each revision is looked at once
  assert.deepEqual(await recordDeveloperFiles({ db: d }), { recorded: 0, unknown: 0 });
});
