// The LLM policy's tools, as data: a name, a description, a zod schema for the
// arguments and an `execute` over the PolicyContext. Arguments are parsed and
// validated before anything runs; a malformed call becomes an observation the
// model can correct. Every edit goes through ctx.gates.applyEdit (the compile
// gate) and its structured diagnostics are what the model sees on failure.
// Repository text in an observation is fenced as untrusted data; long output
// is cut with a note of how much was elided and how to narrow the request.
import { z } from 'zod';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Edit, GateVerdict, PolicyContext, TestRun } from '../types';
import { cutText, withLineNumbers, type Fence } from './fence';

export interface ToolEnv {
  ctx: PolicyContext;
  fence: Fence;
  /** cap on an observation's repository text */
  maxOutputChars: number;
}

export interface ToolObservation {
  ok: boolean;
  text: string;
  /** set by `finish`: whether the target tests passed when the model claimed to be done */
  finish?: { passed: boolean; summary: string };
  /** set by edit tools: the compile gate's verdict */
  verdict?: GateVerdict;
}

export interface AgentTool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  args: S;
  execute(args: z.output<S>, env: ToolEnv): Promise<ToolObservation>;
}

function defineTool<S extends z.ZodType>(tool: AgentTool<S>): AgentTool<S> {
  return tool;
}

const Path = z.string().min(1).max(1024).describe('path relative to the repository root');

const READ_FILE_MAX_LINES = 400;

// ───── observation helpers ─────

function describeVerdict(verdict: GateVerdict, fence: Fence, maxChars: number): string {
  if (verdict.passed) return `The edit was applied and passed the compile gate (${verdict.durationMs} ms).`;
  const lines = (verdict.diagnostics ?? []).map((d) => `- [${d.kind}]${d.file ? ` ${d.file}${d.line ? `:${d.line}` : ''}` : ''}: ${d.message}`);
  if (lines.length === 0 && verdict.detail) lines.push(verdict.detail);
  return [
    'The compile gate REJECTED the edit and rolled it back; the file is unchanged. Diagnostics:',
    fence.wrap('compile gate diagnostics', cutText(lines.join('\n'), { maxChars, hint: 'fix the first diagnostic first' })),
  ].join('\n');
}

function describeTestRun({ verdict, run }: { verdict: GateVerdict; run: TestRun }, fence: Fence, maxChars: number): string {
  const header = verdict.passed
    ? `Target tests PASSED (${verdict.durationMs} ms).`
    : `Target tests FAILED (${verdict.durationMs} ms${run.command.timedOut ? ', timed out' : ''}).`;
  const tests = (verdict.tests ?? run.results).map((t) => `- ${t.status.toUpperCase()} ${t.id}${t.message ? `: ${t.message}` : ''}`);
  const body: string[] = [];
  if (tests.length) body.push(tests.join('\n'));
  if (run.reportError) body.push(`No test report: ${run.reportError}`);
  if (verdict.detail) body.push(verdict.detail);
  if (!verdict.passed && run.command.output) {
    body.push(
      'Output (tail):',
      cutText(run.command.output, { maxChars: Math.floor(maxChars / 2), keep: 'tail', hint: 'use read_last_log with grep to search the full log' }),
    );
  }
  return body.length ? `${header}\n${fence.wrap('test results', cutText(body.join('\n'), { maxChars, hint: 'use read_last_log for the full log' }))}` : header;
}

/**
 * Every edit of both protocols lands here: the compile gate applies it (the
 * workspace refuses paths outside it, into .git or binary files) or rolls it
 * back with diagnostics. An edit of a test file is allowed through, with the
 * warning that the post filters drop such a fix unless the change
 * deliberately changed the expectation.
 */
