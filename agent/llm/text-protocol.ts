// The text edit protocol, for models without reliable tool calling (many
// vLLM, llama.cpp and Ollama models): the model writes its edits as
// search/replace blocks and its other actions as one-line commands in a
// plain reply, and gets the results back in the next user message.
//
//   src/cart.ts
//   <<<<<<< SEARCH
//   const free = subtotalCents > threshold;
//   =======
//   const free = subtotalCents >= threshold;
//   >>>>>>> REPLACE
//
//   READ src/cart.ts 20-60 | LIST src | SEARCH_CODE text | BUILD | RUN_TESTS | LOG [text] | FINISH summary
//
// Parsing is forgiving where models are sloppy (code fences around a block,
// the path in backticks or bold or "File:", the path on the fence line,
// 5-9 marker characters, CRLF, trailing spaces, indentation that differs from
// the file) and strict where a guess could edit the wrong code: a SEARCH that
// matches nowhere or more than once is answered with what to do, never
// applied. Every action runs through the same tools (agent/llm/tools.ts) and
// therefore the same gates as a native tool call: workspace confinement,
// the compile gate with rollback, the argument limits.
import type { ToolObservation, ToolEnv, AgentTool } from './tools';
import { applyAndDescribe, runToolCall } from './tools';

/** Cap on one block's SEARCH or REPLACE text (the same order as create_file's content limit). */
export const MAX_BLOCK_CHARS = 200_000;

export type TextAction =
  | { kind: 'edit'; path: string; search: string; replace: string; line: number }
  | { kind: 'tool'; name: string; args: Record<string, unknown>; line: number; source: string };

export interface ParsedReply {
  actions: TextAction[];
  /** what could not be read, each a message for the model */
  problems: string[];
}

