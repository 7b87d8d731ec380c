import { escapeHtml } from '../../lib/html/sanitize';
import { diffFilePath, parseUnifiedDiff } from '../edits/diff';
import { isTestPath } from '../testing/test-files';
import { workspaceGit } from '../workspace/git';
import type { Workspace } from '../workspace/workspace';
import { findDeadParameters, optionsReadBy, touchedFunctions, type DeadParameter } from './dead-parameters';

// The dead-parameter check and the untested options, over a patched
// workspace: the head revision's file is the "before", the workspace's the
// "after". Only source files the fix modified (not tests, not new or deleted
// files) are read; JavaScript and TypeScript only (dead-parameters.ts).

const MAX_TEST_FILES = 400;
const MAX_TEST_BYTES = 200_000;

interface SourcePair {
  file: string;
  before: string;
  after: string;
}

async function modifiedSources(ws: Workspace, diff: string, isTest: (file: string) => boolean): Promise<SourcePair[]> {
  const pairs: SourcePair[] = [];
  for (const f of parseUnifiedDiff(diff)) {
    const file = diffFilePath(f);
    if (f.status !== 'modified' || f.binary || isTestPath(file) || isTest(file) || !/\.[cm]?[jt]sx?$/.test(file)) continue;
    const head = await workspaceGit(ws.root, ['show', `${ws.headRev}:${file}`], { okCodes: [128] });
    const after = await ws.readFile(file).catch(() => null);
    if (head.exitCode === 0 && after !== null) pairs.push({ file, before: head.stdout, after });
  }
  return pairs;
}

/** What the fix in the workspace stops reading (dead parameters and options), every modified source file. */
export async function deadParametersOfFix(ws: Workspace, diff: string, isTest: (file: string) => boolean): Promise<DeadParameter[]> {
  const pairs = await modifiedSources(ws, diff, isTest);
  return pairs.flatMap((p) => findDeadParameters(p.file, p.before, p.after));
}

/**
 * The options the functions the fix touched read and that no test file names
 * at all: the tests cannot pin down how the fix treats them.
 */
export async function untestedOptionsOfFix(ws: Workspace, diff: string, isTest: (file: string) => boolean): Promise<string[]> {
  const pairs = await modifiedSources(ws, diff, isTest);
  const options = [...new Set(pairs.flatMap((p) => optionsReadBy(p.file, p.after, touchedFunctions(p.file, p.before, p.after))))];
  if (options.length === 0) return [];
  const listed = await workspaceGit(ws.root, ['ls-files', '-z']);
  const tests = listed.stdout
    .split('\0')
    .filter((f) => f && (isTestPath(f) || isTest(f)))
    .slice(0, MAX_TEST_FILES);
  if (tests.length === 0) return [];
  const texts: string[] = [];
  for (const file of tests) {
    const text = await ws.readFile(file).catch(() => '');
    texts.push(text.slice(0, MAX_TEST_BYTES));
  }
  return options.filter((o) => !texts.some((t) => new RegExp(`(?<![\\w$])${o.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`).test(t)));
}

/** One sentence for the fix's summary, or '' when every option is named by some test. */
export function untestedOptionsSentence(options: string[]): string {
  if (options.length === 0) return '';
  const names = options.slice(0, 4).map((o) => `<code>${escapeHtml(o)}</code>`);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  return `<p>The tests never pass ${list}: ${options.length === 1 ? 'its' : 'their'} behaviour is not pinned down by them, so check the fix by hand there.</p>`;
}