export async function applyAndDescribe(edit: Edit, env: ToolEnv): Promise<ToolObservation> {
  const verdict = await env.ctx.gates.applyEdit(edit);
  let text = describeVerdict(verdict, env.fence, env.maxOutputChars);
  const file = edit.kind === 'diff' ? undefined : edit.file;
  if (verdict.passed && file && env.ctx.isTestFile?.(file)) {
    text += `\nNote: ${file} is a test or test helper. A fix that edits tests is dropped, unless the change deliberately changed this expectation and only the stale expectation is updated; fix the code instead.`;
  }
  return { ok: verdict.passed, verdict, text };
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

// ───── the tools ─────

export const readFileTool = defineTool({
  name: 'read_file',
  description: `Read a file, whole or a line range (1-based, inclusive). Lines are prefixed with "N│ " (not part of the file). At most ${READ_FILE_MAX_LINES} lines per call.`,
  args: z.object({
    path: Path,
    start_line: z.number().int().min(1).optional(),
    end_line: z.number().int().min(1).optional(),
  }),
  async execute({ path, start_line, end_line }, { ctx, fence, maxOutputChars }) {
    if (start_line !== undefined && end_line !== undefined && end_line < start_line) {
      return { ok: false, text: `end_line (${end_line}) is before start_line (${start_line}).` };
    }
    const start = start_line ?? 1;
    const requestedEnd = end_line ?? start + READ_FILE_MAX_LINES - 1;
    const end = Math.min(requestedEnd, start + READ_FILE_MAX_LINES - 1);
    const text = await ctx.workspace.readFile(path, { start, end });
    const lines = text.split('\n');
    const shownEnd = start + lines.length - 1;
    let note = '';
    if (end < requestedEnd || (end_line === undefined && lines.length === READ_FILE_MAX_LINES)) {
      note = `\n[showing lines ${start}-${shownEnd}; the file may continue: call read_file with start_line=${shownEnd + 1}]`;
    }
    const body = cutText(withLineNumbers(text, start), { maxChars: maxOutputChars, hint: 'ask for a smaller line range' });
    return { ok: true, text: fence.wrap(`file ${path} lines ${start}-${shownEnd}`, body) + note };
  },
});

export const listDirTool = defineTool({
  name: 'list_dir',
  description: 'List a folder of the repository (folders end with "/").',
  args: z.object({ path: Path.default('.') }),
  async execute({ path }, { ctx, fence, maxOutputChars }) {
    const entries = await ctx.workspace.listDir(path);
    const text = entries.map((e) => (e.kind === 'dir' ? `${e.name}/` : e.name)).join('\n') || '(empty)';
    return { ok: true, text: fence.wrap(`listing of ${path}`, cutText(text, { maxChars: maxOutputChars, hint: 'list a subfolder' })) };
  },
});

export const searchCodeTool = defineTool({
  name: 'search_code',
  description: 'Search the repository for a literal string. Returns "file:line: text" lines.',
  args: z.object({
    query: z.string().min(1).max(500),
    glob: z.string().max(200).optional().describe('limit to files matching this glob, e.g. "src/**/*.ts"'),
    max_results: z.number().int().min(1).max(200).default(50),
  }),
  async execute({ query, glob, max_results }, { ctx, fence, maxOutputChars }) {
    const hits = await ctx.workspace.search(query, { glob, maxResults: max_results + 1 });
    const shown = hits.slice(0, max_results);
    const more = hits.length > max_results ? `\n[more matches exist; narrow with glob or a longer query]` : '';
    if (shown.length === 0) return { ok: true, text: 'No matches.' };
    const text = shown.map((h) => `${h.file}:${h.line}: ${h.text}`).join('\n');
    return {
      ok: true,
      text: fence.wrap(`search results for the query`, cutText(text, { maxChars: maxOutputChars, hint: 'narrow with glob or a longer query' })) + more,
    };
  },
});

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace old_text with new_text in a file. old_text must occur exactly once: include enough surrounding lines to make it unique. Goes through the compile gate.',
  args: z.object({ path: Path, old_text: z.string().min(1).max(200_000), new_text: z.string().max(200_000) }),
  async execute({ path, old_text, new_text }, env) {
    if (old_text === new_text) return { ok: false, text: 'old_text and new_text are identical: nothing to change.' };
    const content = await env.ctx.workspace.readFile(path);
    const count = countOccurrences(content, old_text);
    if (count === 0) {
      return {
        ok: false,
        text: `old_text was not found in ${path}. Read the file again and copy the text exactly (without the "N│ " line prefixes, with the same indentation).`,
      };
    }
    if (count > 1) {
      return { ok: false, text: `old_text occurs ${count} times in ${path}; it must occur exactly once. Include more surrounding lines.` };
    }
    return applyAndDescribe({ kind: 'replace', file: path, oldText: old_text, newText: new_text }, env);
  },
});

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  description:
    'Apply a unified diff (as produced by `git diff`, paths relative to the repository root with a/ and b/ prefixes). Goes through the compile gate.',
  args: z.object({ patch: z.string().min(1).max(200_000) }),
  async execute({ patch }, env) {
    return applyAndDescribe({ kind: 'diff', diff: patch.endsWith('\n') ? patch : `${patch}\n` }, env);
  },
});

export const createFileTool = defineTool({
  name: 'create_file',
  description: 'Create a new file with the given content. Fails if the file exists. Goes through the compile gate.',
  args: z.object({ path: Path, content: z.string().max(500_000) }),
  async execute({ path, content }, env) {
    return applyAndDescribe({ kind: 'create', file: path, content }, env);
  },
});

export const deleteFileTool = defineTool({
  name: 'delete_file',
  description: 'Delete a file. Goes through the compile gate. Deleting tests is never an acceptable fix.',
  args: z.object({ path: Path }),
  async execute({ path }, env) {
    return applyAndDescribe({ kind: 'delete', file: path }, env);
  },
});

