import type { TemplateName } from '../../../agent/policies/offline/model';

// The repair bug corpus is data: small real projects (TypeScript tested with
// `node --test`, Python with pytest) and, per bug, the change that introduces
// it. bench/agent/corpus/build.ts turns one bug into a real git repository:
// base commit = the project, correct and green; head commit = the change.

export type BugKind =
  | 'off-by-one'
  | 'wrong-operator'
  | 'wrong-arithmetic'
  | 'wrong-logical'
  | 'negated-condition'
  | 'swapped-args'
  | 'wrong-literal'
  | 'wrong-return'
  | 'stale-expectation'
  | 'missing-logic'
  // the wider search's patterns (wider.ts)
  | 'wrong-variable'
  | 'wrong-field'
  | 'wrong-function'
  | 'wrong-builtin'
  | 'operand-order'
  | 'extra-clause'
  | 'missing-guard'
  | 'extra-statement'
  | 'missing-statement'
  | 'wrong-membership';

export interface CorpusProject {
  name: string;
  language: 'typescript' | 'python';
  /** path → content of the base revision; every test passes on it */
  files: Record<string, string>;
}

/** One edit of the change: exact replacements (each `find` occurs once), an append, or a whole file. */
export interface FileChange {
  file: string;
  replace?: Array<[find: string, replace: string]>;
  append?: string;
  content?: string;
}

export interface CorpusBug {
  id: string;
  project: string;
  kind: BugKind;
  /** the change's title and description, as its author wrote them */
  title: string;
  description: string;
  change: FileChange[];
  /** ids (lib/junit/parse.ts junitTestId) of the tests that fail at head */
  failingTests: string[];
  /** where the fix belongs: the scaffold's localisation is scored against it */
  truth: { file: string; symbol: string };
  /** whether the offline templates can express the fix; missing logic cannot */
  offlineFixable: boolean;
  /**
   * the template that expresses the correct fix (agent/policies/offline/templates.ts), or null
   * when none does: what the pattern priors are counted from (agent/policies/offline/priors.ts)
   */
  fix: TemplateName | null;
  /**
   * tests the repository does not have, which a correct fix passes and an
   * overfitting one (green on the repository's tests only) fails; the bench
   * runs them over a fix (new test files, added to the head with the fix)
   */
  heldOut?: Array<{ file: string; content: string }>;
}
