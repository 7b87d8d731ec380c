// The corpus: every project, every bug, and how to turn a bug into a real git
// repository (base commit = correct, head commit = the change with the bug).
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workspaceGit as git } from '../../../agent/workspace/git';
import type { RepositorySettings } from '../../../common/settings';
import { RepositorySettingsSchema } from '../../../common/settings';
import { pyGrades, pyGradesBugs } from './py-grades';
import { pyInventory, pyInventoryBugs } from './py-inventory';
import { pyText, pyTextBugs } from './py-text';
import { tsCart, tsCartBugs } from './ts-cart';
import { tsSched, tsSchedBugs } from './ts-sched';
import { tsText, tsTextBugs } from './ts-text';
import { optionBugs, tsEnv, tsGlob } from './ts-options';
import { widerBugs } from './wider';
import type { CorpusBug, CorpusProject, FileChange } from './types';

export type { BugKind, CorpusBug, CorpusProject } from './types';

export const PROJECTS: CorpusProject[] = [tsCart, tsText, tsSched, pyInventory, pyGrades, pyText, tsGlob, tsEnv];
export const BUGS: CorpusBug[] = [
  ...tsCartBugs,
  ...tsTextBugs,
  ...tsSchedBugs,
  ...pyInventoryBugs,
  ...pyGradesBugs,
  ...pyTextBugs,
  ...widerBugs,
  ...optionBugs,
];

export function projectOf(bug: CorpusBug): CorpusProject {
  const project = PROJECTS.find((p) => p.name === bug.project);
  if (!project) throw new Error(`bug ${bug.id} names an unknown project ${bug.project}`);
  return project;
}

// The projects run TypeScript through tsx (Node 20 cannot strip types); the
// loader is this repository's own copy, so a corpus repo needs no install.
const TSX_LOADER = new URL(import.meta.resolve('tsx')).href;

const NODE_TEST = `node --import ${TSX_LOADER} --test --test-reporter=junit --test-reporter-destination=junit.xml`;

/** How flowfix builds and tests a corpus project (what an admin would enter). */
export function settingsFor(project: CorpusProject): RepositorySettings {
  if (project.language === 'typescript') {
    return RepositorySettingsSchema.parse({
      language: 'typescript',
      // The whole suite is a second or two; results are filtered to the
      // targets from the report. (A `{namePattern}` ending in `$` is mangled
      // by renderTestCommand's string replaceAll: `$'` is a replacement pattern.)
      test: `${NODE_TEST} test/*.test.ts`,
      regression: `${NODE_TEST} test/*.test.ts`,
      junitReport: 'junit.xml',
      timeLimits: { testSeconds: 60, regressionSeconds: 120, buildSeconds: 60 },
    });
  }
  const pytest = 'python3 -m pytest -q -p no:cacheprovider --junitxml=junit.xml tests';
  return RepositorySettingsSchema.parse({
    language: 'python',
    test: pytest,
    regression: pytest,
    junitReport: 'junit.xml',
    env: { PYTHONDONTWRITEBYTECODE: '1' },
    timeLimits: { testSeconds: 60, regressionSeconds: 120, buildSeconds: 60 },
  });
}

function applyFileChange(current: string | undefined, change: FileChange, bugId: string): string {
  if (change.content !== undefined) return change.content;
  if (current === undefined) throw new Error(`${bugId}: ${change.file} does not exist; give its content`);
  let text = current;
  for (const [find, replace] of change.replace ?? []) {
    const count = text.split(find).length - 1;
    if (count !== 1) throw new Error(`${bugId}: ${change.file}: ${JSON.stringify(find.slice(0, 60))} occurs ${count} times`);
    text = text.replace(find, () => replace);
  }
  if (change.append) text += change.append;
  return text;
}

/** The head revision's files: the project with the bug's change applied. */
export function headFiles(bug: CorpusBug): Record<string, string> {
  const files = { ...projectOf(bug).files };
  for (const change of bug.change) files[change.file] = applyFileChange(files[change.file], change, bug.id);
  return files;
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

export interface BugRepo {
  dir: string;
  base: string;
  head: string;
}

const GITIGNORE = 'junit.xml\n__pycache__/\n.pytest_cache/\nnode_modules/\n';

/** A real git repository for one bug, in a fresh folder under `parentDir`. */
export async function buildBugRepo({ bug, parentDir }: { bug: CorpusBug; parentDir?: string }): Promise<BugRepo> {
  const dir = await mkdtemp(path.join(parentDir ?? tmpdir(), `flowfix-corpus-${bug.id.replace(/\W+/g, '-')}-`));
  await git(dir, ['init', '--quiet', '-b', 'main']);
  await writeTree(dir, { ...projectOf(bug).files, '.gitignore': GITIGNORE });
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '--quiet', '-m', `${bug.project}: base`]);
  const base = (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  const head = headFiles(bug);
  for (const change of bug.change) await writeTree(dir, { [change.file]: head[change.file] });
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '--quiet', '-m', `${bug.title}\n\n${bug.description}`]);
  const headRev = (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  return { dir, base, head: headRev };
}
