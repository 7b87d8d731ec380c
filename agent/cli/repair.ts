import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  FilterPolicySchema,
  ModelSettingsSchema,
  type ModelSettings,
  type RunPolicy,
  resolveEffectiveSettings,
  mergeSettings,
  RUN_POLICIES,
  RunPolicySchema,
} from '../../common/settings';
import { readFlowfixFileAtRevision } from '../../lib/repositories/flowfix-file';
import { runRepair, type RepairResult } from '../pipeline';
import type { RunAssembly } from '../assemble';
import { createPrintSink, gateOutcome, timeoutLine } from '../report/sinks';
import { proofLabel } from '../../common/run-events';
import { inertDiff } from '../../common/text';

// `flowfix repair`: the whole pipeline on a local repository, printing the
// trajectory as it happens, then the suspects, the gate verdicts and the diff.

export const REPAIR_USAGE = `Usage: flowfix repair --base REV [--head REV] [--repo PATH] [--test ID ...] [options]

Runs the repair agent on a local git repository: checks out --head in a
temporary folder, reproduces the failing tests (RED), ranks suspects, lets the
policy edit through the compile gate, verifies (GREEN, the full suite, a clean
final rerun) and prints the trajectory, the suspects, the verdicts and the diff.
The repository itself is never modified.

Options:
  --repo PATH            the repository (default: the current folder)
  --base REV             the revision the change starts from (required)
  --head REV             the revision under repair (default: HEAD)
  --test ID              a failing test id ("<classname or file>::<name>") or name;
                         repeat for several; default: every test failing on --head
  --policy NAME          offline (default), llm or tiered (offline, then llm)
  --settings FILE        JSON with { settings, filterPolicy, modelSettings } (admin level)
  --test-command CMD     the test command template; placeholders {ids}, {names},
                         {files}, {namePattern} are documented in agent/README.md
                         (default: detected from the repository, see there)
  --build-command CMD    the build command
  --install-command CMD  the install command
  --junit PATH           where the test command writes JUnit XML (path or glob)
  --language NAME        typescript, javascript, python, ...
  --network              give build and test commands the network
  --no-base-check        do not run the target tests on --base
  --no-regression        skip the full suite after GREEN
  --keep-workspace       keep the temporary checkout (its path is printed)
  --json                 print the result as JSON instead of the report
  -h, --help             this text

Settings come from --settings and the flags, over .flowfix.json at --base,
over the defaults. Exit code: 0 fixed, 1 no fix, 2 usage error, 3 setup failed.
`;

export interface RepairIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
}

const defaultIo = (): RepairIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  cwd: process.cwd(),
});

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      repo: { type: 'string' },
      base: { type: 'string' },
      head: { type: 'string' },
      test: { type: 'string', multiple: true },
      policy: { type: 'string' },
      settings: { type: 'string' },
      'test-command': { type: 'string' },
      'build-command': { type: 'string' },
      'install-command': { type: 'string' },
      junit: { type: 'string' },
      language: { type: 'string' },
      network: { type: 'boolean' },
      'no-base-check': { type: 'boolean' },
      'no-regression': { type: 'boolean' },
      'keep-workspace': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** The run's policies and summariser, as the worker assembles them; a model that cannot be used is a usage problem here. */
async function buildPolicies(name: RunPolicy, modelSettings: ModelSettings): Promise<RunAssembly> {
  const { assembleRun, ModelUnavailableError } = await import('../assemble');
  // only a model policy needs the server's model configuration
  const env = name === 'offline' ? {} : (await import('../../lib/env')).getEnv();
  try {
    return assembleRun({ policy: name, modelSettings, env });
  } catch (err) {
    if (err instanceof ModelUnavailableError)
      throw new UsageProblem(`${err.message}: set FLOWFIX_MODEL_BASE_URL and FLOWFIX_MODEL, or modelSettings in --settings`);
    throw err;
  }
}

class UsageProblem extends Error {}

