import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { runRepair } from '@/agent/pipeline';
import { createOfflinePolicy } from '@/agent/policies/offline';
import type { AgentEvent, EventSink } from '@/agent/types';
import { ModelSettingsSchema, RepositorySettingsSchema } from '@/common/settings';
import { makeRepo, type TestRepo } from '../../helpers/agent-repos';

// The run's time limit is one deadline over every command of the run: a
// repository whose candidates' tests all hang must end `time_limit` at the
// deadline, not after one candidate time limit per candidate.

const repos: Array<Pick<TestRepo, 'cleanup'>> = [];
after(() => repos.forEach((r) => r.cleanup()));

// The head returns 5 and the test fails at once; any other answer (every
// candidate the offline search makes, and the base's) hangs forever.
const TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { double } from '../src/calc.js';

test('double doubles', async () => {
  const got = double(2);
  if (got !== 5) await new Promise(() => setInterval(() => {}, 1000));
  assert.equal(got, 'four');
});
`;

/** A sink that notes when each event arrived. */
class TimedSink implements EventSink {
  readonly events: Array<{ at: number; event: AgentEvent }> = [];
  async emit(event: AgentEvent): Promise<void> {
    this.events.push({ at: Date.now(), event: structuredClone(event) });
  }
}

test('every candidate tests hang: the run ends time_limit at its deadline and starts no candidate after it', { timeout: 180_000 }, async () => {
  const repo = makeRepo('flowfix-deadline-');
  repos.push(repo);
  repo.write('package.json', JSON.stringify({ name: 'calc', private: true, type: 'module' }) + '\n');
  repo.write('.gitignore', 'junit.xml\n');
  repo.write('src/calc.js', 'export function double(n) {\n  return n + n;\n}\n');
  repo.write('test/calc.test.js', TEST);
  const base = repo.commit('base');
  repo.write('src/calc.js', 'export function double(n) {\n  const twice = n + n;\n  return twice + 1;\n}\n');
  const head = repo.commit('change');

  const sink = new TimedSink();
  const result = await runRepair({
    repoPath: repo.dir,
    baseRev: base,
    headRev: head,
    targetTests: ['double doubles'],
    settings: RepositorySettingsSchema.parse({
      language: 'javascript',
      test: 'node --test --test-reporter=junit --test-reporter-destination=junit.xml test/',
      junitReport: 'junit.xml',
      // each candidate alone may run for minutes: only the run's deadline stops the loop
      timeLimits: { testSeconds: 600, regressionSeconds: 600 },
    }),
    // 12 s for the whole run; the offline policy's own limit (10 min) is far beyond it
    modelSettings: ModelSettingsSchema.parse({ timeLimitMinutes: 0.2 }),
    policy: createOfflinePolicy(),
    checkBase: false,
    sink,
  });

  assert.equal(result.exitReason, 'time_limit', `${result.exitReason}: ${result.exitDetail}`);
  const limitLog = sink.events.find((e) => e.event.type === 'log' && typeof e.event.payload.deadline === 'number');
  assert.ok(limitLog, 'the run logs its deadline');
  const deadline = limitLog.event.payload.deadline as number;
  const gates = sink.events.filter((e) => e.event.type === 'gate');
  const candidates = gates.filter((e) => e.event.payload.gate === 'compile');
  const greens = gates.filter((e) => e.event.payload.gate === 'green');
  assert.ok(candidates.length >= 1, `at least one candidate was tried (${JSON.stringify(sink.events.map((e) => e.event.type))})`);
  assert.ok(greens.length >= 1);
  for (const c of candidates) assert.ok(c.at < deadline, `a candidate started ${c.at - deadline} ms after the deadline`);
  // the candidate running at the deadline was cut by it (not by its own, longer, time limit)
  assert.equal(greens.at(-1)!.event.payload.passed, false);
  assert.match(String(greens.at(-1)!.event.payload.detail), /the run reached its time limit/);
  assert.equal(result.diff, '');
  // the report says what the hanging candidates cost: the GREEN at the deadline, at least, was stopped by a time limit
  const hung = greens.filter((g) => /time limit/.test(String(g.event.payload.detail))).length;
  assert.ok(hung >= 1);
  assert.equal(result.timings.timeouts, hung, JSON.stringify(result.timings));
  assert.ok(result.timings.timeoutMs > 0 && result.timings.timeoutMs <= result.timings.commandMs, JSON.stringify(result.timings));
  const lost = sink.events.find((e) => e.event.type === 'log' && typeof e.event.payload.timeoutMs === 'number');
  assert.ok(lost, 'the run logs the time its commands lost to time limits');
  assert.match(String(lost.event.payload.text), new RegExp(`^${hung} commands? timed out: [\\d.]+ s, \\d+% of the run's`));
  const final = sink.events.find((e) => e.event.type === 'final');
  assert.equal((final!.event.payload.timings as Record<string, number>).timeouts, hung);
});
