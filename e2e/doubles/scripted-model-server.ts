/**
 * TEST DOUBLE — a scripted stand-in for a hosted OpenAI-compatible chat API.
 *
 * It is not a model and never decides anything: it answers each
 * `POST /v1/chat/completions` with the next step of a script (a reply with
 * text and/or tool calls, a malformed tool call, an HTTP error with
 * OpenAI-shaped body and Retry-After, a hang, a raw body). It speaks the real
 * wire protocol — JSON responses and `stream: true` server-sent events with
 * tool-call deltas and a usage chunk — so the real `openai` SDK talks to it
 * over real HTTP, and it records every request it received (including whether
 * the client closed the connection before the answer).
 *
 * Dialects (`dialect`), each with the wire shapes flowfix's client must read
 * (agent/llm/dialects.ts):
 *   openai    POST /v1/chat/completions, `Authorization: Bearer`, stream usage only
 *             when stream_options.include_usage asks
 *   azure     POST /openai/deployments/<deployment>/chat/completions?api-version=…,
 *             `api-key` header (a Bearer header is refused), prompt and content filter
 *             results in answers, a first stream chunk with no choices, usage in a
 *             stream only when asked and only from api-version 2024-09-01 (older
 *             versions refuse stream_options), the underlying model's name in `model`
 *   vllm      /v1, Bearer when a key is set, stream usage only when asked; with
 *             `toolsUnsupported` the 400 vLLM gives without a tool-call parser
 *   ollama    /v1 under the server root, no auth; a streamed tool call arrives whole in
 *             one chunk without an `index`; `toolsUnsupported`: the model has no tools
 *   llamacpp  /v1 (and /chat/completions), Bearer when a key is set; streamed chunks
 *             never carry `usage`, the last one carries `timings` (prompt_n, cache_n,
 *             predicted_n); `toolsUnsupported`: the server runs without --jinja
 *
 * A reply step may carry `expect`: text the latest results sent back to the
 * model (tool messages, or the user message of the text protocol) must
 * contain. When they do not, the step answers 400 `scripted expectation
 * failed` instead, so a recorded conversation stops as soon as the agent saw
 * something else than when it was recorded.
 *
 * In-process:  const server = await startScriptedModelServer({ script: [...], dialect })
 *              ... server.url (the base URL a model setting names: …/v1, or the
 *              server root for azure and ollama), server.requests, await server.close()
 * CLI:         tsx e2e/doubles/scripted-model-server.ts --port 0 --script FILE.json [--dialect D]
 *              prints `SCRIPTED_MODEL_SERVER_URL=<url>`.
 *              GET /__requests returns the recorded requests (no auth header, no key).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';

// ───── script ─────

const ToolCallSchema = z.object({
  /** a string is sent as-is (use it for malformed JSON); anything else is JSON-encoded */
  arguments: z.unknown().optional(),
  name: z.string(),
  id: z.string().optional(),
});

const UsageSchema = z.object({ promptTokens: z.number().int().min(0), completionTokens: z.number().int().min(0) });

/** What the latest results sent to the model must (not) contain before this step answers. */
const ExpectSchema = z.object({
  resultIncludes: z.array(z.string()).default([]),
  resultExcludes: z.array(z.string()).default([]),
});

const ReplyStepSchema = z.object({
  kind: z.literal('reply'),
  expect: ExpectSchema.optional(),
  text: z.string().optional(),
  toolCalls: z.array(ToolCallSchema).optional(),
  finishReason: z.enum(['stop', 'tool_calls', 'length', 'content_filter']).optional(),
  usage: UsageSchema.optional(),
  delayMs: z.number().int().min(0).optional(),
  /** streamed answers only: send the headers and this many chunks, then go silent (a stalled stream) */
  stallAfterChunks: z.number().int().min(0).optional(),
});

