// Context budgeting. A local model may have 4k or 8k tokens of context, a
// hosted one 128k; either way the prompt must fit, with room left for the
// answer. The budget follows the model setting `contextTokens`: the first
// message shows the suspects as spans (the function with a few lines around
// it, and inside a long function only the windows around the lines the change
// edited and the stack frames), never whole files; observations are cut to a
// share of the window; and before every call the oldest observations are
// shortened until the conversation fits. Token counts are estimates (about 4
// characters a token, the same rule the client uses when an endpoint reports
// no usage), so the budget keeps a 10% margin.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChangeContext, Evidence, Suspect, WorkspaceView } from '../types';
import { estimateTokens } from './dialects';

export interface ContextBudget {
  contextTokens: number;
  /** kept free for the answer */
  outputTokens: number;
  /** what the whole conversation may take */
  promptTokens: number;
  /** the first user message: change, evidence, suspects' code */
  firstMessageTokens: number;
  /** one observation's repository text, in characters */
  observationChars: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

export function contextBudget({ contextTokens, maxOutputTokens }: { contextTokens: number; maxOutputTokens?: number }): ContextBudget {
  const outputTokens = Math.min(maxOutputTokens ?? clamp(Math.floor(contextTokens / 8), 512, 8192), Math.floor(contextTokens / 2));
  const promptTokens = Math.floor((contextTokens - outputTokens) * 0.9);
  return {
    contextTokens,
    outputTokens,
    promptTokens,
    firstMessageTokens: Math.floor(promptTokens * 0.4),
    observationChars: clamp(Math.floor(promptTokens * 0.12) * 4, 1500, 12_000),
  };
}

// ───── suspects as spans ─────

export interface SpanOptions {
  /** lines shown before and after a suspect's own range */
  contextLines?: number;
  /** a span longer than this shows only windows around the lines that matter */
  maxSpanLines?: number;
  /** lines around each line that matters, in a long span */
  windowLines?: number;
}

export interface RenderedSpan {
  file: string;
  startLine: number;
  endLine: number;
  /** numbered lines, with "⋮" markers where lines were left out */
  text: string;
  symbols: string[];
}

interface Range {
  file: string;
  start: number;
  end: number;
  symbols: string[];
}

function withLineNumbers(lines: string[], firstLine: number, width: number): string[] {
  return lines.map((line, i) => `${String(firstLine + i).padStart(width)}│ ${line}`);
}

/** Line numbers (1-based) that matter in `file`: the change's edited lines and the failure's stack frames. */
function focusLines(file: string, change: Pick<ChangeContext, 'editedSpans'>, evidence: Pick<Evidence, 'frames'>): number[] {
  const out = new Set<number>();
  for (const s of change.editedSpans) {
    if (s.file !== file) continue;
    for (let l = s.startLine; l <= Math.min(s.endLine, s.startLine + 200); l++) out.add(l);
  }
  for (const f of evidence.frames) {
    if (f.file === file || f.file.endsWith(`/${file}`)) out.add(f.line);
  }
  return [...out].sort((a, b) => a - b);
}

/** Which lines of a long span to show: its head (the signature) and windows around the focus lines. */
function visibleLines(
  start: number,
  end: number,
  focus: number[],
  { contextLines, maxSpanLines, windowLines }: Required<SpanOptions>,
): Array<[number, number]> {
  if (end - start + 1 <= maxSpanLines) return [[start, end]];
  const wanted: Array<[number, number]> = [[start, Math.min(end, start + contextLines + 3)]];
  for (const line of focus) if (line >= start && line <= end) wanted.push([Math.max(start, line - windowLines), Math.min(end, line + windowLines)]);
  // nothing to focus on: the head of the span
  if (wanted.length === 1) wanted[0] = [start, Math.min(end, start + maxSpanLines - 1)];
  // the end of the suspect's own body and the context after it
  wanted.push([Math.max(start, end - contextLines - 1), end]);
  wanted.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const w of wanted) {
    const last = merged.at(-1);
    if (last && w[0] <= last[1] + 2) last[1] = Math.max(last[1], w[1]);
    else merged.push([...w]);
  }
  return merged;
}

async function renderRange(range: Range, workspace: WorkspaceView, visible: Array<[number, number]>): Promise<RenderedSpan | undefined> {
  let lines: string[];
  try {
    lines = (await workspace.readFile(range.file, { start: range.start, end: range.end })).split('\n');
  } catch {
    return undefined;
  }
  const lastLine = range.start + lines.length - 1;
  const width = String(lastLine).length;
  const out: string[] = [];
  let shownTo = range.start - 1;
  for (const [a, b] of visible) {
    if (a > lastLine) break;
    if (a > shownTo + 1) out.push(`${' '.repeat(width)}⋮ lines ${shownTo + 1}-${a - 1} not shown (read_file for them)`);
    const to = Math.min(b, lastLine);
    out.push(...withLineNumbers(lines.slice(a - range.start, to - range.start + 1), a, width));
    shownTo = to;
  }
  if (shownTo < lastLine) out.push(`${' '.repeat(width)}⋮ lines ${shownTo + 1}-${lastLine} not shown (read_file for them)`);
  return { file: range.file, startLine: range.start, endLine: lastLine, text: out.join('\n'), symbols: range.symbols };
}

