import { editedSpans as spansOfDiff, parseUnifiedDiff } from '../edits/diff';
import { createGates, meterCommand } from '../gates/gates';
import { workspaceGit } from '../workspace/git';
import { commandOutcome, runWorkspaceCommand } from '../testing/test-runner';
import type { ChangeContext } from '../types';
import { Workspace } from '../workspace/workspace';
import { detectRunSetup } from '../testing/detect';
import { whyNoRunnerLine } from '../testing/runners';
import { shownCommand } from '../testing/uvu-report';
import { RunExit, type RunState, type SetupState } from './state';

// Setup: a run folder checked out at the head, the change (base..head) it is
// about, the install (an `npm ci` that fails is tried once more as `npm
// install`), the gates, and whether the head builds. A head that
// does not build is not a setup failure: the accepted edit must fix that too.

/**
 * `npm ci [flags]` as the install that takes a lock file out of sync with
 * package.json, or older than npm ci reads: `npm install --no-save [flags]`
 * (--no-save: package.json and the lock file stay as they are, so neither is in
 * a fix's diff). The same sandbox, cache, registries and script policy apply
 * (runWorkspaceCommand). Undefined for any other command, a compound one included.
 */
export function npmInstallFallback(command: string): string | undefined {
  const m = /^npm\s+(?:ci|clean-install|ic|install-clean)((?:\s+[\w@:/.=-]+)*)$/.exec(command.trim());
  return m ? `npm install --no-save${m[1]}` : undefined;
}

/**
 * An npm install that failed on peer dependencies (ERESOLVE: npm 7 and later
 * refuse a tree that npm 6 accepted): once more with `--legacy-peer-deps`.
 * Undefined for any other failure or command.
 */
export function peerDepsFallback(command: string, output: string): string | undefined {
  if (!/^npm\s+(install|i|ci)\b/.test(command.trim()) || /--legacy-peer-deps|--force\b/.test(command)) return undefined;
  if (!/ERESOLVE|conflicting peer dependency|unable to resolve dependency tree/i.test(output)) return undefined;
  const base = npmInstallFallback(command) ?? command.trim();
  return `${base} --legacy-peer-deps`;
}