const ErrorStepSchema = z.object({
  kind: z.literal('error'),
  status: z.number().int().min(400).max(599),
  /** seconds, sent as the Retry-After header */
  retryAfter: z.number().min(0).optional(),
  message: z.string().optional(),
  type: z.string().optional(),
  code: z.string().optional(),
  delayMs: z.number().int().min(0).optional(),
});

/** Never answers; the request stays open until the client gives up or the server closes. */
const HangStepSchema = z.object({ kind: z.literal('hang') });

/** Any status and body, e.g. a proxy's HTML error page or truncated JSON. */
const RawStepSchema = z.object({
  kind: z.literal('raw'),
  status: z.number().int().min(100).max(599).default(200),
  contentType: z.string().default('application/json'),
  body: z.string(),
  delayMs: z.number().int().min(0).optional(),
});

export const ScriptStepSchema = z.discriminatedUnion('kind', [ReplyStepSchema, ErrorStepSchema, HangStepSchema, RawStepSchema]);
export type ScriptStep = z.input<typeof ScriptStepSchema>;
export type ScriptedToolCall = z.input<typeof ToolCallSchema>;

export const DIALECTS = ['openai', 'azure', 'vllm', 'ollama', 'llamacpp'] as const;
export type Dialect = (typeof DIALECTS)[number];

export const ScriptFileSchema = z.object({
  steps: z.array(ScriptStepSchema),
  /** what to do once every step was used: answer 500 (default), repeat the last step, or start over */
  whenExhausted: z.enum(['error', 'repeat-last', 'cycle']).default('error'),
});

/** A step computed from the request, so a script can react to tool results. */
export type StepFn = (request: RecordedRequest, info: { index: number; requests: RecordedRequest[] }) => ScriptStep | Promise<ScriptStep>;

export type Script = StepFn | Array<ScriptStep | StepFn> | { steps: Array<ScriptStep | StepFn>; whenExhausted?: 'error' | 'repeat-last' | 'cycle' };

// ───── recorded requests ─────

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  top_p?: number;
  [key: string]: unknown;
}

export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  receivedAt: number;
  /** parsed JSON body (undefined when it was not JSON) */
  body: ChatRequestBody | undefined;
  /** the Authorization header as received; kept in memory only, never served by /__requests */
  authorization: string | undefined;
  /** Azure's api-key header as received; in memory only, like `authorization` */
  apiKeyHeader: string | undefined;
  /** the query string's parameters (Azure's api-version) */
  query: Record<string, string>;
  /** Azure: the deployment named in the path */
  deployment?: string;
  /** which kind of step answered ('invalid' when the request itself was rejected) */
  step: ScriptStep['kind'] | 'invalid' | 'exhausted' | 'unauthorised' | 'expectation_failed' | 'tools_refused';
  /** the client closed the connection before the answer was complete */
  closedByClient: boolean;
  /** resolves when the connection for this request is closed, by either side */
  closed: Promise<void>;
}

