import type { AuthorKind } from '../../lib/generated/prisma/enums';
import type { DemoRepoSettings } from './settings';

// The demo's fixture repositories are data: a main tree and, per demo change,
// the files that change makes. demo/build-repos.ts turns them into real
// git repositories with deterministic commits.

/** file path → content; null deletes the file */
export type FileTree = Record<string, string | null>;

export interface DemoPerson {
  name: string;
  email: string;
}

/** What the demo's failing change is meant to show on the dashboard. */
export type DemoChangeKind = 'off_by_one' | 'wrong_operator' | 'stale_expectation' | 'flaky' | 'bot' | 'oversized';

export interface DemoChangeSpec {
  kind: DemoChangeKind;
  /** the CI system's id, e.g. the pull request number */
  externalId: string;
  branch: string;
  title: string;
  description: string;
  author: DemoPerson;
  authorKind: AuthorKind;
  /** ISO date of the commit; fixed so commit ids are reproducible */
  date: string;
  files: FileTree;
  /**
   * Ids (lib/junit/parse.ts junitTestId) of the tests that fail on this branch.
   * For a flaky change: the tests that fail on some runs only.
   */
  failingTests: string[];
  flaky?: boolean;
}

export interface DemoRepoSpec {
  name: string;
  language: 'javascript' | 'typescript' | 'python';
  description: string;
  /** the initial commit on main: every test passes */
  main: { author: DemoPerson; date: string; message: string; files: FileTree };
  /** where the test command writes its JUnit report, relative to the repository */
  junitPath: string;
  /** .flowfix.json's settings, also stored as the Repository's settings */
  settings: DemoRepoSettings;
  /** the command that runs the whole suite (CI and the demo reporter use it) */
  testCommand: string[];
  changes: DemoChangeSpec[];
}