export async function setup(state: RunState): Promise<SetupState> {
  const { input, signal, sink, meter } = state;
  let settings = state.settings;
  await state.enterPhase('setup');
  try {
    state.workspace = await Workspace.create({
      source: state.source,
      headRev: input.headRev,
      parentDir: input.workDir,
      excludes: [settings.junitReport],
      ...(input.hostAccess ? { access: input.hostAccess } : {}),
    });
  } catch (err) {
    throw new RunExit('setup_failed', `could not check out ${input.headRev}: ${(err as Error).message}`);
  }
  const ws = state.workspace;
  const baseCommit = await workspaceGit(ws.root, ['rev-parse', '--verify', '--end-of-options', `${input.baseRev}^{commit}`]).then(
    (r) => r.stdout.trim(),
    (err: Error) => {
      throw new RunExit('setup_failed', `unknown base revision ${input.baseRev}: ${err.message}`);
    },
  );
  state.changeDiff = (await workspaceGit(ws.root, ['diff', '--no-color', '--no-ext-diff', baseCommit, ws.headRev])).stdout;
  const change: ChangeContext = {
    title: input.change?.title ?? '',
    description: input.change?.description ?? '',
    author: input.change?.author ?? '',
    diff: state.changeDiff,
    editedSpans: spansOfDiff(state.changeDiff),
    language: settings.language,
  };
  await state.log(
    `workspace${input.keepWorkspace ? ` ${ws.root}` : ''} at ${ws.headRev.slice(0, 12)} (base ${baseCommit.slice(0, 12)}); the change edits ${change.editedSpans.length} span(s); the run's time limit ends at ${new Date(state.deadline).toISOString()}`,
    { headRev: ws.headRev, baseRev: baseCommit, deadline: state.deadline },
  );

  // what the repository says where nobody said it: the runner, its report, the install, the build
  const changedFiles = parseUnifiedDiff(state.changeDiff).flatMap((f) => [f.oldPath, f.newPath].filter((p): p is string => !!p));
  const detection = await detectRunSetup({
    root: ws.root,
    baseRev: baseCommit,
    settings,
    changedFiles: [...new Set(changedFiles)],
    hasNodeModules: await ws.exists('node_modules'),
  });
  if (detection.kind === 'none') {
    throw new RunExit('setup_failed', whyNoRunnerLine(detection.tried));
  }
  if (detection.kind === 'detected') {
    settings = state.settings = detection.settings;
    const { runner } = detection;
    await ws.exclude([settings.junitReport]);
    await state.log(
      `detected ${runner.runner} (${runner.why}); test command: ${shownCommand(settings.test ?? '')}${settings.install ? `; install: ${settings.install}` : ''}${settings.build ? `; build: ${settings.build}` : ''}`,
      {
        runner: runner.runner,
        test: shownCommand(settings.test ?? ''),
        report: settings.junitReport,
        ...(settings.install ? { install: settings.install } : {}),
        ...(settings.build ? { build: settings.build } : {}),
      },
    );
  } else if (detection.kind === 'install') {
    settings = state.settings = detection.settings;
    await state.log(
      `the repository declares dependencies and none are installed: install with \`${settings.install}\`${detection.note ? ` (${detection.note})` : ''}`,
      { install: settings.install },
    );
  }

  if (settings.install) {
    const install = (command: string) =>
      runWorkspaceCommand({
        workspace: ws,
        settings,
        signal,
        deadline: state.deadline,
        command,
        timeoutSeconds: settings.timeLimits.installSeconds,
        network: settings.installNetwork,
        install: true,
      });
    let installed = await install(settings.install);
    meterCommand(meter, installed);
    await state.log('install', { exitCode: installed.exitCode, durationMs: installed.durationMs });
    state.throwIfCancelled();
    const fallback = npmInstallFallback(settings.install);
    if (fallback && installed.exitCode !== 0 && !installed.timedOut && !installed.limit) {
      const why =
        installed.output
          .trimEnd()
          .split('\n')
          .find((l) => /npm (error|ERR!)/.test(l) && !/^npm (error|ERR!)\s*$/.test(l)) ?? '';
      await state.log(
        `npm ci failed (exit code ${installed.exitCode}); falling back to \`${fallback}\`, which accepts a lock file out of sync with package.json (or one older than npm ci reads)${why ? `: ${why.trim()}` : ''}`,
        {
          command: fallback,
        },
      );
      installed = await install(fallback);
      meterCommand(meter, installed);
      await state.log('install', { exitCode: installed.exitCode, durationMs: installed.durationMs, command: fallback });
      state.throwIfCancelled();
    }
    const peers = installed.exitCode !== 0 && !installed.timedOut && !installed.limit ? peerDepsFallback(installed.command, installed.output) : undefined;
    if (peers) {
      await state.log(`the install failed on peer dependencies (ERESOLVE); retrying as \`${peers}\`, which installs them as npm 6 did`, { command: peers });
      installed = await install(peers);
      meterCommand(meter, installed);
      await state.log('install', { exitCode: installed.exitCode, durationMs: installed.durationMs, command: peers });
      state.throwIfCancelled();
    }
    if (installed.timedOut)
      throw new RunExit('time_limit', `install timed out (installSeconds ${settings.timeLimits.installSeconds}): ${commandOutcome(installed)}`);
    if (installed.limit) throw new RunExit('setup_failed', `install stopped by the sandbox (${installed.limit}): ${commandOutcome(installed)}`);
    if (installed.exitCode !== 0) throw new RunExit('setup_failed', `install failed: ${commandOutcome(installed)}`);
  }

  // the targets CI named; RED replaces them with the ones that reproduce
  const targets = (input.targetTests ?? []).map((id) => ({ id }));
  const gates = createGates({ workspace: ws, settings, targets, sink, signal, meter, deadline: state.deadline, changedFiles: [...new Set(changedFiles)] });
  if (settings.build) {
    const built = await gates.build();
    await state.log(built.exitCode === 0 ? 'the head revision builds' : 'the head revision does not build; an accepted edit must fix that too', {
      exitCode: built.exitCode,
      durationMs: built.durationMs,
    });
    state.throwIfCancelled();
  }
  return Object.assign(state, { workspace: ws, baseCommit, change, gates });
}
