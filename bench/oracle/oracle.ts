// One oracle case: a real git repository (base, head), the right fix as a
// diff against the head, and the whole pipeline (setup, RED, localise, patch
// through the LLM policy, gates, verify, proof, summary and post-filters) with
// the oracle double (oracle-model.ts) as its model, through the product's
// own LlmClient and LLM policy. What a perfect model gets out of the product:
// did its right fix reach a reviewer, and if not, where and why it was lost.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runRepair } from '../../agent/pipeline';
import { assembleRun } from '../../agent/assemble';
import { parseUnifiedDiff, diffFilePath } from '../../agent/edits/diff';
import { indexTsFile } from '../../agent/scaffold/typescript';
import { workspaceGit } from '../../agent/workspace/git';
import type { AgentEvent, Phase, Suspect } from '../../agent/types';
import { ModelSettingsSchema, type FilterPolicy, type RepositorySettings } from '../../common/settings';
import { symbolMatches } from '../agent/run';
import { startOracleModel } from './oracle-model';

export interface OracleCaseInput {
  id: string;
  repoPath: string;
  baseRev: string;
  headRev: string;
  /** the failing tests (CI's ids); absent: the failing tests of a full run on the head */
  targetTests?: string[];
  /** the right fix: a unified diff of non-test files that applies to the head */
  fixDiff: string;
  /** the function the fix belongs in; absent: the innermost TypeScript/JavaScript function around the fix's first changed line */
  truth?: { file: string; symbol: string } | null;
  settings: RepositorySettings;
  filterPolicy?: FilterPolicy;
  change?: { title?: string; description?: string; author?: string };
  checkBase?: boolean;
  /** answers as server-sent events (default true) */
  stream?: boolean;
  workDir?: string;
}

export interface OracleOutcome {
  id: string;
  /** the right fix reached a reviewer: the run ended fixed, no post-filter dropped it, its proof did not fail */
  reached: boolean;
  status: string;
  exitReason: string;
  exitDetail?: string;
  /** the phase the run ended in */
  phase: Phase | null;
  /** why a right fix was lost, in one line (null when it reached a reviewer) */
  reason: string | null;
  /** the product refused the oracle's edit: the observation it sent back */
  editRefused?: string;
  proof?: string;
  /** the diff the run ended with is the oracle's (index lines and context aside) */
  sameDiff: boolean;
  truth: { file: string; symbol: string } | null;
  /** where the right function ranked among the suspects and runners-up (1-based), null when absent */
  rank: number | null;
  /** the right function was among the suspects the model was shown, in the top 3 */
  top3: boolean;
  suspects: Array<Pick<Suspect, 'file' | 'symbol'>>;
  modelCalls: number;
  wallMs: number;
  /** the run's wall time per phase, and in the repository's commands */
  phaseMs: Partial<Record<Phase, number>>;
  commandMs: number;
  diff: string;
}

/** The changed lines of a diff, without the headers and context that depend on how it was made. */
function changedLines(diff: string): string {
  return parseUnifiedDiff(diff)
    .map((f) => `${diffFilePath(f)}\n${f.hunks.flatMap((h) => h.lines.filter((l) => l.type !== ' ').map((l) => `${l.type}${l.text}`)).join('\n')}`)
    .join('\n');
}

/**
 * The innermost named function, method or class around the fix's first
 * changed line on the head side, by the scaffold's own index (as the mutants
 * bench names its ground truth). TypeScript and JavaScript only; null otherwise.
 */
export async function truthOfFix(repoPath: string, headRev: string, fixDiff: string): Promise<{ file: string; symbol: string } | null> {
  for (const file of parseUnifiedDiff(fixDiff)) {
    const rel = diffFilePath(file);
    if (!/\.[cm]?[jt]sx?$/.test(rel)) continue;
    const line = file.hunks.flatMap((h) => h.lines).find((l) => l.type === '-')?.oldLine ?? file.hunks[0]?.oldStart;
    if (!line) continue;
    const text = (await workspaceGit(repoPath, ['show', `${headRev}:${rel}`])).stdout;
    const spans = indexTsFile(rel, text).spans.filter((s) => !s.isTest && s.kind !== 'window' && s.startLine <= line && line <= s.endLine);
    spans.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine));
    if (spans[0]) return { file: rel, symbol: spans[0].symbol };
  }
  return null;
}

/** What went wrong, in one line, from the run's result and events. */
function lossReason(result: Awaited<ReturnType<typeof runRepair>>, editRefused: string | undefined): string {
  if (result.dropped) return `dropped by the post-filter ${result.dropped.reason}: ${result.dropped.detail}`;
  if (result.status === 'fixed') return `proof ${result.evidence.proof?.status ?? 'missing'}: ${result.evidence.proof?.detail ?? ''}`;
  const parts = [result.exitReason, result.exitDetail ?? ''];
  if (editRefused) parts.push(`the edit was refused: ${editRefused.replace(/\s+/g, ' ').slice(0, 400)}`);
  return parts.filter(Boolean).join(': ');
}