const SEARCH_MARK = /^\s*<{5,9}\s*SEARCH\s*$/;
const DIVIDER = /^\s*={5,9}\s*$/;
const REPLACE_MARK = /^\s*>{5,9}\s*REPLACE\s*$/;
const FENCE = /^\s*(```+|~~~+)(.*)$/;

/** A path as a model writes it: `src/a.ts`, **src/a.ts**, File: src/a.ts, # src/a.ts:, "src/a.ts". */
function cleanPath(raw: string): string | undefined {
  let text = raw.trim();
  text = text.replace(/^#+\s*/, '').replace(/^(?:[-*]\s+)/, '');
  text = text.replace(/^(?:file(?:name)?|path)\s*[:=]\s*/i, '');
  text = text
    .replace(/^[*_`"']+|[*_`"']+$/g, '')
    .replace(/:$/, '')
    .replace(/^[*_`"']+|[*_`"']+$/g, '');
  text = text.trim();
  if (!text || /\s/.test(text) || text.length > 1024) return undefined;
  if (!/[./]/.test(text)) return undefined;
  return text;
}

/** The path for a block: the nearest line above the marker that is not blank or a fence opener (or the fence's info string). */
function pathBefore(lines: string[], markerIndex: number): string | undefined {
  for (let i = markerIndex - 1; i >= 0 && i >= markerIndex - 4; i--) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const fence = FENCE.exec(line);
    if (fence) {
      // ```ts src/a.ts  or  ```src/a.ts
      const info = fence[2]!.trim().split(/\s+/).reverse();
      const fromInfo =
        info.map((token) => cleanPath(token)).find((p) => p && p.includes('/')) ?? info.map((t) => cleanPath(t)).find((p) => p && /\.\w+$/.test(p));
      if (fromInfo) return fromInfo;
      continue;
    }
    return cleanPath(line);
  }
  return undefined;
}

interface Command {
  name: string;
  parse(rest: string, following: string[]): Record<string, unknown> | string;
}

/** READ path [start-end] | READ path:start-end */
function parseRead(rest: string): Record<string, unknown> | string {
  const m = /^(\S+?)(?::(\d+)(?:-(\d+))?)?(?:\s+(\d+)(?:\s*-\s*(\d+))?)?\s*$/.exec(rest.trim());
  if (!m) return 'READ needs a path and optionally a line range: READ src/a.ts 10-40';
  const path = cleanPath(m[1]!) ?? m[1]!;
  const start = m[2] ?? m[4];
  const end = m[3] ?? m[5];
  return { path, ...(start ? { start_line: Number(start) } : {}), ...(end ? { end_line: Number(end) } : {}) };
}

const COMMANDS: Record<string, Command> = {
  READ: { name: 'read_file', parse: parseRead },
  LIST: { name: 'list_dir', parse: (rest) => ({ path: cleanPath(rest) ?? (rest.trim() || '.') }) },
  SEARCH_CODE: { name: 'search_code', parse: (rest) => (rest.trim() ? { query: rest.trim() } : 'SEARCH_CODE needs the text to look for') },
  BUILD: { name: 'build', parse: () => ({}) },
  RUN_TESTS: { name: 'run_tests', parse: () => ({}) },
  LOG: { name: 'read_last_log', parse: (rest) => (rest.trim() ? { grep: rest.trim() } : {}) },
  FINISH: {
    name: 'finish',
    parse: (rest, following) => {
      const summary = [rest.trim(), ...following].join('\n').trim();
      return summary ? { summary: summary.slice(0, 4000) } : 'FINISH needs a short summary of the root cause and the fix';
    },
  },
};

const COMMAND_LINE = /^\s*(?:[-*>]\s+)?`?(READ|LIST|SEARCH_CODE|BUILD|RUN_TESTS|LOG|FINISH)\b:?(.*?)`?\s*$/;

/**
 * Reads a reply: search/replace blocks (in or out of code fences) and command
 * lines (outside code fences), in the order they appear.
 */
export function parseTextReply(content: string): ParsedReply {
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  const actions: TextAction[] = [];
  const problems: string[] = [];
  let inFence = false;
  let blockNo = 0;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (SEARCH_MARK.test(line)) {
      blockNo++;
      const path = pathBefore(lines, i);
      let divider = -1;
      let end = -1;
      for (let j = i + 1; j < lines.length; j++) {
        if (divider === -1 && DIVIDER.test(lines[j]!)) divider = j;
        else if (divider !== -1 && REPLACE_MARK.test(lines[j]!)) {
          end = j;
          break;
        } else if (SEARCH_MARK.test(lines[j]!)) break;
      }
      const where = `search/replace block ${blockNo}${path ? ` for ${path}` : ''}`;
      if (divider === -1 || end === -1) {
        problems.push(`${where} is not closed: it needs a "=======" line and then a ">>>>>>> REPLACE" line. Nothing of it was applied.`);
        // skip to the next marker so one broken block does not swallow the others
        const next = lines.findIndex((l, j) => j > i && SEARCH_MARK.test(l));
        i = next === -1 ? lines.length : next - 1;
        continue;
      }
      const search = lines.slice(i + 1, divider).join('\n');
      const replace = lines.slice(divider + 1, end).join('\n');
      if (!path) problems.push(`${where} has no file path: write the path alone on the line just before "<<<<<<< SEARCH".`);
      else if (search.length > MAX_BLOCK_CHARS || replace.length > MAX_BLOCK_CHARS) {
        problems.push(`${where} is larger than ${MAX_BLOCK_CHARS} characters; split the edit into smaller blocks.`);
      } else actions.push({ kind: 'edit', path, search, replace, line: i + 1 });
      i = end;
      // a fence opened before the block closes after it
      if (inFence) inFence = false;
      if (i + 1 < lines.length && FENCE.test(lines[i + 1]!) && FENCE.exec(lines[i + 1]!)![2]!.trim() === '') i++;
      continue;
    }
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    if (DIVIDER.test(line) || REPLACE_MARK.test(line)) {
      if (REPLACE_MARK.test(line)) problems.push(`a ">>>>>>> REPLACE" line at line ${i + 1} has no "<<<<<<< SEARCH" before it; nothing there was applied.`);
      continue;
    }
    const m = COMMAND_LINE.exec(line);
    if (!m) continue;
    const verb = m[1]!;
    const command = COMMANDS[verb]!;
    // FINISH takes the rest of the reply as its summary
    const following = verb === 'FINISH' ? lines.slice(i + 1).filter((l) => !FENCE.test(l)) : [];
    const parsed = command.parse(m[2] ?? '', following);
    if (typeof parsed === 'string') problems.push(`line ${i + 1}: ${parsed}.`);
    else actions.push({ kind: 'tool', name: command.name, args: parsed, line: i + 1, source: line.trim().slice(0, 200) });
    if (verb === 'FINISH') break;
  }
  return { actions, problems };
}

/** Whether a reply uses the text protocol at all (blocks or command lines). */
export function looksLikeTextProtocol(content: string | null): boolean {
  if (!content) return false;
  return content.split(/\r?\n/).some((l) => SEARCH_MARK.test(l));
}

/**
 * A tool call written into the text instead of sent as one (a server without
 * a tool-call parser, a template that leaks the model's own markup).
 */
