import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RepositorySettings } from '../../common/settings';
import { flowfixRoot } from '../../lib/sandbox';
import { workspaceGit as git } from '../workspace/git';
import { detectInstall, detectSetup, type DetectOptions, type DetectedRunner, type ReadFile } from './runners';

// The setup a run takes from the repository itself when nobody wrote one: the
// runner, its report, the install and the build, read at the base revision
// (the head must not choose its own commands) with agent/testing/runners.ts.

const MAX_PATHS = 200_000;
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** A repository's files at a revision: its paths, and a file's text on demand (null: absent or unreadable). */
export async function filesAtRevision(root: string, rev: string): Promise<{ read: ReadFile; paths: string[] }> {
  const listed = await git(root, ['ls-tree', '-r', '-z', '--name-only', '--end-of-options', rev], { maxOutputBytes: 64 * 1024 * 1024 }).catch(() => ({
    stdout: '',
  }));
  const paths = listed.stdout.split('\0').filter(Boolean).slice(0, MAX_PATHS);
  const known = new Set(paths);
  const texts = new Map<string, string | null>();
  const pending = new Map<string, Promise<void>>();
  // git show is asynchronous and detection is not: every file detection may ask for is read first
  const wanted = paths.filter(
    (p) =>
      /(^|\/)(package\.json|tsconfig\.json|pyproject\.toml|pytest\.ini|setup\.cfg|setup\.py|conftest\.py|tox\.ini|requirements(-dev)?\.txt|pnpm-workspace\.yaml|pnpm-lock\.yaml|\.yarnrc\.yml|yarn\.lock)$/.test(
        p,
      ) && !p.includes('node_modules/'),
  );
  for (const rel of wanted.slice(0, 500)) {
    pending.set(
      rel,
      git(root, ['show', `${rev}:${rel}`], { maxOutputBytes: MAX_FILE_BYTES }).then(
        (r) => void texts.set(rel, r.stdout),
        // too large to read (a big lock file): it still counts by its presence
        () => undefined,
      ),
    );
  }
  await Promise.all(pending.values());
  // any other file counts by its presence (package-lock.json's text can be larger than worth reading)
  return { read: (rel) => (texts.has(rel) ? (texts.get(rel) ?? null) : known.has(rel) ? '' : null), paths };
}

/** pnpm and yarn as flowfix ships them (its own dependencies), for repositories that lock with them. */
export function installTools(): DetectOptions['tools'] {
  const modules = path.join(flowfixRoot(), 'node_modules');
  const tool = (rel: string) => (existsSync(/*turbopackIgnore: true*/ path.join(modules, rel)) ? `node ${path.join(modules, rel)}` : undefined);
  const pnpm = tool('pnpm/bin/pnpm.cjs');
  const yarn = tool('yarn/bin/yarn.js');
  const yarnBerry = tool('@yarnpkg/cli-dist/bin/yarn.js');
  return { ...(pnpm ? { pnpm } : {}), ...(yarn ? { yarn } : {}), ...(yarnBerry ? { yarnBerry } : {}) };
}

export type SetupDetection =
  | { kind: 'detected'; settings: RepositorySettings; runner: DetectedRunner }
  | { kind: 'install'; settings: RepositorySettings; install: string; note?: string }
  | { kind: 'none'; tried: string[] }
  | { kind: 'given' };

/**
 * The settings with what the repository says filled in: with no test command
 * set anywhere, the detected runner's command, report, language, install and
 * build (an admin's or `.flowfix.json`'s install and build win); with a test
 * command but no install, the install its lock file calls for when
 * dependencies are declared and not there (`hasNodeModules`), so tests never
 * run against a missing install.
 */
export async function detectRunSetup(input: {
  root: string;
  baseRev: string;
  settings: RepositorySettings;
  changedFiles: readonly string[];
  hasNodeModules: boolean;
}): Promise<SetupDetection> {
  const { settings } = input;
  if (settings.test && (settings.install || input.hasNodeModules)) return { kind: 'given' };
  const { read, paths } = await filesAtRevision(input.root, input.baseRev);
  const options: DetectOptions = { paths, changedFiles: input.changedFiles, tools: installTools() };
  if (settings.test) {
    const install = detectInstall(read, options);
    return install ? { kind: 'install', settings: { ...settings, install: install.install }, ...install } : { kind: 'given' };
  }
  const found = detectSetup(read, options);
  if (!('runner' in found)) return { kind: 'none', tried: found.tried };
  const install = settings.install ?? (input.hasNodeModules ? undefined : found.install);
  const build = settings.build ?? found.build;
  return {
    kind: 'detected',
    runner: found,
    settings: {
      ...settings,
      test: found.test,
      junitReport: found.junitReport,
      language: found.language,
      ...(install ? { install } : {}),
      ...(build ? { build } : {}),
      ...(found.shuffleArgs && !settings.proof.shuffleArgs ? { proof: { ...settings.proof, shuffleArgs: found.shuffleArgs } } : {}),
    },
  };
}
