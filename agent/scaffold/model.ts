// The scaffold's internal index: what one source file defines, imports and calls.
// Kept apart from agent/types.ts because only the scaffold and the offline
// policy read it; the pipeline only ever sees Suspect[].
import type { CodeSpan } from '../types';

export type SourceLanguage = 'ts' | 'py';

export interface IndexedSpan extends CodeSpan {
  /** unqualified name ("total" for "Cart.total"); what calls and frames mention */
  name: string;
  /** a test case: `test('adds', ...)` / `it(...)` in JS, `def test_x` in a test file */
  isTest: boolean;
}

export interface ImportRef {
  /** JS module specifier ("./cart.js") or Python module ("pkg.cart") */
  specifier: string;
  /** Python relative-import level (`from ..x import y` is 2); 0 for JS */
  level: number;
  /** imported names; for Python `from pkg import mod`, `mod` may be a module */
  names: string[];
  line: number;
}

export interface CallRef {
  /** qualified symbol of the enclosing span, or null at module level */
  from: string | null;
  name: string;
  line: number;
}

export interface FileIndex {
  file: string;
  language: SourceLanguage;
  isTestFile: boolean;
  spans: IndexedSpan[];
  imports: ImportRef[];
  calls: CallRef[];
}

/** Test files and helpers by convention: one rule for the whole agent (agent/testing/test-files.ts). */
export { isTestPath } from '../testing/test-files';
