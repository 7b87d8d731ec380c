import { readFile, readdir, realpath, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { baseTestId, isInstanceOf, leafName, testNameOf } from '../../lib/junit/test-id';
import path from 'node:path';
import { disambiguateTestIds, parseJunitXml } from '../../lib/junit/parse';
import { testCommandOf, type RepositorySettings } from '../../common/settings';
import { cacheEnv, noInstallScriptsEnv, type SandboxLimits } from '../../lib/sandbox';
import { buildSandboxEnv, runCommand, shellQuote } from '../workspace/exec';
import { globToRegExp } from '../workspace/glob';
import { parseTap, pytestAddoptsRetry, PYTHON_VENV, tapCutShort } from './runners';
import { parseJestJson } from './jest-report';
import type { CommandResult, TestResult, TestRun } from '../types';
import type { Workspace } from '../workspace/workspace';
import { escapeRegExp } from '../../common/text';

// Runs the repository's own test command and reads the outcome from the JUnit
// report it writes, never from the exit code alone: a command may run more
// tests than the targets (we filter), or die before writing a report (then
// the run says why, and no target counts as passed).

/** Everything a command needs from the workspace and the settings. */
export interface CommandContext {
  workspace: Workspace;
  settings: RepositorySettings;
  signal?: AbortSignal;
  /**
   * the run's deadline (epoch ms): a command gets min(its own time limit, the
   * time left) and none starts once it has passed
   */
  deadline?: number;
}

/** The time limit a command gets: its own, cut to what is left of the run's deadline (0: none left). */
export function commandTimeoutMs(ownSeconds: number, deadline: number | undefined, now = Date.now()): number {
  const own = ownSeconds * 1000;
  return deadline === undefined ? own : Math.max(0, Math.min(own, deadline - now));
}

/** The sandbox limits a repository's settings ask for (unset ones: the defaults). */
export function limitsOf(settings: RepositorySettings): Partial<SandboxLimits> {
  const l = settings.limits;
  const MiB = 1024 * 1024;
  return {
    ...(l.memoryMb ? { memoryBytes: l.memoryMb * MiB } : {}),
    ...(l.processes ? { processes: l.processes } : {}),
    ...(l.cpuSeconds ? { cpuSeconds: l.cpuSeconds } : {}),
    ...(l.fileSizeMb ? { fileSizeBytes: l.fileSizeMb * MiB } : {}),
    ...(l.diskMb ? { diskBytes: l.diskMb * MiB } : {}),
  };
}

/**
 * Runs one of the repository's commands in the workspace, sandboxed. The
 * install (`install: true`) may write the repository's dependency cache and
 * reach only its registries; other commands read the cache and, with
 * `network`, reach public hosts through the egress proxy.
 */
export async function runWorkspaceCommand(
  input: CommandContext & {
    command: string;
    timeoutSeconds: number;
    network: boolean;
    install?: boolean;
    /** variables for this command only, over the settings' `env` (coverage's bootstrap) */
    env?: Record<string, string>;
  },
): Promise<CommandResult> {
  const { workspace, settings } = input;
  const timeoutMs = commandTimeoutMs(input.timeoutSeconds, input.deadline);
  if (timeoutMs === 0) {
    const output = `[flowfix] not started: the run reached its time limit`;
    workspace.setLastLog(output);
    return { command: input.command, exitCode: null, signal: null, timedOut: true, durationMs: 0, output, truncatedBytes: 0, atDeadline: true };
  }
  workspace.markChanged();
  const sandbox = await workspace.commandSandbox({ install: input.install ?? false });
  const extra = {
    ...settings.env,
    ...(sandbox.cacheDir ? cacheEnv(sandbox.cacheDir) : {}),
    ...(settings.allowInstallScripts ? {} : noInstallScriptsEnv()),
    ...input.env,
  };
  const env = buildSandboxEnv({ home: workspace.home, tmpDir: workspace.tmpDir, extra });
  // the virtualenv setup made for a Python project: its python3 and pytest come first, as `activate` would put them
  const venv = path.join(workspace.root, PYTHON_VENV);
  if (existsSync(path.join(venv, 'pyvenv.cfg'))) Object.assign(env, { VIRTUAL_ENV: venv, PATH: `${path.join(venv, 'bin')}${path.delimiter}${env.PATH}` });
  const result = await runCommand({
    command: input.command,
    cwd: workspace.root,
    env,
    timeoutMs,
    signal: input.signal,
    network: input.network,
    sandbox: {
      ...sandbox,
      limits: limitsOf(settings),
      ...(input.install && input.network ? { egressHosts: settings.registries } : {}),
    },
    maxOutputBytes: settings.maxOutputBytes,
  });
  if (result.timedOut && timeoutMs < input.timeoutSeconds * 1000) {
    result.atDeadline = true;
    result.output += "\n[flowfix] stopped at the run's time limit";
  }
  workspace.setLastLog(result.output);
  return result;
}

/** Fills the test command template with the target tests (see RepositorySettingsSchema). */
export function renderTestCommand(template: string, targets: Array<{ id: string; name?: string; file?: string }>): string {
  const names = targets.map((t) => leafName(t.name ?? testNameOf(t.id)));
  const files = [...new Set(targets.map((t) => t.file).filter((f): f is string => !!f))];
  const pattern = names.length ? names.map((n) => `^${escapeRegExp(n)}$`).join('|') : '';
  const values: Record<string, string> = {
    ids: targets.map((t) => shellQuote(t.id)).join(' '),
    names: names.map(shellQuote).join(' '),
    files: files.map(shellQuote).join(' '),
    namePattern: pattern ? shellQuote(pattern) : "''",
  };
  // a replacer function: replacement strings would read `$'` in a pattern as a special sequence
  return template.replace(/\{(ids|names|files|namePattern)\}/g, (_, key: string) => values[key]).trim();
}

/** Workspace-relative files matching the report setting (a path or a glob). */
export async function findReports(root: string, pattern: string): Promise<string[]> {
  if (!/[*?]/.test(pattern)) return [pattern];
  const re = globToRegExp(pattern);
  // walk only below the part of the pattern without wildcards
  const firstGlob = pattern.split('/').findIndex((seg) => /[*?]/.test(seg));
  const start = pattern.split('/').slice(0, firstGlob).join('/');
  const out: string[] = [];
  async function walk(rel: string, depth: number): Promise<void> {
    if (depth > 8 || out.length > 200) return;
    const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name === '.git' || e.name === 'node_modules') continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child, depth + 1);
      else if (e.isFile() && re.test(child)) out.push(child);
    }
  }
  await walk(start, 0);
  return out.sort();
}