export const buildTool = defineTool({
  name: 'build',
  description: "Run the repository's build command on the current workspace.",
  args: z.object({}),
  async execute(_args, { ctx, fence, maxOutputChars }) {
    const result = await ctx.gates.build();
    const ok = result.exitCode === 0 && !result.timedOut;
    const status = result.timedOut ? 'timed out' : `exit code ${result.exitCode ?? result.signal}`;
    const output = result.output
      ? `\n${fence.wrap('build output (tail)', cutText(result.output, { maxChars: maxOutputChars, keep: 'tail', hint: 'use read_last_log with grep' }))}`
      : '';
    return { ok, text: `Build ${ok ? 'succeeded' : 'FAILED'} (${status}, ${result.durationMs} ms).${output}` };
  },
});

export const runTestsTool = defineTool({
  name: 'run_tests',
  description: 'Run the failing target tests on the current workspace and report each one.',
  args: z.object({}),
  async execute(_args, { ctx, fence, maxOutputChars }) {
    const green = await ctx.gates.green();
    return { ok: green.verdict.passed, text: describeTestRun(green, fence, maxOutputChars) };
  },
});

export const readLastLogTool = defineTool({
  name: 'read_last_log',
  description: 'Read the output of the last build or test command: its last lines, or only the lines containing a string.',
  args: z.object({
    tail_lines: z.number().int().min(1).max(2000).default(200),
    grep: z.string().min(1).max(200).optional().describe('keep only lines containing this literal string'),
  }),
  async execute({ tail_lines, grep }, { ctx, fence, maxOutputChars }) {
    const log = ctx.workspace.lastLog();
    if (!log) return { ok: true, text: 'The log is empty: no command has run yet, or the last one printed nothing.' };
    let lines = log.split('\n');
    if (grep !== undefined) lines = lines.filter((l) => l.includes(grep));
    const total = lines.length;
    const shown = lines.slice(-tail_lines);
    const note = total > shown.length ? `[${total - shown.length} earlier lines not shown; raise tail_lines or use grep]\n` : '';
    const text = cutText(shown.join('\n'), { maxChars: maxOutputChars, keep: 'tail', hint: 'use grep to narrow' });
    return { ok: true, text: note + fence.wrap(`last command log${grep ? ' (filtered)' : ''}`, text || '(no matching lines)') };
  },
});

export const finishTool = defineTool({
  name: 'finish',
  description: 'Declare the fix done, with a short summary of the root cause and the fix. The target tests are rerun first; if they fail you must continue.',
  args: z.object({ summary: z.string().min(1).max(4000) }),
  async execute({ summary }, { ctx, fence, maxOutputChars }) {
    const green = await ctx.gates.green();
    if (green.verdict.passed) return { ok: true, finish: { passed: true, summary }, text: 'Target tests pass. Done.' };
    return {
      ok: false,
      finish: { passed: false, summary },
      text: `finish refused: the target tests do not pass yet.\n${describeTestRun(green, fence, maxOutputChars)}`,
    };
  },
});

export function createDefaultTools(): AgentTool[] {
  return [
    readFileTool,
    listDirTool,
    searchCodeTool,
    editFileTool,
    applyPatchTool,
    createFileTool,
    deleteFileTool,
    buildTool,
    runTestsTool,
    readLastLogTool,
    finishTool,
  ] as AgentTool[];
}

/** The tools as the chat-completions API wants them (JSON Schema from the zod schemas). */
export function toOpenAiTools(tools: AgentTool[]): ChatCompletionTool[] {
  return tools.map((tool) => {
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.args, { io: 'input' }) as Record<string, unknown>;
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
  });
}

export type ToolCallOutcome = { kind: 'malformed'; text: string; args?: unknown } | { kind: 'executed'; args: unknown; observation: ToolObservation };

/**
 * Parses, validates and runs one tool call. Malformed calls (bad JSON, unknown
 * tool, invalid arguments) are reported, not thrown; an error while executing
 * (a refused path, a missing file) becomes a failed observation.
 */
export async function runToolCall({
  tools,
  name,
  rawArguments,
  env,
}: {
  tools: AgentTool[];
  name: string;
  rawArguments: string;
  env: ToolEnv;
}): Promise<ToolCallOutcome> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    return { kind: 'malformed', text: `Unknown tool "${name.slice(0, 80)}". Available tools: ${tools.map((t) => t.name).join(', ')}.` };
  }
  let json: unknown;
  try {
    json = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch (error) {
    return {
      kind: 'malformed',
      text: `The arguments of ${name} are not valid JSON (${(error as Error).message}). Send a JSON object matching the tool's schema.`,
    };
  }
  const parsed = tool.args.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `- ${i.path.join('.') || '(arguments)'}: ${i.message}`).join('\n');
    return { kind: 'malformed', args: json, text: `Invalid arguments for ${name}:\n${issues}\nCorrect them and call the tool again.` };
  }
  try {
    return { kind: 'executed', args: parsed.data, observation: await tool.execute(parsed.data, env) };
  } catch (error) {
    const message = cutText((error as Error)?.message ?? String(error), { maxChars: 2000, hint: 'try a narrower request' });
    return { kind: 'executed', args: parsed.data, observation: { ok: false, text: `${name} failed: ${env.fence.wrap('error message', message)}` } };
  }
}