export function looksLikeToolCallText(content: string | null): boolean {
  if (!content) return false;
  return /<tool_call>|<\|tool_call\|>|<\|python_tag\|>|\[TOOL_CALLS\]|^\s*\{\s*"name"\s*:\s*"[a-z_]+"\s*,\s*"(?:arguments|parameters)"\s*:/m.test(content);
}

// ───── matching a SEARCH against the file ─────

interface Match {
  /** 0-based first and last line of the file that matched */
  start: number;
  end: number;
  /** how lenient the match had to be */
  level: 'exact' | 'trailing-space' | 'indentation';
}

function leadingSpace(line: string): string {
  return /^\s*/.exec(line)![0];
}

function findMatches(fileLines: string[], searchLines: string[], level: Match['level']): Match[] {
  const norm = (l: string) => (level === 'exact' ? l : level === 'trailing-space' ? l.trimEnd() : l.trim());
  const wanted = searchLines.map(norm);
  const matches: Match[] = [];
  for (let i = 0; i + wanted.length <= fileLines.length; i++) {
    let ok = true;
    for (let k = 0; k < wanted.length; k++) {
      if (norm(fileLines[i + k]!) !== wanted[k]) {
        ok = false;
        break;
      }
    }
    if (ok) matches.push({ start: i, end: i + wanted.length - 1, level });
  }
  return matches;
}

/** The replacement re-indented by what the file's lines have that the SEARCH lines lacked (or the reverse). */
function reindent(replaceLines: string[], fileLines: string[], searchLines: string[], match: Match): string[] {
  if (match.level !== 'indentation') return replaceLines;
  const k = searchLines.findIndex((l) => l.trim() !== '');
  if (k === -1) return replaceLines;
  const fileIndent = leadingSpace(fileLines[match.start + k]!);
  const searchIndent = leadingSpace(searchLines[k]!);
  if (fileIndent.startsWith(searchIndent)) {
    const extra = fileIndent.slice(searchIndent.length);
    return replaceLines.map((l) => (l.trim() === '' ? l : extra + l));
  }
  if (searchIndent.startsWith(fileIndent)) {
    const extra = searchIndent.slice(fileIndent.length);
    return replaceLines.map((l) => (l.startsWith(extra) ? l.slice(extra.length) : l));
  }
  return replaceLines;
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}

export type PlannedEdit =
  | { ok: true; edit: { kind: 'replace'; file: string; oldText: string; newText: string } | { kind: 'create'; file: string; content: string }; note?: string }
  | { ok: false; text: string };

/**
 * Turns a block into the edit the gates apply: the matched lines of the file
 * (widened by neighbouring lines until that text occurs once, as the
 * gate's replace requires) and their replacement. Pure: `content` is the
 * file's text, undefined when it does not exist.
 */
export function planSearchReplace({
  path,
  search,
  replace,
  content,
}: {
  path: string;
  search: string;
  replace: string;
  content: string | undefined;
}): PlannedEdit {
  if (search.trim() === '') {
    if (content === undefined)
      return { ok: true, edit: { kind: 'create', file: path, content: replace.endsWith('\n') || replace === '' ? replace : `${replace}\n` } };
    return {
      ok: false,
      text: `The SEARCH part for ${path} is empty, but ${path} exists: an empty SEARCH only creates a new file. Copy the lines to change into SEARCH.`,
    };
  }
  if (content === undefined) {
    return { ok: false, text: `${path} does not exist. Check the path (LIST the folder); to create a file, leave SEARCH empty.` };
  }
  const eol = content.includes('\r\n') ? '\r\n' : '\n';
  const fileLines = content.split(/\r?\n/);
  // a final newline gives split() an empty last element that no block means
  const searchLines = search.split('\n');
  while (searchLines.length > 1 && searchLines.at(-1)!.trim() === '') searchLines.pop();
  while (searchLines.length > 1 && searchLines[0]!.trim() === '') searchLines.shift();
  let matches: Match[] = [];
  for (const level of ['exact', 'trailing-space', 'indentation'] as const) {
    matches = findMatches(fileLines, searchLines, level);
    if (matches.length > 0) break;
  }
  if (matches.length === 0) {
    return {
      ok: false,
      text: `The SEARCH text was not found in ${path} (not even ignoring indentation and trailing spaces), so nothing was changed. READ the file again and copy the lines exactly, without the "N│ " line prefixes.`,
    };
  }
  if (matches.length > 1) {
    const at = matches
      .slice(0, 10)
      .map((m) => m.start + 1)
      .join(', ');
    return {
      ok: false,
      text: `The SEARCH text occurs ${matches.length} times in ${path} (at lines ${at}), so nothing was changed. Add a few surrounding lines to SEARCH so it matches exactly one place.`,
    };
  }
  const match = matches[0]!;
  const replaceLines = reindent(replace === '' ? [] : replace.split('\n'), fileLines, searchLines, match);
  // widen to neighbouring lines until the old text is unique in the file
  let start = match.start;
  let end = match.end;
  const textOf = (a: number, b: number) => fileLines.slice(a, b + 1).join(eol);
  let oldText = textOf(start, end);
  let before: string[] = [];
  let after: string[] = [];
  while (countOccurrences(content, oldText) !== 1 && (start > 0 || end < fileLines.length - 1)) {
    if (start > 0) before = [fileLines[--start]!, ...before];
    if (end < fileLines.length - 1) after = [...after, fileLines[++end]!];
    oldText = textOf(start, end);
  }
  if (countOccurrences(content, oldText) !== 1)
    return { ok: false, text: `The SEARCH text in ${path} could not be told apart from the rest of the file; add surrounding lines.` };
  const newText = [...before, ...replaceLines, ...after].join(eol);
  if (oldText === newText) return { ok: false, text: `SEARCH and REPLACE are the same for ${path}: nothing to change.` };
  const note =
    match.level === 'exact'
      ? undefined
      : `(SEARCH matched lines ${match.start + 1}-${match.end + 1} of ${path} only when ${match.level === 'indentation' ? 'ignoring indentation; REPLACE was re-indented to match' : 'ignoring trailing spaces'}.)`;
  return { ok: true, edit: { kind: 'replace', file: path, oldText, newText }, ...(note ? { note } : {}) };
}

/** Applies one block through the gates; a miss is an observation for the model, never a throw. */
export async function applySearchReplace(action: Extract<TextAction, { kind: 'edit' }>, env: ToolEnv): Promise<ToolObservation> {
  let content: string | undefined;
  try {
    content = await env.ctx.workspace.readFile(action.path);
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    // a path outside the workspace, into .git or a binary file is refused here, as for edit_file
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      return { ok: false, text: `The edit of ${action.path} was refused: ${env.fence.wrap('error message', message.slice(0, 1000))}` };
    content = undefined;
  }
  const plan = planSearchReplace({ path: action.path, search: action.search, replace: action.replace, content });
  if (!plan.ok) return { ok: false, text: plan.text };
  const observation = await applyAndDescribe(plan.edit, env);
  return plan.note ? { ...observation, text: `${observation.text}\n${plan.note}` } : observation;
}

/** Runs one parsed action: a block through applySearchReplace, a command through its tool. */
export async function runTextAction(
  action: TextAction,
  { tools, env }: { tools: AgentTool[]; env: ToolEnv },
): Promise<{ name: string; arguments: string; malformed: boolean; observation: ToolObservation }> {
  if (action.kind === 'edit') {
    const args = JSON.stringify({ path: action.path, search: action.search, replace: action.replace });
    try {
      return { name: 'search_replace', arguments: args, malformed: false, observation: await applySearchReplace(action, env) };
    } catch (error) {
      return {
        name: 'search_replace',
        arguments: args,
        malformed: false,
        observation: {
          ok: false,
          text: `The edit of ${action.path} failed: ${env.fence.wrap('error message', ((error as Error).message ?? String(error)).slice(0, 1000))}`,
        },
      };
    }
  }
  const args = JSON.stringify(action.args);
  const outcome = await runToolCall({ tools, name: action.name, rawArguments: args, env });
  if (outcome.kind === 'malformed') return { name: action.name, arguments: args, malformed: true, observation: { ok: false, text: outcome.text } };
  return { name: action.name, arguments: args, malformed: false, observation: outcome.observation };
}

/** How an action is named in the results message. */
export function describeAction(action: TextAction): string {
  return action.kind === 'edit' ? `search/replace in ${action.path}` : action.source;
}

export const TEXT_PROTOCOL_GUIDE = [
  'You act by writing plain text; there are no tool calls. Each reply may hold any number of actions, done in order:',
  '',
  'To edit a file, write its path alone on a line, then a search/replace block:',
  'src/example.ts',
  '<<<<<<< SEARCH',
  '  const limit = items.length - 1;',
  '=======',
  '  const limit = items.length;',
  '>>>>>>> REPLACE',
  '- SEARCH must copy whole lines of the current file exactly (without the "N│ " prefixes shown by READ) and match one place only; add surrounding lines if needed. Keep blocks small.',
  '- To create a file, leave SEARCH empty. Never delete or rename files this way.',
  '',
  'Other actions, each alone on its own line, outside code fences:',
  'READ <path> [<start>-<end>]   read a file or a line range',
  'LIST <folder>                 list a folder',
  'SEARCH_CODE <text>            find a literal string in the repository',
  'BUILD                         run the build',
  'RUN_TESTS                     run the failing target tests',
  'LOG [<text>]                  the last command output, or its lines containing <text>',
  'FINISH <summary>              declare the fix done (only after RUN_TESTS passes); the rest of the reply is the summary',
  '',
  'The results come back in the next message. Every edit passes a compile gate; a rejected edit is rolled back and you get the diagnostics.',
].join('\n');
