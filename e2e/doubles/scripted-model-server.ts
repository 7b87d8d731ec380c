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
 * In-process:  const server = await startScriptedModelServer({ script: [...] })
 *              ... server.url (…/v1), server.requests, await server.close()
 * CLI:         tsx e2e/doubles/scripted-model-server.ts --port 0 --script FILE.json
 *              prints `SCRIPTED_MODEL_SERVER_URL=http://127.0.0.1:PORT/v1`.
 *              GET /__requests returns the recorded requests (no auth header).
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

const ReplyStepSchema = z.object({
  kind: z.literal('reply'),
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

export const ScriptFileSchema = z.object({
  steps: z.array(ScriptStepSchema),
  /** what to do once every step was used: answer 500 (default), repeat the last step, or start over */
  whenExhausted: z.enum(['error', 'repeat-last', 'cycle']).default('error'),
});

/** A step computed from the request, so a script can react to tool results. */
export type StepFn = (request: RecordedRequest, info: { index: number; requests: RecordedRequest[] }) => ScriptStep | Promise<ScriptStep>;

export type Script =
  | StepFn
  | Array<ScriptStep | StepFn>
  | { steps: Array<ScriptStep | StepFn>; whenExhausted?: 'error' | 'repeat-last' | 'cycle' };

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
  /** which kind of step answered ('invalid' when the request itself was rejected) */
  step: ScriptStep['kind'] | 'invalid' | 'exhausted' | 'unauthorised';
  /** the client closed the connection before the answer was complete */
  closedByClient: boolean;
  /** resolves when the connection for this request is closed, by either side */
  closed: Promise<void>;
}

export interface ScriptedModelServer {
  /** base URL to hand to an OpenAI client, ending in /v1 */
  url: string;
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
  /** when set, requests without `Authorization: Bearer <apiKey>` get 401 */
  apiKey?: string;
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
    step.usage?.completionTokens ??
    estimateTokens((content ?? '') + toolCalls.map((c) => c.function.name + c.function.arguments).join(''));
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

function completionJson(reply: BuiltReply) {
  return {
    id: reply.id,
    object: 'chat.completion',
    created: reply.created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content,
          refusal: null,
          ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: reply.usage,
  };
}

function splitEvery(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/** The chunks of a streamed answer, in the order the hosted API sends them. */
function streamChunks(reply: BuiltReply, { includeUsage, chunkSize }: { includeUsage: boolean; chunkSize: number }) {
  const base = { id: reply.id, object: 'chat.completion.chunk', created: reply.created, model: reply.model };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const out: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of splitEvery(reply.content ?? '', chunkSize)) out.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    // arguments arrive in pieces, as they do from the hosted API
    for (const piece of splitEvery(call.function.arguments, Math.max(1, Math.ceil(call.function.arguments.length / 3)))) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  out.push(chunk({}, reply.finishReason));
  if (includeUsage) out.push({ ...base, choices: [], usage: reply.usage });
  return out;
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
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      record.step = 'unauthorised';
      return sendJson(res, 401, errorBody({ message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' }));
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
    if (!body.stream) return sendJson(res, 200, JSON.stringify(completionJson(reply)));

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunks = streamChunks(reply, { includeUsage: body.stream_options?.include_usage === true, chunkSize });
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

  function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/__requests') {
      const publicView = requests.map(({ authorization: _a, closed: _c, ...rest }) => rest);
      return sendJson(res, 200, JSON.stringify(publicView));
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, JSON.stringify({ object: 'list', data: [{ id: fallbackModel, object: 'model', created: 0, owned_by: 'scripted' }] }));
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendJson(res, 404, errorBody({ message: `Unknown request URL: ${req.method} ${path}.`, type: 'invalid_request_error', code: 'unknown_url' }));
    }

    let markClosed!: () => void;
    const record: RecordedRequest = {
      index: requests.length,
      method: req.method,
      path,
      receivedAt: Date.now(),
      body: undefined,
      authorization: req.headers.authorization,
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

  return {
    url: `http://${host}:${address.port}/v1`,
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
  if (!script) throw new Error('usage: scripted-model-server --script FILE.json [--port N] [--host H] [--api-key KEY]');
  const port = Number(args.get('port') ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be an integer 0..65535');
  return { scriptPath: script, port, host: args.get('host'), apiKey: args.get('api-key') };
}

async function main() {
  const { scriptPath, port, host, apiKey } = parseCliArgs(process.argv.slice(2));
  const script = ScriptFileSchema.parse(JSON.parse(readFileSync(scriptPath, 'utf8')));
  const server = await startScriptedModelServer({
    script: { steps: script.steps, whenExhausted: script.whenExhausted },
    port,
    host,
    apiKey,
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