export interface ScriptedModelServer {
  /** the base URL a model setting names for this dialect: …/v1, or the server root for azure and ollama */
  url: string;
  dialect: Dialect;
  port: number;
  requests: RecordedRequest[];
  /** resolves once at least `count` chat requests have arrived */
  waitForRequests(count: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

export interface StartOptions {
  script: Script;
  port?: number;
  host?: string;
  /** the wire dialect (default openai); see the header */
  dialect?: Dialect;
  /** when set, requests without the key get 401: `Authorization: Bearer <apiKey>`, Azure's `api-key: <apiKey>`; Ollama never checks */
  apiKey?: string;
  /** Azure: the deployments that exist (default: any) and the model name answers carry */
  azure?: { deployments?: string[]; modelName?: string };
  /** the server refuses requests that carry `tools` (vLLM without a tool-call parser, llama.cpp without --jinja, an Ollama model without tools) */
  toolsUnsupported?: boolean;
  /** model name echoed in responses when the request has none */
  model?: string;
  /** characters of content per SSE chunk */
  chunkSize?: number;
  /** reject requests whose tool calls were not all answered, as the hosted API does (default true) */
  strictToolProtocol?: boolean;
  onRequest?: (request: RecordedRequest) => void;
}

// ───── protocol helpers ─────

function errorBody({ message, type, code }: { message: string; type: string; code?: string | null }) {
  return JSON.stringify({ error: { message, type, param: null, code: code ?? null } });
}

function defaultErrorType(status: number): { type: string; code: string | null } {
  if (status === 429) return { type: 'rate_limit_error', code: 'rate_limit_exceeded' };
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}${Date.now().toString(36)}${(++idCounter).toString(36)}`;

interface BuiltReply {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function buildReply(step: z.output<typeof ReplyStepSchema>, body: ChatRequestBody, fallbackModel: string): BuiltReply {
  const toolCalls = (step.toolCalls ?? []).map((call) => ({
    id: call.id ?? nextId('call_'),
    type: 'function' as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    },
  }));
  const content = step.text ?? null;
  const promptTokens = step.usage?.promptTokens ?? estimateTokens(JSON.stringify(body.messages ?? []));
  const completionTokens =
    step.usage?.completionTokens ?? estimateTokens((content ?? '') + toolCalls.map((c) => c.function.name + c.function.arguments).join(''));
  return {
    id: nextId('chatcmpl-'),
    created: Math.floor(Date.now() / 1000),
    model: body.model || fallbackModel,
    content,
    toolCalls,
    finishReason: step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

const SAFE_FILTERS = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};
const PROMPT_FILTER_RESULTS = [{ prompt_index: 0, content_filter_results: SAFE_FILTERS }];

/** llama.cpp's timings: prompt_n counts only what its prompt cache did not hold (cache_n). */
function llamaTimings(usage: BuiltReply['usage']) {
  const cacheN = Math.floor(usage.prompt_tokens / 3);
  return {
    cache_n: cacheN,
    prompt_n: usage.prompt_tokens - cacheN,
    prompt_ms: 12.5,
    prompt_per_token_ms: 0.1,
    prompt_per_second: 10_000,
    predicted_n: usage.completion_tokens,
    predicted_ms: 40.2,
    predicted_per_token_ms: 2,
    predicted_per_second: 500,
  };
}

function completionJson(reply: BuiltReply, dialect: Dialect) {
  return {
    id: reply.id,
    object: 'chat.completion',
    created: reply.created,
    model: reply.model,
    ...(dialect === 'azure' ? { prompt_filter_results: PROMPT_FILTER_RESULTS, system_fingerprint: 'fp_azure' } : {}),
    ...(dialect === 'ollama' ? { system_fingerprint: 'fp_ollama' } : {}),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content,
          ...(dialect === 'openai' || dialect === 'azure' ? { refusal: null } : {}),
          ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
        ...(dialect === 'azure' ? { content_filter_results: SAFE_FILTERS } : {}),
      },
    ],
    usage: reply.usage,
    ...(dialect === 'llamacpp' ? { timings: llamaTimings(reply.usage) } : {}),
  };
}

function splitEvery(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/** The chunks of a streamed answer, in the order the dialect's server sends them. */
function streamChunks(reply: BuiltReply, { includeUsage, chunkSize, dialect }: { includeUsage: boolean; chunkSize: number; dialect: Dialect }) {
  const base = { id: reply.id, object: 'chat.completion.chunk', created: reply.created, model: reply.model };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) => ({
    ...base,
    choices: [
      {
        index: 0,
        delta,
        logprobs: null,
        finish_reason: finishReason,
        ...(dialect === 'azure' ? { content_filter_results: finishReason ? {} : SAFE_FILTERS } : {}),
      },
    ],
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const out: unknown[] = [];
  // Azure opens with the prompt's filter results and no choices
  if (dialect === 'azure') out.push({ id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: PROMPT_FILTER_RESULTS });
  out.push(chunk({ role: 'assistant', content: '', ...(dialect === 'openai' || dialect === 'azure' ? { refusal: null } : {}) }));
  for (const piece of splitEvery(reply.content ?? '', chunkSize)) out.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    if (dialect === 'ollama') {
      // the whole call in one chunk, with no index
      out.push(chunk({ tool_calls: [{ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }] }));
      return;
    }
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    // arguments arrive in pieces, as they do from the hosted API
    for (const piece of splitEvery(call.function.arguments, Math.max(1, Math.ceil(call.function.arguments.length / 3)))) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  // llama.cpp: no usage in any chunk, timings on the last one
  out.push(chunk({}, reply.finishReason, dialect === 'llamacpp' ? { timings: llamaTimings(reply.usage) } : {}));
  if (includeUsage) out.push({ ...base, choices: [], usage: reply.usage });
  return out;
}

/** The message each dialect's server gives when it cannot take `tools`. */
function toolsRefusal(dialect: Dialect, model: string): { status: number; message: string } {
  switch (dialect) {
    case 'vllm':
      return { status: 400, message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' };
    case 'llamacpp':
      return { status: 400, message: 'tools param requires --jinja flag' };
    case 'ollama':
      return { status: 400, message: `registry.ollama.ai/library/${model} does not support tools` };
    default:
      return { status: 400, message: `tools are not supported for the model ${model}` };
  }
}

/** The latest results sent to the model: tool messages after its last turn, or the last user message. */
function latestResultsText(body: ChatRequestBody): string {
  const messages = body.messages ?? [];
  const tools: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; i--) {
    const c = messages[i]!.content;
    tools.unshift(typeof c === 'string' ? c : JSON.stringify(c));
  }
  if (tools.length) return tools.join('\n');
  const last = messages.at(-1);
  return last?.role === 'user' ? (typeof last.content === 'string' ? last.content : JSON.stringify(last.content)) : '';
}

/** Azure takes stream_options from api-version 2024-09-01 on. */
function azureStreamUsage(apiVersion: string | undefined): boolean {
  return !!apiVersion && apiVersion.slice(0, 10) >= '2024-09-01';
}

/** The hosted API rejects a history in which a tool call was never answered. */
function findProtocolError(body: ChatRequestBody): string | undefined {
  const messages = body.messages;
  for (let i = 0; i < messages.length; i++) {
    const calls = messages[i]?.tool_calls;
    if (messages[i]?.role !== 'assistant' || !calls?.length) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && messages[j]?.role === 'tool'; j++) {
      answered.add(String(messages[j]?.tool_call_id));
    }
    const missing = calls.filter((c) => !answered.has(c.id)).map((c) => c.id);
    if (missing.length > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`;
    }
  }
  for (const message of messages) {
    if (message.role === 'tool' && !messages.some((m) => m.tool_calls?.some((c) => c.id === message.tool_call_id))) {
      return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`;
    }
  }
  return undefined;
}

const ChatRequestBodySchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']) })).min(1),
});

// ───── server ─────

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function normaliseScript(script: Script) {
  if (typeof script === 'function') return { steps: [script], whenExhausted: 'repeat-last' as const };
  if (Array.isArray(script)) return { steps: script, whenExhausted: 'error' as const };
  return { steps: script.steps, whenExhausted: script.whenExhausted ?? 'error' };
}

export async function startScriptedModelServer(options: StartOptions): Promise<ScriptedModelServer> {
  const { steps, whenExhausted } = normaliseScript(options.script);
  const chunkSize = options.chunkSize ?? 8;
  const strict = options.strictToolProtocol ?? true;
  const fallbackModel = options.model ?? 'scripted-model';
  const dialect: Dialect = options.dialect ?? 'openai';
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: (r: RecordedRequest[]) => void }> = [];
  const timers = new Set<NodeJS.Timeout>();
  let chatIndex = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  function pickStep(index: number): ScriptStep | StepFn | undefined {
    if (index < steps.length) return steps[index];
    if (steps.length === 0) return undefined;
    if (whenExhausted === 'repeat-last') return steps[steps.length - 1];
    if (whenExhausted === 'cycle') return steps[index % steps.length];
    return undefined;
  }

  function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': nextId('req_'), ...headers });
    res.end(body);
  }

  async function answerChat(req: IncomingMessage, res: ServerResponse, record: RecordedRequest, raw: string) {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      record.step = 'invalid';
      return sendJson(res, 400, errorBody({ message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error' }));
    }
    const parsed = ChatRequestBodySchema.safeParse(json);
    if (!parsed.success) {
      record.step = 'invalid';
      return sendJson(res, 400, errorBody({ message: `Invalid request: ${parsed.error.issues[0]?.message}`, type: 'invalid_request_error' }));
    }
    const body = parsed.data as unknown as ChatRequestBody;
    record.body = body;
    if (dialect === 'azure') {
      if (options.apiKey !== undefined && req.headers['api-key'] !== options.apiKey) {
        record.step = 'unauthorised';
        return sendJson(
          res,
          401,
          JSON.stringify({
            error: {
              code: '401',
              message:
                'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
            },
          }),
        );
      }
      const known = options.azure?.deployments;
      if (known && !known.includes(record.deployment ?? '')) {
        record.step = 'invalid';
        return sendJson(res, 404, JSON.stringify({ error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' } }));
      }
      if (body.stream_options && !azureStreamUsage(record.query['api-version'])) {
        record.step = 'invalid';
        return sendJson(res, 400, errorBody({ message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error' }));
      }
    } else if (dialect !== 'ollama' && options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      record.step = 'unauthorised';
      return sendJson(res, 401, errorBody({ message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' }));
    }
    if (options.toolsUnsupported && Array.isArray(body.tools) && body.tools.length > 0) {
      record.step = 'tools_refused';
      const refusal = toolsRefusal(dialect, body.model);
      return sendJson(res, refusal.status, errorBody({ message: refusal.message, type: 'invalid_request_error' }));
    }
    const protocolError = strict ? findProtocolError(body) : undefined;
    if (protocolError) {
      record.step = 'invalid';
      return sendJson(res, 400, errorBody({ message: protocolError, type: 'invalid_request_error' }));
    }

    const index = chatIndex++;
    const picked = pickStep(index);
    if (picked === undefined) {
      record.step = 'exhausted';
      return sendJson(res, 500, errorBody({ message: `scripted model server: script exhausted after ${steps.length} steps`, type: 'server_error' }));
    }
    const candidate = typeof picked === 'function' ? await picked(record, { index, requests }) : picked;
    const step = ScriptStepSchema.parse(candidate);
    record.step = step.kind;
    if (step.kind === 'reply' && step.expect) {
      const seen = latestResultsText(body);
      const missing = step.expect.resultIncludes.filter((t) => !seen.includes(t));
      const present = step.expect.resultExcludes.filter((t) => seen.includes(t));
      if (missing.length || present.length) {
        record.step = 'expectation_failed';
        const what = [...missing.map((t) => `missing ${JSON.stringify(t)}`), ...present.map((t) => `unexpected ${JSON.stringify(t)}`)].join(', ');
        return sendJson(
          res,
          400,
          errorBody({
            message: `scripted expectation failed at step ${index + 1}: ${what}; the latest results were: ${seen.slice(0, 1500)}`,
            type: 'invalid_request_error',
            code: 'scripted_expectation_failed',
          }),
        );
      }
    }

    if (step.kind === 'hang') return; // the client's timeout or abort ends it
    if (step.delayMs) await sleep(step.delayMs);
    if (res.destroyed) return;

    if (step.kind === 'raw') {
      res.writeHead(step.status, { 'content-type': step.contentType });
      res.end(step.body);
      return;
    }
    if (step.kind === 'error') {
      const defaults = defaultErrorType(step.status);
      const headers: Record<string, string> = {};
      if (step.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter);
      return sendJson(
        res,
        step.status,
        errorBody({ message: step.message ?? `scripted error ${step.status}`, type: step.type ?? defaults.type, code: step.code ?? defaults.code }),
        headers,
      );
    }

    const reply = buildReply(step, body, fallbackModel);
    // Azure names the model behind the deployment, not the deployment
    if (dialect === 'azure') reply.model = options.azure?.modelName ?? 'gpt-4o-2024-08-06';
    if (dialect === 'vllm' || dialect === 'llamacpp') reply.toolCalls.forEach((c) => (c.id = c.id.replace(/^call_/, 'chatcmpl-tool-')));
    if (!body.stream) return sendJson(res, 200, JSON.stringify(completionJson(reply, dialect)));

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // llama.cpp never puts usage in a stream; the others only when asked
    const includeUsage = dialect !== 'llamacpp' && body.stream_options?.include_usage === true;
    const chunks = streamChunks(reply, { includeUsage, chunkSize, dialect });
    if (step.stallAfterChunks !== undefined) {
      for (const chunk of chunks.slice(0, step.stallAfterChunks)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      return; // never ends: the client's timeout or abort closes it
    }
    for (const chunk of chunks) {
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  /** Whether a POST path is this dialect's chat endpoint; Azure's names the deployment. */
  function chatRoute(path: string): { ok: true; deployment?: string } | { ok: false } {
    if (dialect === 'azure') {
      const m = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
      return m ? { ok: true, deployment: decodeURIComponent(m[1]!) } : { ok: false };
    }
    if (path === '/v1/chat/completions') return { ok: true };
    return dialect === 'llamacpp' && path === '/chat/completions' ? { ok: true } : { ok: false };
  }

  function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://double.invalid');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/__requests') {
      const publicView = requests.map(({ authorization: _a, apiKeyHeader: _k, closed: _c, ...rest }) => rest);
      return sendJson(res, 200, JSON.stringify(publicView));
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, JSON.stringify({ object: 'list', data: [{ id: fallbackModel, object: 'model', created: 0, owned_by: 'scripted' }] }));
    }
    const route = req.method === 'POST' ? chatRoute(path) : { ok: false as const };
    if (!route.ok) {
      return sendJson(res, 404, errorBody({ message: `Unknown request URL: ${req.method} ${path}.`, type: 'invalid_request_error', code: 'unknown_url' }));
    }
    const query = Object.fromEntries(url.searchParams.entries());
    if (dialect === 'azure') {
      if (!query['api-version']) {
        return sendJson(
          res,
          400,
          JSON.stringify({
            error: { code: 'MissingApiVersionParameter', message: 'The api-version query parameter (?api-version=) is required for all requests.' },
          }),
        );
      }
    }

    let markClosed!: () => void;
    const record: RecordedRequest = {
      index: requests.length,
      method: req.method ?? 'POST',
      path,
      receivedAt: Date.now(),
      body: undefined,
      authorization: req.headers.authorization,
      apiKeyHeader: typeof req.headers['api-key'] === 'string' ? req.headers['api-key'] : undefined,
      query,
      ...(route.deployment ? { deployment: route.deployment } : {}),
      step: 'invalid',
      closedByClient: false,
      closed: new Promise<void>((resolve) => (markClosed = resolve)),
    };
    res.on('close', () => {
      if (!res.writableFinished) record.closedByClient = true;
      markClosed();
    });
    requests.push(record);
    options.onRequest?.(record);
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(requests.slice());
      }
    }

    readBody(req)
      .then((raw) => answerChat(req, res, record, raw))
      .catch((error: unknown) => {
        sendJson(res, 500, errorBody({ message: `scripted model server: ${(error as Error).message}`, type: 'server_error' }));
      });
  }

  const server: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('scripted model server: no TCP address');
  const host = options.host ?? '127.0.0.1';

  const root = `http://${host}:${address.port}`;
  return {
    url: dialect === 'azure' || dialect === 'ollama' ? root : `${root}/v1`,
    dialect,
    port: address.port,
    requests,
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // hanging requests would keep close() waiting forever
        server.closeAllConnections();
      });
    },
  };
}