/**
 * The suspects' code as spans under a token budget, best-ranked first:
 * each suspect's range widened by `contextLines`, overlapping ranges of a
 * file merged, long ones cut to their head and the windows around the
 * change's edits and the stack frames. A suspect that does not fit is listed
 * in `omitted` (the model can read it).
 */
export async function suspectSpans({
  suspects,
  change,
  evidence,
  workspace,
  budgetTokens,
  options = {},
}: {
  suspects: Suspect[];
  change: Pick<ChangeContext, 'editedSpans'>;
  evidence: Pick<Evidence, 'frames'>;
  workspace: WorkspaceView;
  budgetTokens: number;
  options?: SpanOptions;
}): Promise<{ spans: RenderedSpan[]; omitted: Suspect[] }> {
  const opts: Required<SpanOptions> = { contextLines: 3, maxSpanLines: 60, windowLines: 6, ...options };
  const ranges: Range[] = [];
  const owner = new Map<Suspect, Range>();
  for (const s of suspects) {
    const start = Math.max(1, s.startLine - opts.contextLines);
    const end = Math.max(start, s.endLine + opts.contextLines);
    const overlapping = ranges.find((r) => r.file === s.file && start <= r.end + 1 && end >= r.start - 1);
    if (overlapping) {
      overlapping.start = Math.min(overlapping.start, start);
      overlapping.end = Math.max(overlapping.end, end);
      overlapping.symbols.push(s.symbol);
      owner.set(s, overlapping);
    } else {
      const range = { file: s.file, start, end, symbols: [s.symbol] };
      ranges.push(range);
      owner.set(s, range);
    }
  }
  const spans: RenderedSpan[] = [];
  const shown = new Set<Range>();
  let used = 0;
  for (const range of ranges) {
    const focus = focusLines(range.file, change, evidence);
    let span = await renderRange(range, workspace, visibleLines(range.start, range.end, focus, opts));
    if (!span) continue;
    let cost = estimateTokens(span.text) + 30;
    if (used + cost > budgetTokens) {
      // the head alone, if that fits
      const head: Required<SpanOptions> = { ...opts, maxSpanLines: Math.max(8, Math.floor(((budgetTokens - used) * 4) / 60)) };
      span = await renderRange(range, workspace, visibleLines(range.start, range.end, [], head));
      cost = span ? estimateTokens(span.text) + 30 : Infinity;
      if (!span || used + cost > budgetTokens) continue;
    }
    used += cost;
    spans.push(span);
    shown.add(range);
  }
  return { spans, omitted: suspects.filter((s) => !shown.has(owner.get(s)!)) };
}

// ───── the conversation ─────

function messageChars(message: ChatCompletionMessageParam): number {
  let n = 20;
  if (typeof message.content === 'string') n += message.content.length;
  else if (Array.isArray(message.content)) n += JSON.stringify(message.content).length;
  if (message.role === 'assistant' && message.tool_calls) n += JSON.stringify(message.tool_calls).length;
  return n;
}

export function estimateMessagesTokens(messages: ChatCompletionMessageParam[], extra = ''): number {
  return Math.ceil((messages.reduce((n, m) => n + messageChars(m), 0) + extra.length) / 4);
}

export const SHORTENED_OBSERVATION_CHARS = 300;

/**
 * Shortens observations, oldest first, until the conversation fits
 * `budgetTokens` (the newest `keepLast` stay whole unless nothing else is
 * left). Returns how many it shortened and whether the conversation fits.
 */
export function fitHistory({
  messages,
  observationIndexes,
  budgetTokens,
  keepLast,
  extra = '',
}: {
  messages: ChatCompletionMessageParam[];
  /** indexes of observation messages (tool results, or the text protocol's results), oldest first */
  observationIndexes: number[];
  budgetTokens: number;
  keepLast: number;
  extra?: string;
}): { shortened: number; fits: boolean } {
  let shortened = 0;
  const shorten = (index: number) => {
    const message = messages[index];
    if (!message || typeof message.content !== 'string' || message.content.length <= SHORTENED_OBSERVATION_CHARS + 120) return false;
    (message as { content: string }).content =
      `${message.content.slice(0, SHORTENED_OBSERVATION_CHARS)}\n[… older observation shortened to fit the model's context; repeat the action if you need it]`;
    shortened++;
    return true;
  };
  // the count rule: only the last `keepLast` observations stay whole
  for (const index of observationIndexes.slice(0, Math.max(0, observationIndexes.length - keepLast))) shorten(index);
  // the size rule: oldest first, the newest last
  for (const index of observationIndexes) {
    if (estimateMessagesTokens(messages, extra) <= budgetTokens) break;
    shorten(index);
  }
  return { shortened, fits: estimateMessagesTokens(messages, extra) <= budgetTokens };
}
