import type { RenamedTargets, Target, TestResult } from '../types';
import { leafName, testNameOf } from '../../lib/junit/test-id';

// A reviewer who edits a fix may rename the failing test to match the fix's
// new expectation ("rounds half a cent up" → "rounds half a cent to even").
// The target's id is then in no report, and GREEN on it can only fail. The
// renamed test is found from what the edit did to the test files, not from
// any runner's naming scheme: the target's title is in a test file at the
// head and no longer after the edit, and the tests standing for it are the
// report's tests whose titles that file holds only after the edit. A target
// that left no such trace stays a target, and the exit says why.

/** A test file the edit changed: its text at the head and after the edit (null: absent there). */
export interface EditedTestFile {
  path: string;
  atHead: string | null;
  edited: string | null;
}

/** shorter titles ("a", "ok") are in every file: no evidence of anything */
const MIN_TITLE_CHARS = 4;

/** The title a test's source spells out: the last part of its name, without a parametrisation ("[a-b]") or a repeat (" [2]"). */
export function sourceTitle(name: string): string {
  return leafName(name)
    .replace(/( \[\d+\])+$/, '')
    .replace(/\[[^\]]*\]$/, '')
    .trim();
}

const holds = (text: string | null, title: string) => text !== null && text.includes(title);

export function findRenamedTargets({ absent, files, results }: { absent: Target[]; files: EditedTestFile[]; results: TestResult[] }): RenamedTargets {
  const out: RenamedTargets = { renamed: [], unaccounted: [] };
  for (const target of absent) {
    const title = sourceTitle(target.name ?? testNameOf(target.id));
    const candidates = files.filter((f) => (!target.file || target.file === f.path) && title.length >= MIN_TITLE_CHARS && holds(f.atHead, title));
    if (candidates.length === 0) {
      out.unaccounted.push({ id: target.id, why: `${target.id} is not in the test report, and no test file the edit changes held it` });
      continue;
    }
    const file = candidates.find((f) => !holds(f.edited, title));
    if (!file) {
      out.unaccounted.push({ id: target.id, why: `${target.id} is still in ${candidates[0]!.path}, but the test report does not list it` });
      continue;
    }
    const to = results
      .filter((r) => !r.file || r.file === file.path)
      .filter((r) => {
        const t = sourceTitle(r.name);
        return t.length >= MIN_TITLE_CHARS && holds(file.edited, t) && !holds(file.atHead, t);
      })
      .map((r) => ({ id: r.id, name: r.name, file: file.path }));
    if (to.length === 0) {
      out.unaccounted.push({ id: target.id, why: `the edit takes ${target.id} out of ${file.path} and adds no test in its place` });
      continue;
    }
    out.renamed.push({ from: target.id, file: file.path, to });
  }
  return out;
}

/** The targets with each renamed one replaced by the tests standing for it (each test once, in order). */
export function followedTargets(targets: Target[], found: RenamedTargets): Target[] {
  const seen = new Set<string>();
  const out: Target[] = [];
  for (const t of targets) {
    const renamed = found.renamed.find((r) => r.from === t.id);
    for (const next of renamed ? renamed.to : [t]) {
      if (seen.has(next.id)) continue;
      seen.add(next.id);
      out.push(next);
    }
  }
  return out;
}