// ───── scripted conversations in both edit protocols ─────

/**
 * A multi-turn conversation written once for both of flowfix's edit
 * protocols: each turn has the native tool calls and the same actions as
 * text (search/replace blocks and text actions), and what the latest
 * results must contain before it answers.
 */
export const ConversationSchema = z.object({
  about: z.string(),
  bug: z.string().optional(),
  turns: z
    .array(
      z.object({
        expect: z.array(z.string()).default([]),
        thought: z.string().optional(),
        tools: z.array(ToolCallSchema).min(1),
        text: z.string().min(1),
        usage: UsageSchema.optional(),
      }),
    )
    .min(1),
});
export type Conversation = z.output<typeof ConversationSchema>;

/** The script that plays a conversation in one protocol; the first turn's expectations are checked against the first user message. */
export function scriptFromConversation(
  conversation: Conversation,
  protocol: 'tools' | 'text',
  { malformedFirst = 0 }: { malformedFirst?: number } = {},
): ScriptStep[] {
  const malformed: ScriptStep[] = Array.from({ length: malformedFirst }, (_, i) => ({
    kind: 'reply',
    text: 'Calling the tool.',
    toolCalls: [{ name: i % 2 === 0 ? 'read_file' : 'edit_file', arguments: i % 2 === 0 ? '{"path": "src/' : { path: 42 } }],
  }));
  const turns: ScriptStep[] = conversation.turns.map((turn, i) => ({
    kind: 'reply',
    // after malformed calls the latest results are their errors: the first turn then checks nothing
    ...(turn.expect.length && !(i === 0 && malformedFirst > 0) ? { expect: { resultIncludes: turn.expect, resultExcludes: [] } } : {}),
    ...(turn.usage ? { usage: turn.usage } : {}),
    ...(protocol === 'tools' ? { text: turn.thought, toolCalls: turn.tools } : { text: [turn.thought, turn.text].filter(Boolean).join('\n\n') }),
  }));
  return [...malformed, ...turns];
}