/** Runs one case through the whole pipeline with the oracle as the model. */
export async function runOracleCase(input: OracleCaseInput): Promise<OracleOutcome> {
  const model = await startOracleModel({ diff: input.fixDiff });
  const events: AgentEvent[] = [];
  try {
    const modelSettings = ModelSettingsSchema.parse({
      policy: 'llm',
      baseUrl: model.url,
      model: 'oracle',
      editProtocol: 'tools',
      stream: input.stream ?? true,
    });
    // assembled as a server run is: the model's policy and its root-cause summary
    const { policies, summarise } = assembleRun({ policy: 'llm', modelSettings, env: { FLOWFIX_MODEL_API_KEY: 'oracle' } });
    const result = await runRepair({
      repoPath: input.repoPath,
      baseRev: input.baseRev,
      headRev: input.headRev,
      ...(input.targetTests ? { targetTests: input.targetTests } : {}),
      settings: input.settings,
      ...(input.filterPolicy ? { filterPolicy: input.filterPolicy } : {}),
      modelSettings,
      policy: policies,
      ...(summarise ? { summarise } : {}),
      ...(input.checkBase === undefined ? {} : { checkBase: input.checkBase }),
      sink: { emit: async (e) => void events.push(e) },
      change: { title: input.change?.title ?? 'Change', description: input.change?.description ?? '', author: input.change?.author ?? 'oracle-bench' },
      ...(input.workDir ? { workDir: input.workDir } : {}),
    });
    const started = events.filter((e) => e.type === 'phase' && e.payload.status === 'started');
    const phase = (started.at(-1)?.payload.phase as Phase | undefined) ?? null;
    const refused = events.filter((e) => e.type === 'observation' && e.payload.name === 'apply_patch' && e.payload.ok === false).at(-1);
    const editRefused = refused ? String(refused.payload.text) : undefined;
    const runnersUp = (events.find((e) => e.type === 'suspects')?.payload.runnersUp as Suspect[] | undefined) ?? [];
    const ranked = [...result.suspects, ...runnersUp];
    const truth = input.truth === undefined ? await truthOfFix(input.repoPath, input.headRev, input.fixDiff) : input.truth;
    const at = truth ? ranked.findIndex((s) => symbolMatches(s, truth)) : -1;
    const reached = result.status === 'fixed' && !result.dropped && result.evidence.proof?.status !== 'unproven';
    return {
      id: input.id,
      reached,
      status: result.status,
      exitReason: result.exitReason,
      ...(result.exitDetail ? { exitDetail: result.exitDetail } : {}),
      phase,
      reason: reached ? null : lossReason(result, editRefused),
      ...(editRefused ? { editRefused } : {}),
      ...(result.evidence.proof ? { proof: result.evidence.proof.status } : {}),
      sameDiff: !!result.diff && changedLines(result.diff) === changedLines(input.fixDiff),
      truth,
      rank: at < 0 ? null : at + 1,
      // the model is shown result.suspects (the top-K); the runners-up only rank the misses
      top3: at >= 0 && at < Math.min(3, result.suspects.length),
      suspects: ranked.map((s) => ({ file: s.file, symbol: s.symbol })),
      modelCalls: model.server.requests.length,
      wallMs: result.timings.wallMs,
      phaseMs: result.phaseTimings,
      commandMs: result.timings.commandMs,
      diff: result.diff,
    };
  } finally {
    await model.close();
  }
}

/**
 * The right fix as a diff against the head, from the right text of each file
 * (path → text). Made by git in the repository's work tree, which must be a
 * clean checkout of the head (as the benches build their repositories), and
 * put back afterwards.
 */
export async function fixDiffFromFiles(repoPath: string, headRev: string, fixed: Record<string, string>): Promise<string> {
  const at = (await workspaceGit(repoPath, ['rev-parse', 'HEAD'])).stdout.trim();
  const dirty = (await workspaceGit(repoPath, ['status', '--porcelain', '--untracked-files=no'])).stdout.trim();
  if (at !== headRev || dirty) throw new Error(`fixDiffFromFiles needs a clean work tree at the head ${headRev}`);
  const before = new Map<string, string>();
  try {
    for (const [rel, text] of Object.entries(fixed)) {
      before.set(rel, await readFile(path.join(repoPath, rel), 'utf8'));
      await writeFile(path.join(repoPath, rel), text);
    }
    return (await workspaceGit(repoPath, ['diff', '--no-color', '--no-ext-diff', headRev, '--', ...Object.keys(fixed)])).stdout;
  } finally {
    for (const [rel, text] of before) await writeFile(path.join(repoPath, rel), text);
  }
}
