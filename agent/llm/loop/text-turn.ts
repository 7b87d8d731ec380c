import type { PolicyOutcome } from '../../types';
import type { ChatResult, ToolCallRequest } from '../client';
import { describeAction, parseTextReply, runTextAction } from '../text-protocol';
import type { LoopState } from './state';
import { act, malformed, noAction } from './steps';

// A turn in the text protocol: every action of the reply runs in order
// through the same tools and gates as a tool call would, and the results go
// back in one user message.

/** Runs the reply's actions; returns the outcome when one of them finished patched. */
export async function textTurn(state: LoopState, content: string, finishReason: ChatResult['finishReason'] = null): Promise<PolicyOutcome | undefined> {
  const { actions, problems } = parseTextReply(content);
  if (actions.length === 0 && problems.length === 0) return noAction(state, { content, finishReason });
  state.consecutiveText = 0;
  const results: string[] = [];
  let n = 0;
  for (const problem of problems) {
    n++;
    await act(state, {
      id: `text-${state.modelCalls}-${n}`,
      name: '(unreadable action)',
      argumentsText: '',
      run: async () => ({ malformed: true, observation: { ok: false, text: problem } }),
    });
    results.push(`### ${n}. (not understood)\n${problem}`);
    malformed(state, problem);
  }
  let outcome: PolicyOutcome | undefined;
  for (const action of actions) {
    n++;
    const ran = await act(state, {
      id: `text-${state.modelCalls}-${n}`,
      name: action.kind === 'edit' ? 'search_replace' : action.name,
      argumentsText:
        action.kind === 'edit' ? JSON.stringify({ path: action.path, search: action.search, replace: action.replace }) : JSON.stringify(action.args),
      run: () => runTextAction(action, { tools: state.tools, env: state.env }),
    });
    results.push(`### ${n}. ${describeAction(action)}\n${ran.observation.text}`);
    if (ran.malformed) malformed(state, ran.observation.text);
    else if (problems.length === 0) state.consecutiveMalformed = 0;
    if (ran.observation.finish?.passed) {
      outcome = { status: 'patched', usage: { ...state.usage }, notes: ran.observation.finish.summary };
      break;
    }
  }
  state.messages.push({ role: 'user', content: `Results of your actions:\n\n${results.join('\n\n')}` });
  state.observationIndexes.push(state.messages.length - 1);
  return outcome;
}

/** A model told to write text may still send tool calls: the reply's text with each call as the text action it stands for. */
export function replyAsText(answer: Pick<ChatResult, 'content' | 'toolCalls'>): string {
  return [answer.content ?? '', ...answer.toolCalls.map((c) => toolCallAsTextLine(c))].filter(Boolean).join('\n');
}

/** A native call sent in text mode, as the text action it stands for (unknown ones become an unreadable line). */
export function toolCallAsTextLine(call: ToolCallRequest): string {
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
  } catch {
    return '';
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (call.name) {
    case 'read_file':
      return `READ ${str(args.path)}${args.start_line ? ` ${Number(args.start_line)}-${Number(args.end_line ?? Number(args.start_line) + 399)}` : ''}`;
    case 'list_dir':
      return `LIST ${str(args.path) || '.'}`;
    case 'search_code':
      return `SEARCH_CODE ${str(args.query)}`;
    case 'run_tests':
      return 'RUN_TESTS';
    case 'build':
      return 'BUILD';
    case 'read_last_log':
      return `LOG ${str(args.grep)}`.trimEnd();
    case 'finish':
      return `FINISH ${str(args.summary)}`;
    case 'edit_file':
      return `${str(args.path)}\n<<<<<<< SEARCH\n${str(args.old_text)}\n=======\n${str(args.new_text)}\n>>>>>>> REPLACE`;
    default:
      return '';
  }
}