async function clearReports(root: string, pattern: string): Promise<void> {
  for (const rel of await findReports(root, pattern)) {
    const abs = path.resolve(root, rel);
    if (abs.startsWith(root + path.sep)) await rm(abs, { force: true });
  }
}

export interface ReadReports {
  results: TestResult[];
  /** the parser's warnings (a repeated test id and the id it is stored under, a field cut short), per report */
  warnings: string[];
  reportError?: string;
  /** a report that does not account for every test (a TAP stream cut short), per report */
  incomplete?: string;
  /** how many report files there were */
  found: number;
}

/**
 * Reads and merges every report; problems become `reportError`. Ids are unique
 * across the reports by the parser's own rule (a repeated id becomes
 * "<id> [2]", "<id> [3]", … in document order), the one ingestion applies to
 * an upload, so the agent's ids and the ingested failures' ids agree.
 */
export async function readTestReports(root: string, pattern: string): Promise<ReadReports> {
  const files = await findReports(root, pattern);
  const results: TestResult[] = [];
  const warnings: string[] = [];
  const problems: string[] = [];
  const incomplete: string[] = [];
  let found = 0;
  for (const rel of files) {
    const abs = path.resolve(root, rel);
    if (!abs.startsWith(root + path.sep)) continue;
    let bytes: Buffer;
    try {
      // the command wrote the report: a symlink to a server file must not make the server read it
      const real = await realpath(abs);
      if (!real.startsWith(root + path.sep)) {
        found++;
        problems.push(`${rel}: the report is a link that leaves the workspace`);
        continue;
      }
      bytes = await readFile(real);
    } catch {
      continue;
    }
    found++;
    try {
      if (rel.endsWith('.json')) {
        // jest's own JSON report (agent/testing/jest-report.ts)
        const jest = parseJestJson(bytes.toString('utf8'), root);
        results.push(...jest.results);
        if (jest.incomplete) incomplete.push(`${rel}: ${jest.incomplete}`);
        continue;
      }
      if (rel.endsWith('.tap')) {
        // a TAP producer's output (agent/testing/runners.ts)
        const text = bytes.toString('utf8');
        results.push(...parseTap(text, 'tap', root));
        const cut = tapCutShort(text);
        if (cut) incomplete.push(`${rel}: ${cut}`);
        continue;
      }
      const parsed = parseJunitXml(bytes, { root });
      results.push(...parsed.results);
      warnings.push(...parsed.warnings.map((w) => `${rel}: ${w}`));
    } catch (err) {
      problems.push(`${rel}: ${(err as Error).message}`);
    }
  }
  for (const renamed of disambiguateTestIds(results)) warnings.push(`repeated test id ${renamed.from} across reports stored as ${renamed.to}`);
  if (found === 0) return { results, warnings, found, reportError: `the test command wrote no report at ${pattern}` };
  if (problems.length) return { results, warnings, found, reportError: problems.join('; ') };
  return { results, warnings, found, ...(incomplete.length ? { incomplete: incomplete.join('; ') } : {}) };
}

