import type { TestResult, TestRun } from '../types';
import { didNotRun } from '../testing/test-runner';

// What a target run shows, in words a run's exit can carry: each target under
// what its own result says (failed with its message, missing from the report,
// passed, skipped). An exit that names one cause for all of them ("the
// targets pass") when the report says another ("they are not in it") sends a
// reader after the wrong problem, so every target exit builds its detail here.

export interface TargetOutcome {
  failed: TestResult[];
  /** targets the report does not list at all (renamed, removed, or not run by the command) */
  absent: TestResult[];
  passed: TestResult[];
  skipped: TestResult[];
}

export function targetOutcome(run: Pick<TestRun, 'results'>): TargetOutcome {
  const out: TargetOutcome = { failed: [], absent: [], passed: [], skipped: [] };
  for (const r of run.results) {
    if (didNotRun(r)) out.absent.push(r);
    else if (r.status === 'failed' || r.status === 'error') out.failed.push(r);
    else if (r.status === 'passed') out.passed.push(r);
    else out.skipped.push(r);
  }
  return out;
}

/** Up to `max` items, then how many more. */
export function listSome(items: string[], max = 5): string {
  return items.length > max ? `${items.slice(0, max).join(', ')} and ${items.length - max} more` : items.join(', ');
}

/** A failing result with the start of its message on one line: "<id> (<message>)" (node's "Expected values to be strictly equal:" says nothing until its next line). */
export function failingWithMessage(r: TestResult, maxChars = 200): string {
  const text = (r.message ?? '').replace(/\s+/g, ' ').trim();
  return text ? `${r.id} (${text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text})` : r.id;
}

/** "failing: a (msg); not in the test report: b; passed: c; skipped: d", the empty groups left out. */
export function describeTargets(run: Pick<TestRun, 'results' | 'incomplete' | 'reportError'>, max = 5): string {
  if (run.reportError) return `no readable test report: ${run.reportError}`;
  const o = targetOutcome(run);
  const parts = [
    o.failed.length
      ? `failing: ${listSome(
          o.failed.map((r) => failingWithMessage(r)),
          max,
        )}`
      : '',
    o.absent.length
      ? `not in the test report: ${listSome(
          o.absent.map((r) => r.id),
          max,
        )}`
      : '',
    o.passed.length
      ? `passed: ${listSome(
          o.passed.map((r) => r.id),
          max,
        )}`
      : '',
    o.skipped.length
      ? `skipped: ${listSome(
          o.skipped.map((r) => r.id),
          max,
        )}`
      : '',
    run.incomplete ? `the report does not account for every test (${run.incomplete})` : '',
  ];
  return parts.filter(Boolean).join('; ');
}

/**
 * RED found no target failing on the head: why, as its results show. Only
 * targets that ran and passed make the failure look flaky; targets the report
 * does not list were not run at all, which is another problem.
 */
export function notReproducedDetail(run: Pick<TestRun, 'results' | 'incomplete' | 'reportError'>): string {
  const o = targetOutcome(run);
  const n = run.results.length;
  if (n > 0 && o.absent.length === n) {
    return `the target tests are not in the head revision's test report (${n} of ${n} did not run: ${listSome(o.absent.map((r) => r.id))}): renamed or removed on this revision, or not run by the test command${run.incomplete ? `; the report does not account for every test (${run.incomplete})` : ''}`;
  }
  if (n > 0 && o.passed.length === n && !run.incomplete) {
    return `the target tests pass on the head revision (${listSome(o.passed.map((r) => r.id))}): the failure did not reproduce (flaky?)`;
  }
  return `no target test fails on the head revision: the failure did not reproduce (${describeTargets(run)})`;
}
