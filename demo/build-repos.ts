import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { demoGit } from './git';
import { DEMO_REPOS, type DemoChangeSpec, type DemoPerson, type DemoRepoSpec, type FileTree } from './repos';

// Turns the fixture specs into real git repositories under <dataDir>/repos/.
// Commits carry fixed authors and dates, so the same spec always yields the
// same commit ids. A repository is rebuilt only when it is missing or was built
// from a different spec; branches moved later (a fix applied by flowfix) are
// kept, and the original commit ids stay recorded in the manifest.

const MANIFEST = 'flowfix-demo.json';

const ManifestSchema = z.object({
  fingerprint: z.string(),
  mainSha: z.string(),
  changes: z.array(z.object({ branch: z.string(), baseSha: z.string(), headSha: z.string() })),
});

export interface BuiltChange {
  spec: DemoChangeSpec;
  /** main's commit: the change's base revision */
  baseSha: string;
  /** the change's own commit as built (its branch may have moved since) */
  headSha: string;
}

export interface BuiltRepo {
  spec: DemoRepoSpec;
  /** absolute path of the working repository (Repository.gitUrl) */
  dir: string;
  mainSha: string;
  changes: BuiltChange[];
  /** false when an existing repository was reused */
  rebuilt: boolean;
}

export function demoReposDir(dataDir: string): string {
  return path.resolve(dataDir, 'repos');
}

function fingerprintOf(spec: DemoRepoSpec): string {
  return createHash('sha256').update(JSON.stringify(spec)).digest('hex');
}

async function writeTree(dir: string, files: FileTree): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const target = path.join(dir, rel);
    if (content === null) {
      await fs.rm(target, { force: true });
      continue;
    }
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, content);
  }
}

async function commitAll({ dir, author, date, message }: { dir: string; author: DemoPerson; date: string; message: string }): Promise<string> {
  await demoGit(dir, ['add', '-A']);
  await demoGit(dir, ['commit', '-q', '-m', message], {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
    GIT_COMMITTER_DATE: date,
  });
  return demoGit(dir, ['rev-parse', 'HEAD']);
}

async function readManifest(dir: string): Promise<z.infer<typeof ManifestSchema> | undefined> {
  try {
    const raw = await fs.readFile(path.join(dir, '.git', MANIFEST), 'utf8');
    return ManifestSchema.parse(JSON.parse(raw));
  } catch {
    return undefined;
  }
}

async function branchesExist(dir: string, branches: string[]): Promise<boolean> {
  try {
    for (const branch of branches) await demoGit(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
    return true;
  } catch {
    return false;
  }
}

async function buildFresh(spec: DemoRepoSpec, dir: string): Promise<Omit<BuiltRepo, 'rebuilt'>> {
  // Build beside the target and rename at the end: an interrupted build never
  // leaves a half-made repository that a later run would mistake for done.
  const staging = `${dir}.building-${process.pid}`;
  await fs.rm(staging, { recursive: true, force: true });
  await fs.mkdir(staging, { recursive: true });
  await demoGit(staging, ['init', '-q', '-b', 'main']);
  await writeTree(staging, spec.main.files);
  const mainSha = await commitAll({ dir: staging, ...spec.main });

  const changes: BuiltChange[] = [];
  for (const change of spec.changes) {
    await demoGit(staging, ['checkout', '-q', '-b', change.branch, 'main']);
    await writeTree(staging, change.files);
    const headSha = await commitAll({
      dir: staging,
      author: change.author,
      date: change.date,
      message: `${change.title}\n\n${change.description}\n`,
    });
    changes.push({ spec: change, baseSha: mainSha, headSha });
  }
  await demoGit(staging, ['checkout', '-q', 'main']);

  const manifest = {
    fingerprint: fingerprintOf(spec),
    mainSha,
    changes: changes.map((c) => ({ branch: c.spec.branch, baseSha: c.baseSha, headSha: c.headSha })),
  };
  await fs.writeFile(path.join(staging, '.git', MANIFEST), JSON.stringify(manifest, null, 2));
  await fs.rm(dir, { recursive: true, force: true });
  await fs.rename(staging, dir);
  return { spec, dir, mainSha, changes };
}

/** Builds (or reuses) one demo repository. */
export async function buildDemoRepo({ spec, dataDir }: { spec: DemoRepoSpec; dataDir: string }): Promise<BuiltRepo> {
  const dir = path.join(demoReposDir(dataDir), spec.name);
  const manifest = await readManifest(dir);
  if (
    manifest &&
    manifest.fingerprint === fingerprintOf(spec) &&
    manifest.changes.length === spec.changes.length &&
    (await branchesExist(
      dir,
      spec.changes.map((c) => c.branch),
    ))
  ) {
    const changes = spec.changes.map((change, i) => {
      const recorded = manifest.changes[i];
      return { spec: change, baseSha: recorded.baseSha, headSha: recorded.headSha };
    });
    return { spec, dir, mainSha: manifest.mainSha, changes, rebuilt: false };
  }
  return { ...(await buildFresh(spec, dir)), rebuilt: true };
}

/** Builds every demo repository under <dataDir>/repos/. */
export async function buildDemoRepos({ dataDir, specs = DEMO_REPOS }: { dataDir: string; specs?: readonly DemoRepoSpec[] }): Promise<BuiltRepo[]> {
  await fs.mkdir(demoReposDir(dataDir), { recursive: true });
  const built: BuiltRepo[] = [];
  for (const spec of specs) built.push(await buildDemoRepo({ spec, dataDir }));
  return built;
}
