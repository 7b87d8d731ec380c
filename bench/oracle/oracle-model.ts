/**
 * TEST DOUBLE — the oracle: a stand-in for a perfect model that already knows
 * the right fix.
 *
 * It decides nothing from the code. It is handed the right fix as data (a
 * unified diff against the head revision, non-test files) and answers the
 * agent the way a real model would, with the product's own tools: first
 * `read_file` of every file the fix touches, then one `apply_patch` with the
 * fix, then `finish`. When the product refuses the edit (the compile gate) or
 * `finish` (the target tests fail), the oracle has nothing better and answers
 * in words, so the loop ends the way it ends for a model that gives up.
 *
 * The wire protocol is e2e/doubles/scripted-model-server.ts's (a reactive
 * script: one step function called for every request), so the real `openai`
 * SDK talks to it over real HTTP, JSON or `stream: true` server-sent events
 * with tool-call deltas and a usage chunk.
 */
import { escapeHtml } from '../../lib/html/sanitize';
import { parseUnifiedDiff, diffFilePath } from '../../agent/edits/diff';
import {
  startScriptedModelServer,
  latestToolResults,
  type Dialect,
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptStep,
  type StepFn,
} from '../../e2e/doubles/scripted-model-server';

export interface OracleFix {
  /** the right fix: a unified diff (git diff, a/ and b/ prefixes) that applies to the head revision */
  diff: string;
  /** what the oracle says in `finish` */
  summary?: string;
}

/** The files a fix diff touches, as the model would name them to read_file. */
export function fixFiles(diff: string): string[] {
  return [...new Set(parseUnifiedDiff(diff).map(diffFilePath))];
}

/** The turns the oracle has already taken in this conversation (the agent sends its whole history every time). */
function turnsTaken(request: RecordedRequest): number {
  return (request.body?.messages ?? []).filter((m) => m.role === 'assistant').length;
}

/**
 * The oracle's step function: read → patch → finish (then the summary it is
 * asked for), judged only on what
 * the agent sent back. A conversation started again (the regression suite
 * refused the fix, and the policy gets another turn) starts again from the
 * reads, and proposes the same right fix: that is all the oracle knows.
 */
export function oracleScript(fix: OracleFix): StepFn {
  const files = fixFiles(fix.diff);
  if (files.length === 0) throw new Error('the oracle fix touches no file');
  const say = (text: string): ScriptStep => ({ kind: 'reply', text, finishReason: 'stop' });
  return (request) => {
    // the one call without tools is the root-cause summary after the fix (agent/assemble.ts)
    if (!request.body?.tools?.length) return say(`<p>${escapeHtml(fix.summary ?? 'Restored the intended behaviour.')}</p>`);
    const turn = turnsTaken(request);
    const results = latestToolResults(request).map((r) => r.content);
    if (turn === 0) {
      return {
        kind: 'reply',
        text: `The fix belongs in ${files.join(', ')}; reading ${files.length === 1 ? 'it' : 'them'} first.`,
        toolCalls: files.map((path) => ({ name: 'read_file', arguments: { path } })),
      };
    }
    if (turn === 1) return { kind: 'reply', text: 'Applying the fix.', toolCalls: [{ name: 'apply_patch', arguments: { patch: fix.diff } }] };
    if (turn === 2) {
      if (!/passed the compile gate/.test(results.join('\n'))) return say('The edit was refused and I know no other fix.');
      return { kind: 'reply', toolCalls: [{ name: 'finish', arguments: { summary: fix.summary ?? 'Restored the intended behaviour.' } }] };
    }
    return say('I know no other fix.');
  };
}

export interface OracleModel {
  /** the base URL a model setting names (…/v1) */
  url: string;
  server: ScriptedModelServer;
  close(): Promise<void>;
}

/** The oracle behind a real HTTP server, in the given wire dialect (default openai). */
export async function startOracleModel(fix: OracleFix, opts: { dialect?: Dialect; apiKey?: string } = {}): Promise<OracleModel> {
  const server = await startScriptedModelServer({
    script: oracleScript(fix),
    dialect: opts.dialect ?? 'openai',
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
    model: 'oracle',
  });
  return { url: server.url, server, close: () => server.close() };
}
