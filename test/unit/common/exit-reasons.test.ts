import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT_REASONS, NO_FIX_CATEGORIES, isExitReason, noFixCategory } from '@/common/exit-reasons';

const root = path.resolve(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true })
    .map(String)
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => path.join(dir, f));
}

test('every named exit reason but "fixed" has a category of its own: none falls into "other"', () => {
  for (const reason of EXIT_REASONS) {
    if (reason === 'fixed') continue;
    const categories = new Set([noFixCategory(reason, false), noFixCategory(reason, true)]);
    assert.ok(!categories.has('other'), `${reason} is counted as "other"`);
    for (const c of categories) assert.ok((NO_FIX_CATEGORIES as readonly string[]).includes(c));
  }
  assert.equal(noFixCategory('model_error', false), 'model_unavailable');
  assert.equal(noFixCategory('worker_lost', false), 'worker_lost');
});

test('no_candidate is split by the trajectory; a search in vain where the developer changed other files is mislocalised', () => {
  assert.equal(noFixCategory('no_candidate', false), 'compile_rejected');
  assert.equal(noFixCategory('no_candidate', true), 'green_not_reached');
  assert.equal(noFixCategory('time_limit', false, true), 'mislocalised');
  assert.equal(noFixCategory('not_reproduced', false, true), 'not_reproduced', 'a run that never localised is never mislocalised');
});

test('what is not a named reason is "other", never a crash: a dropped fix, an unknown string, a prototype key, null', () => {
  for (const odd of ['dropped:test_file_edit', 'something_new', 'constructor', '__proto__', 'fixed', null]) assert.equal(noFixCategory(odd, false), 'other');
  assert.equal(isExitReason('dropped:test_file_edit'), true);
  assert.equal(isExitReason('dropped:'), false);
  assert.equal(isExitReason('constructor'), false);
});

test("every exit reason the code writes is in the list (agent/, lib/: `exitReason: '…'`)", () => {
  const written = new Map<string, string>();
  for (const file of [...sources('agent'), ...sources('lib').filter((f) => !f.startsWith(path.join('lib', 'generated')))]) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/exitReason:\s*'([a-z_]+)'/g)) written.set(m[1], file);
  }
  assert.ok(written.size >= 5, `found ${written.size}: the scan must see the writers`);
  for (const [reason, file] of written)
    assert.ok((EXIT_REASONS as readonly string[]).includes(reason), `${file} writes "${reason}", which common/exit-reasons.ts does not name`);
});

test('flowfix failing itself is a reason of its own (not "other"), and the finish schema takes only named reasons', async () => {
  assert.equal(noFixCategory('internal_error', false), 'internal_error');
  const { FinishRunResultSchema } = await import('@/lib/runs/schemas');
  assert.equal(FinishRunResultSchema.safeParse({ status: 'failed', exitReason: 'internal_error' }).success, true);
  assert.equal(FinishRunResultSchema.safeParse({ status: 'no_fix', exitReason: 'dropped:test_file_edit' }).success, true);
  const unknown = FinishRunResultSchema.safeParse({ status: 'failed', exitReason: 'something_new' });
  assert.equal(unknown.success, false);
  assert.match(JSON.stringify(unknown.error?.issues), /not a known exit reason/);
});