/**
 * The report a command printed when it wrote no file: TAP (from its first TAP
 * line) or jest's JSON (the line that holds it) in the command's output, for a
 * report named as one file (no glob). Undefined: no report in the output.
 */
export function reportFromOutput(pattern: string, output: string, root: string): ReadReports | undefined {
  if (/[*?[{]/.test(pattern)) return undefined;
  const said = `no file at ${pattern}: the report was read from the command's output`;
  try {
    if (pattern.endsWith('.tap')) {
      const start = output.search(/^(TAP version \d+|(not )?ok \d+\b|1\.\.\d+)/m);
      if (start < 0) return undefined;
      const text = output.slice(start);
      const results = parseTap(text, 'tap', root);
      if (results.length === 0) return undefined;
      const cut = tapCutShort(text);
      return { results, warnings: [said], found: 1, ...(cut ? { incomplete: `the command's output: ${cut}` } : {}) };
    }
    if (pattern.endsWith('.json')) {
      const line = output.split('\n').find((l) => l.startsWith('{') && l.includes('"testResults"'));
      if (!line) return undefined;
      const jest = parseJestJson(line, root);
      return { results: jest.results, warnings: [said], found: 1, ...(jest.incomplete ? { incomplete: `the command's output: ${jest.incomplete}` } : {}) };
    }
  } catch {
    // a report cut by the output cap or mangled on the way is no report
    return undefined;
  }
  return undefined;
}

/**
 * A command that failed although its report names no failing test: whatever
 * made it fail (an exception between tests, a crash at exit, a test the
 * report never got to) is not in the report, so its passes are not the whole story.
 */
function unexplainedFailure(result: CommandResult, results: TestResult[]): string | undefined {
  if (result.exitCode === 0 || results.some((r) => r.status === 'failed' || r.status === 'error')) return undefined;
  const how =
    result.exitCode !== null ? `exited with code ${result.exitCode}` : result.signal ? `was killed by ${result.signal}` : 'ended without an exit code';
  return `the test command ${how}, but its report names no failing test`;
}

export type TestRunKind = 'target' | 'regression';

const NOT_RUN_PREFIX = 'did not run:';

/** A placeholder result for a target the report did not mention. */
export function didNotRun(result: TestResult): boolean {
  return result.status === 'error' && (result.message ?? '').startsWith(NOT_RUN_PREFIX);
}

const STATUS_RANK: Record<TestResult['status'], number> = { error: 3, failed: 2, passed: 1, skipped: 0 };

/**
 * One result per target. A test the report lists more than once (a
 * parametrised test, a runner that names every assertion alike) answers to
 * the target with all its instances ("<id>", "<id> [2]", …): the target fails
 * when any instance fails and passes only when none does. A target missing
 * from the report comes back as an error ("did not run"), never as passed.
 */
export function selectTargetResults(results: TestResult[], targets: Array<{ id: string; name?: string }>, reportError?: string): TestResult[] {
  return targets.map((target) => {
    const instances = results.filter((r) => isInstanceOf(r, target.id));
    if (instances.length === 0) {
      return {
        id: target.id,
        name: target.name ?? target.id,
        status: 'error',
        message: reportError ? `${NOT_RUN_PREFIX} ${reportError}` : `${NOT_RUN_PREFIX} the test is not in the JUnit report`,
      };
    }
    // the worst instance speaks for the target (the first of equals, in report order)
    let worst = 0;
    instances.forEach((r, i) => {
      if (STATUS_RANK[r.status] > STATUS_RANK[instances[worst].status]) worst = i;
    });
    const chosen = instances[worst];
    if (instances.length === 1) return chosen;
    const where = `instance ${worst + 1} of ${instances.length}`;
    return {
      ...chosen,
      id: baseTestId(instances[0].id),
      ...(chosen.status === 'failed' || chosen.status === 'error' ? { message: `${chosen.message ?? chosen.status} (${where})` } : {}),
    };
  });
}

/**
 * Runs the target tests (or the whole suite) and returns their results. For a
 * target run, results are filtered to the targets; a target missing from the
 * report comes back as an error ("did not run"), so it can never count as passing.
 */
export async function runTests(
  input: CommandContext & {
    kind: TestRunKind;
    targets: Array<{ id: string; name?: string; file?: string }>;
    /** instead of the settings' time limit (the gates give candidates less: see createGates) */
    timeoutSeconds?: number;
    /** variables for this run only (agent/coverage) */
    env?: Record<string, string>;
    /** a target run that keeps every result of the report, not only the targets' */
    allResults?: boolean;
    /** appended to the test command (a proof repeat's shuffle: agent/gates/proof.ts) */
    extraArgs?: string;
  },
): Promise<TestRun> {
  const { workspace, settings, kind } = input;
  const root = workspace.root;
  await clearReports(root, settings.junitReport);
  const rendered =
    kind === 'regression' ? (settings.regression ?? renderTestCommand(testCommandOf(settings), [])) : renderTestCommand(testCommandOf(settings), input.targets);
  const command = input.extraArgs ? `${rendered} ${input.extraArgs}` : rendered;
  const run = (cmd: string) =>
    runWorkspaceCommand({
      workspace,
      settings,
      signal: input.signal,
      ...(input.deadline !== undefined ? { deadline: input.deadline } : {}),
      command: cmd,
      timeoutSeconds: input.timeoutSeconds ?? (kind === 'regression' ? settings.timeLimits.regressionSeconds : settings.timeLimits.testSeconds),
      network: settings.network,
      ...(input.env ? { env: input.env } : {}),
    });
  let result = await run(command);
  // pytest's addopts naming a plugin that is not installed (exit 4): once more without them
  const retry = input.signal?.aborted ? undefined : pytestAddoptsRetry(command, result);
  if (retry) {
    await clearReports(root, settings.junitReport);
    result = await run(retry.command);
    result.output = `[flowfix] ${retry.note}\n${result.output}`;
    workspace.setLastLog(result.output);
  }
  const written = await readTestReports(root, settings.junitReport);
  // a report printed instead of written (a hand-written `tap` or `jest --json` with no file): read from the output
  const read = written.found === 0 ? (reportFromOutput(settings.junitReport, result.output, root) ?? written) : written;
  const { results, warnings } = read;
  // a command we stopped is named as such, not as a missing report
  const stopped = stoppedBecause(result, input.signal);
  const reportError = read.reportError && (stopped ?? read.reportError);
  // a report that was written is not the whole suite when the stream was cut, the command was stopped, or it failed unexplained
  const incomplete = reportError ? undefined : (read.incomplete ?? stopped ?? unexplainedFailure(result, results));
  await clearReports(root, settings.junitReport);
  const extra = { ...(reportError ? { reportError } : {}), ...(incomplete ? { incomplete } : {}), ...(warnings.length ? { warnings } : {}) };
  if (kind === 'regression' || input.allResults) return { command: result, results, ...extra };
  const selected = selectTargetResults(results, input.targets, reportError);
  return { command: result, results: selected, ...extra };
}

/** Why flowfix stopped a command (the time limit, a cancelled run), if it did. */
export function stoppedBecause(result: CommandResult, signal?: AbortSignal): string | undefined {
  if (signal?.aborted) return 'cancelled: the run was cancelled while the command ran';
  if (result.atDeadline)
    return result.durationMs === 0 ? 'not started: the run reached its time limit' : 'the run reached its time limit while the command ran, and it was killed';
  if (result.timedOut) return `timed out: the command did not finish within ${Math.round(result.durationMs / 1000)} s and was killed`;
  return undefined;
}

/** A command's outcome for a person: the command, its exit code or signal, and the last of its output. */
export function commandOutcome(result: CommandResult, tailChars = 1500): string {
  const how = result.exitCode !== null ? `exit code ${result.exitCode}` : result.signal ? `killed by ${result.signal}` : 'no exit code';
  const output = result.output.trimEnd();
  const tail = output.length > tailChars ? `…${output.slice(-tailChars)}` : output;
  return `command \`${result.command}\` (${how}); output${output ? ` (last ${Math.min(tailChars, output.length)} characters):\n${tail}` : ': (none)'}`;
}

/** True when every result passed (and there is at least one). */
export function allPassed(run: TestRun): boolean {
  return run.results.length > 0 && run.results.every((r) => r.status === 'passed');
}

/** Failing tests in a run (skipped ones are neither). */
export function failedResults(run: TestRun): TestResult[] {
  return run.results.filter((r) => r.status === 'failed' || r.status === 'error');
}