/** The commit a revision names in the repository (a branch, a tag, HEAD~1, a hash); an unknown one is a usage problem. */
async function commitOf(repoPath: string, rev: string): Promise<string> {
  const { workspaceGit } = await import('../workspace/git');
  try {
    return (await workspaceGit(repoPath, ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`])).stdout.trim();
  } catch {
    throw new UsageProblem(`unknown revision ${rev} in ${repoPath}`);
  }
}

function htmlToText(html: string): string {
  return html
    .replace(/<\/(p|li|ul|ol)>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}

/** A suspect by its function; a window of lines (no function encloses them) by its lines and why. */
function suspectLabel(s: RepairResult['suspects'][number]): string {
  const lines = `${s.file}:${s.startLine}-${s.endLine}`;
  if (s.kind === 'window') return `${lines} (lines around ${s.reasons[0] ?? 'the evidence'})`;
  return `${lines} ${s.symbol}`;
}

/** The closing report: suspects, verdicts, diff, summary, outcome. */
export function formatReport(result: RepairResult): string {
  const out: string[] = [''];
  out.push('Suspects');
  if (result.suspects.length === 0) out.push('  (none)');
  result.suspects.forEach((s, i) => out.push(`  ${i + 1}. ${suspectLabel(s)} (score ${s.score.toFixed(2)})`, ...s.reasons.map((r) => `       - ${r}`)));
  out.push('', 'Gate verdicts');
  for (const v of result.evidence.verdicts) {
    out.push(`  ${v.gate.padEnd(10)} ${gateOutcome(v.gate, v.passed, v)} ${String(v.durationMs).padStart(6)} ms  ${v.detail ?? ''}`);
    for (const d of v.diagnostics?.slice(0, 3) ?? [])
      out.push(`             ${d.kind}${d.file ? ` ${d.file}${d.line ? `:${d.line}` : ''}` : ''}: ${d.message.split('\n')[0]}`);
  }
  if (result.evidence.proof) out.push('', `Proof: ${result.evidence.proof.detail}`);
  for (const d of result.evidence.droppedTargets ?? []) out.push('', `Left out: ${d.id} ${d.reason} (not caused by the change).`);
  if (result.evidence.notCausedByChange) out.push('', 'Note: the target tests fail on the base revision too: the failure was not caused by the change.');
  if (result.diff && result.dropped) {
    // indented: a script that looks for "diff --git" in the output must not find (and apply) a refused fix
    out.push('', `Dropped fix (${result.dropped.reason}): ${result.dropped.detail}. Not a fix; its changes, indented so that no tool applies them:`);
    out.push(inertDiff(result.diff));
  } else if (result.diff) out.push('', 'Diff', result.diff.trimEnd());
  if (result.summaryHtml) out.push('', 'Summary', htmlToText(result.summaryHtml));
  const t = result.timings;
  out.push(
    '',
    `Result: ${result.status} (${result.exitReason})${result.evidence.proof?.status === 'unproven' ? `, ${proofLabel(result.evidence.proof)}` : ''}${result.exitDetail ? `: ${result.exitDetail}` : ''}`,
    `Time: ${(t.wallMs / 1000).toFixed(1)} s wall, ${(t.commandMs / 1000).toFixed(1)} s in commands, ${(t.modelMs / 1000).toFixed(1)} s in model calls, ${(t.overheadMs / 1000).toFixed(1)} s orchestration; ${t.targetRuns} target runs, ${t.regressionRuns} regression runs; ${timeoutLine(t)}`,
    `Usage: ${result.usage.toolCalls} tool calls, ${result.usage.promptTokens + result.usage.completionTokens} tokens, ${result.usage.costUsd === null ? 'cost unknown (no price for the model)' : `$${result.usage.costUsd.toFixed(4)}`}`,
    '',
  );
  return out.join('\n');
}

function exitCodeOf(result: RepairResult): number {
  if (result.status === 'fixed') return 0;
  if (result.status === 'failed') return 3;
  return 1;
}

/** `flowfix repair …`; returns the process exit code. */
export async function repairCommand(argv: string[], io: RepairIo = defaultIo()): Promise<number> {
  let args: ReturnType<typeof parse>['values'];
  try {
    args = parse(argv).values;
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${REPAIR_USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stdout(REPAIR_USAGE);
    return 0;
  }
  if (!args.base) {
    io.stderr(`--base is required\n\n${REPAIR_USAGE}`);
    return 2;
  }
  const policyName = args.policy ?? 'offline';
  if (!RunPolicySchema.safeParse(policyName).success) {
    io.stderr(`--policy must be ${RUN_POLICIES.join(', ')}\n`);
    return 2;
  }
  const repoPath = path.resolve(io.cwd, args.repo ?? '.');

  try {
    // names are read in the repository given: the run's clone knows only the branch checked out here by its name
    const baseRev = await commitOf(repoPath, args.base);
    const headRev = await commitOf(repoPath, args.head ?? 'HEAD');
    let admin: { settings?: unknown; filterPolicy?: unknown; modelSettings?: unknown } = {};
    if (args.settings) {
      admin = JSON.parse(await readFile(path.resolve(io.cwd, args.settings), 'utf8')) as typeof admin;
    }
    const flags: Record<string, unknown> = {};
    if (args['test-command']) flags.test = args['test-command'];
    if (args['build-command']) flags.build = args['build-command'];
    if (args['install-command']) flags.install = args['install-command'];
    if (args.junit) flags.junitReport = args.junit;
    if (args.language) flags.language = args.language;
    if (args.network) flags.network = true;
    // no test command anywhere: the run's setup takes the repository's own runner (agent/testing/detect.ts)
    const flowfixFileText = await readFlowfixFileAtRevision({ repoPath, rev: baseRev });
    const effective = resolveEffectiveSettings({
      adminSettings: mergeSettings(admin.settings ?? {}, flags),
      adminFilterPolicy: admin.filterPolicy ?? {},
      flowfixFileText,
    });
    for (const w of effective.warnings) io.stderr(`warning: ${w}\n`);
    const modelSettings = ModelSettingsSchema.parse({ ...(admin.modelSettings as object), policy: policyName });
    const { policies, summarise } = await buildPolicies(modelSettings.policy, modelSettings);

    const controller = new AbortController();
    const onSignal = () => controller.abort();
    // `on`, not `once`: a second signal while the run winds down must not kill it before it reports
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const printer = createPrintSink(args.json ? io.stderr : io.stdout);
      const result = await runRepair({
        repoPath,
        baseRev,
        headRev,
        ...(args.test?.length ? { targetTests: args.test } : {}),
        settings: effective.settings,
        filterPolicy: FilterPolicySchema.parse(effective.filterPolicy),
        modelSettings,
        policy: policies,
        sink: printer,
        signal: controller.signal,
        checkBase: !args['no-base-check'],
        runRegression: !args['no-regression'],
        keepWorkspace: !!args['keep-workspace'],
        ...(summarise ? { summarise } : {}),
      });
      if (args.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
      else io.stdout(formatReport(result));
      return exitCodeOf(result);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  } catch (err) {
    if (err instanceof UsageProblem || err instanceof SyntaxError) {
      io.stderr(`${err.message}\n`);
      return 2;
    }
    io.stderr(`flowfix repair failed: ${(err as Error).message}\n`);
    return 3;
  }
}
