// The realistic repositories: small projects written as a user's repository
// would be, not as flowfix's own modules are (those are framed by frame.ts).
// The demo's repositories (demo/repos: the main tree, before any demo
// change), the repair corpus's projects (bench/agent/corpus: the base
// revision) and the test fixtures' libraries (test/fixtures/agent-libs) that
// have a suite. Each is used with its own settings: the demo's .flowfix.json,
// the corpus's settings, and for a fixture what the product's runner
// detection (agent/testing/runners.ts) makes of its package.json.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { workspaceGit } from '../../agent/workspace/git';
import { detectRunner } from '../../agent/testing/runners';
import { isTestPath } from '../../agent/testing/test-files';
import { RepositorySettingsSchema, type RepositorySettings } from '../../common/settings';
import { PROJECTS, settingsFor as corpusSettings } from '../agent/corpus/index';
import { DEMO_REPOS } from '../../demo/repos/index';
import { ROOT, type MutantRepo } from './frame';

export interface RealisticRepo {
  /** where it comes from and its name: "demo/checkout-ts", "corpus/ts-cart", "fixtures/slug-main" */
  name: string;
  language: 'typescript' | 'javascript' | 'python';
  /** path → content of the original; every test passes on it */
  files: Record<string, string>;
  settings: RepositorySettings;
  /** where the settings came from */
  settingsFrom: string;
}

/** Test fixtures that are small libraries with a suite of their own (the others are layouts without code worth mutating, or attacks). */
const FIXTURE_LIBS = ['test/fixtures/agent-libs/slug-main'];

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(ROOT, dir), { recursive: true })) {
    const rel = String(e).split(path.sep).join('/');
    const abs = path.join(ROOT, dir, rel);
    if (statSync(abs).isFile()) out[rel] = readFileSync(abs, 'utf8');
  }
  return out;
}

export function realisticRepos(): RealisticRepo[] {
  const out: RealisticRepo[] = [];
  for (const demo of DEMO_REPOS) {
    const files: Record<string, string> = {};
    for (const [rel, content] of Object.entries(demo.main.files)) if (content !== null) files[rel] = content;
    out.push({
      name: `demo/${demo.name}`,
      language: demo.language,
      files,
      settings: RepositorySettingsSchema.parse(demo.settings),
      settingsFrom: '.flowfix.json',
    });
  }
  for (const project of PROJECTS) {
    out.push({
      name: `corpus/${project.name}`,
      language: project.language,
      files: { ...project.files },
      settings: corpusSettings(project),
      settingsFrom: 'bench/agent/corpus settingsFor',
    });
  }
  for (const dir of FIXTURE_LIBS) {
    if (!existsSync(path.join(ROOT, dir))) continue;
    const files = readTree(dir);
    const runner = detectRunner((rel) => files[rel] ?? null);
    if (!runner) continue;
    out.push({
      name: `fixtures/${path.basename(dir)}`,
      language: runner.language,
      files,
      settings: RepositorySettingsSchema.parse({ language: runner.language, test: runner.test, junitReport: runner.junitReport }),
      settingsFrom: `runner detection: ${runner.why}`,
    });
  }
  return out;
}

/**
 * The files worth mutating: the project's own source, not its tests, a
 * vendored package (third-party code its author would not fix) or examples.
 */
export function sourcesOf(repo: RealisticRepo, languages: ReadonlyArray<'ts' | 'py'> = ['ts']): string[] {
  const ext = languages.flatMap((l) => (l === 'ts' ? ['.ts', '.js', '.mjs', '.cjs'] : ['.py']));
  return Object.keys(repo.files)
    .filter(
      (f) =>
        ext.some((e) => f.endsWith(e)) &&
        !f.endsWith('.d.ts') &&
        !isTestPath(f) &&
        !/^(vendor|examples?|node_modules|tests?)\//.test(f) &&
        !/(^|\/)(conftest|setup)\.py$/.test(f),
    )
    .filter((f) => !/^\s*$/.test(repo.files[f]))
    .sort();
}

/** What a repository's test command writes besides its report, kept out of its commits. */
const GITIGNORE = 'node_modules/\n__pycache__/\n.pytest_cache/\nflowfix-report.xml\njunit.xml\nreports/*.xml\n';

/** Writes the repository's files (the originals, with `overrides` on top) into `dir`. */
export async function writeRepo(dir: string, repo: RealisticRepo, overrides: Record<string, string> = {}): Promise<void> {
  const files = { '.gitignore': GITIGNORE, ...repo.files, ...overrides };
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

/** A real git repository: base commit = the original, head commit = the mutant of `file`. */
export async function buildRealisticMutantRepo(input: {
  parentDir: string;
  repo: RealisticRepo;
  file: string;
  mutated: string;
  title: string;
}): Promise<MutantRepo> {
  const dir = await mkdtemp(path.join(input.parentDir, 'flowfix-mutant-'));
  await workspaceGit(dir, ['init', '--quiet', '-b', 'main']);
  await writeRepo(dir, input.repo);
  await workspaceGit(dir, ['add', '-A']);
  await workspaceGit(dir, ['commit', '--quiet', '-m', 'base']);
  const base = (await workspaceGit(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  await writeFile(path.join(dir, input.file), input.mutated);
  await workspaceGit(dir, ['add', '-A']);
  await workspaceGit(dir, ['commit', '--quiet', '-m', input.title]);
  const head = (await workspaceGit(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  return { dir, base, head };
}