/** The tool-result messages of a request after its last assistant message: what a script reacts to. */
export function latestToolResults(request: RecordedRequest): Array<{ toolCallId: string; content: string }> {
  const messages = request.body?.messages ?? [];
  const out: Array<{ toolCallId: string; content: string }> = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; i--) {
    const m = messages[i]!;
    out.unshift({ toolCallId: String(m.tool_call_id), content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) });
  }
  return out;
}

// ───── CLI ─────

function parseCliArgs(argv: string[]) {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    if (!key?.startsWith('--')) throw new Error(`unexpected argument ${key}`);
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${key} needs a value`);
    args.set(key.slice(2), value);
    i++;
  }
  const script = args.get('script');
  if (!script)
    throw new Error('usage: scripted-model-server --script FILE.json [--port N] [--host H] [--api-key KEY] [--dialect openai|azure|vllm|ollama|llamacpp]');
  const port = Number(args.get('port') ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be an integer 0..65535');
  const dialect = args.get('dialect') ?? 'openai';
  if (!(DIALECTS as readonly string[]).includes(dialect)) throw new Error(`--dialect must be one of ${DIALECTS.join(', ')}`);
  return { scriptPath: script, port, host: args.get('host'), apiKey: args.get('api-key'), dialect: dialect as Dialect };
}

async function main() {
  const { scriptPath, port, host, apiKey, dialect } = parseCliArgs(process.argv.slice(2));
  const script = ScriptFileSchema.parse(JSON.parse(readFileSync(scriptPath, 'utf8')));
  const server = await startScriptedModelServer({
    script: { steps: script.steps, whenExhausted: script.whenExhausted },
    port,
    host,
    apiKey,
    dialect,
    onRequest: (r) => process.stderr.write(`[scripted-model-server] #${r.index} ${r.method} ${r.path}\n`),
  });
  process.stdout.write(`SCRIPTED_MODEL_SERVER_URL=${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`scripted-model-server: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
