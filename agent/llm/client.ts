// A thin wrapper over the `openai` SDK's chat completions with tools, for any
// OpenAI-compatible endpoint in one of the dialects of dialects.ts (OpenAI,
// Azure OpenAI, vLLM, Ollama, llama.cpp). It owns what the policy must not reimplement:
// retries of 429/5xx/connection failures with bounded backoff that honours
// Retry-After, a per-request timeout that covers the whole answer (the SDK's
// own timeout stops at the response headers), abort of the request in flight,
// and token usage and cost per call (usage as reported, from llama.cpp's
// timings, or estimated; cost null when the model has no price: unknown, never
// 0). The SDK's own retries are off so there is one retry policy, ours, and
// every wait is abortable.
//
// The API key is handed in by the caller (getEnv().FLOWFIX_MODEL_API_KEY) and
// lives only inside the SDK instance: it is never part of an error, event or log.
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { Env } from '../../lib/env';
import { MODEL_DIALECTS, resolveModelEndpoint, type ModelSettings } from '../../common/settings';
import { asksStreamUsage, createSdk, readTokenCounts, type UsageSource } from './dialects';

export type { ChatCompletionMessageParam, ChatCompletionTool };

export const ModelPricesSchema = z.record(z.string(), z.object({ inputPerMTok: z.number().min(0), outputPerMTok: z.number().min(0) }));
export type ModelPrices = z.infer<typeof ModelPricesSchema>;

export const LlmClientOptionsSchema = z.object({
  baseURL: z.string().url(),
  model: z.string().min(1),
  /** empty: no credential is sent (local servers without a key) */
  apiKey: z.string(),
  dialect: z.enum(MODEL_DIALECTS).default('openai'),
  /** Azure only: the api-version query parameter */
  apiVersion: z.string().optional(),
  /** Azure only: the deployment in the URL path (default: the model) */
  deployment: z.string().optional(),
  temperature: z.number().min(0).max(2).default(0.1),
  topP: z.number().gt(0).max(1).default(0.95),
  /** upper bound on completion tokens per call; unset leaves it to the endpoint */
  maxOutputTokens: z.number().int().positive().optional(),
  /** per attempt, covering the whole answer including a streamed body */
  requestTimeoutMs: z.number().int().positive().default(120_000),
  /** retries after the first attempt, for 429, 5xx, timeouts and connection errors */
  maxRetries: z.number().int().min(0).max(20).default(4),
  backoffBaseMs: z.number().int().min(0).default(1_000),
  backoffMaxMs: z.number().int().min(0).default(30_000),
  /** a Retry-After longer than this is not waited for: the call fails instead */
  maxRetryAfterMs: z.number().int().min(0).default(60_000),
  /** stream the answer as server-sent events (usage requested through stream_options where the dialect has it) */
  stream: z.boolean().default(false),
  prices: ModelPricesSchema.default({}),
});
export type LlmClientOptions = z.input<typeof LlmClientOptionsSchema>;

export interface ToolCallRequest {
  id: string;
  name: string;
  /** raw JSON text as the model wrote it: may be malformed, the caller validates */
  arguments: string;
}

export interface CallUsage {
  promptTokens: number;
  completionTokens: number;
  /** null when no price is configured for the model: the cost is unknown, never 0 */
  costUsd: number | null;
  priced: boolean;
  /** where the token counts come from: the endpoint's usage, llama.cpp's timings, or an estimate from the text */
  source: UsageSource;
}

export interface ChatResult {
  content: string | null;
  toolCalls: ToolCallRequest[];
  finishReason: string | null;
  usage: CallUsage;
  model: string;
  attempts: number;
  durationMs: number;
}

export type LlmErrorKind = 'aborted' | 'timeout' | 'http' | 'connection' | 'bad_response' | 'retry_after_too_long';

/** A model call that failed for good (retries exhausted or not retryable). */
export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly status: number | undefined;
  readonly attempts: number;
  constructor({ kind, message, status, attempts, cause }: { kind: LlmErrorKind; message: string; status?: number; attempts: number; cause?: unknown }) {
    super(message, { cause });
    this.name = 'LlmError';
    this.kind = kind;
    this.status = status;
    this.attempts = attempts;
  }
}

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface CompleteParams {
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  signal?: AbortSignal;
  /** absolute epoch ms after which no attempt or wait may run (the run's deadline) */
  deadline?: number;
  /** told before each backoff wait, e.g. to emit an event */
  onRetry?: (notice: RetryNotice) => void;
}

/**
 * The cost of one call from the price table: the configured model's price,
 * else the price of the model the endpoint said answered. No price → null
 * (unknown), never 0: a free-looking run would pass every cost budget.
 */
export function costOf({
  model,
  reportedModel,
  promptTokens,
  completionTokens,
  prices,
}: {
  model: string;
  reportedModel?: string;
  promptTokens: number;
  completionTokens: number;
  prices: ModelPrices;
}): { costUsd: number | null; priced: boolean } {
  const price =
    (Object.hasOwn(prices, model) ? prices[model] : undefined) ?? (reportedModel && Object.hasOwn(prices, reportedModel) ? prices[reportedModel] : undefined);
  if (!price) return { costUsd: null, priced: false };
  return { costUsd: (promptTokens * price.inputPerMTok + completionTokens * price.outputPerMTok) / 1_000_000, priced: true };
}

/** Retry-After as seconds or an HTTP date, or OpenAI's retry-after-ms; undefined when absent or unreadable. */
export function parseRetryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with "equal jitter": half fixed, half random, so retries spread out but never collapse to 0. */
export function backoffDelayMs({ attempt, baseMs, maxMs, random = Math.random }: { attempt: number; baseMs: number; maxMs: number; random?: () => number }) {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Classified = { retry: boolean; kind: LlmErrorKind; status?: number; retryAfterMs?: number; message: string };

class AttemptTimeout extends Error {}

function classify(error: unknown, { timedOut }: { timedOut: boolean }): Classified {
  if (timedOut || error instanceof AttemptTimeout || error instanceof OpenAI.APIConnectionTimeoutError) {
    return { retry: true, kind: 'timeout', message: 'the model endpoint did not answer in time' };
  }
  if (error instanceof OpenAI.APIUserAbortError) return { retry: false, kind: 'aborted', message: 'aborted' };
  if (error instanceof OpenAI.APIConnectionError) {
    return { retry: true, kind: 'connection', message: `connection to the model endpoint failed: ${error.message}` };
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = error.status;
    const retry = status === 429 || status === 408 || status === 409 || status >= 500;
    return { retry, kind: 'http', status, retryAfterMs: parseRetryAfterMs(error.headers), message: `model endpoint answered ${status}: ${error.message}` };
  }
  if (error instanceof SyntaxError) return { retry: true, kind: 'bad_response', message: `unreadable answer from the model endpoint: ${error.message}` };
  return { retry: false, kind: 'bad_response', message: `model call failed: ${(error as Error)?.message ?? String(error)}` };
}

type PriceTable = ModelSettings['prices'];

/**
 * Client options from a repository's model settings, the admin's price table
 * and the environment; undefined when no model is configured. The
 * repository's own `prices` win over the table for the models they name.
 */
export function llmClientOptionsFromSettings({
  settings,
  env,
  priceTable = {},
}: {
  settings: Pick<
    ModelSettings,
    | 'model'
    | 'baseUrl'
    | 'dialect'
    | 'apiVersion'
    | 'deployment'
    | 'stream'
    | 'maxOutputTokens'
    | 'temperature'
    | 'topP'
    | 'maxRetries'
    | 'requestTimeoutSeconds'
    | 'prices'
  >;
  env: Pick<Env, 'FLOWFIX_MODEL_BASE_URL' | 'FLOWFIX_MODEL' | 'FLOWFIX_MODEL_API_KEY'>;
  priceTable?: PriceTable;
}): LlmClientOptions | undefined {
  const endpoint = resolveModelEndpoint({ settings, env });
  if (!endpoint) return undefined;
  const prices = { ...priceTable, ...settings.prices };
  return {
    ...endpoint,
    // local servers often need no key: none is sent then
    apiKey: env.FLOWFIX_MODEL_API_KEY ?? '',
    dialect: settings.dialect,
    ...(settings.apiVersion ? { apiVersion: settings.apiVersion } : {}),
    ...(settings.deployment ? { deployment: settings.deployment } : {}),
    stream: settings.stream,
    ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    temperature: settings.temperature,
    topP: settings.topP,
    maxRetries: settings.maxRetries,
    requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
    prices: Object.fromEntries(Object.entries(prices).map(([name, p]) => [name, { inputPerMTok: p.inputPerMTokUsd, outputPerMTok: p.outputPerMTokUsd }])),
  };
}

export class LlmClient {
  /** the parsed options, without the key (it lives only inside the SDK instance) */
  readonly options: Omit<z.output<typeof LlmClientOptionsSchema>, 'apiKey'>;
  readonly #sdk: OpenAI;

  constructor(options: LlmClientOptions) {
    const { apiKey, ...rest } = LlmClientOptionsSchema.parse(options);
    this.options = rest;
    this.#sdk = createSdk({
      dialect: this.options.dialect,
      baseURL: this.options.baseURL,
      model: this.options.model,
      apiKey,
      apiVersion: this.options.apiVersion,
      deployment: this.options.deployment,
      timeoutMs: this.options.requestTimeoutMs,
    });
  }

  get model() {
    return this.options.model;
  }

  /** One chat completion, retried on transient failures; throws LlmError when it cannot get an answer. */
  async complete(params: CompleteParams): Promise<ChatResult> {
    const started = Date.now();
    const { maxRetries } = this.options;
    for (let attempt = 1; ; attempt++) {
      if (params.signal?.aborted) throw new LlmError({ kind: 'aborted', message: 'aborted', attempts: attempt - 1 });
      const remaining = params.deadline === undefined ? Infinity : params.deadline - Date.now();
      if (remaining <= 0) throw new LlmError({ kind: 'timeout', message: 'the run deadline passed before the model answered', attempts: attempt - 1 });
      const timeoutMs = Math.min(this.options.requestTimeoutMs, remaining);

      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new AttemptTimeout('timeout'));
      }, timeoutMs);
      const forwardAbort = () => controller.abort(params.signal?.reason);
      params.signal?.addEventListener('abort', forwardAbort, { once: true });
      try {
        const answer = await this.#attempt({ ...params, signal: controller.signal, timeoutMs });
        return { ...answer, attempts: attempt, durationMs: Date.now() - started };
      } catch (error) {
        if (params.signal?.aborted) throw new LlmError({ kind: 'aborted', message: 'aborted', attempts: attempt, cause: error });
        const c = classify(error, { timedOut });
        const exhausted = attempt > maxRetries;
        if (!c.retry || exhausted) {
          throw new LlmError({
            kind: c.kind,
            status: c.status,
            attempts: attempt,
            message: exhausted && c.retry ? `${c.message} (gave up after ${attempt} attempts)` : c.message,
            cause: error,
          });
        }
        if (c.retryAfterMs !== undefined && c.retryAfterMs > this.options.maxRetryAfterMs) {
          throw new LlmError({
            kind: 'retry_after_too_long',
            status: c.status,
            attempts: attempt,
            message: `${c.message}; Retry-After ${Math.ceil(c.retryAfterMs / 1000)} s exceeds the ${Math.ceil(this.options.maxRetryAfterMs / 1000)} s bound`,
            cause: error,
          });
        }
        const backoff = backoffDelayMs({ attempt, baseMs: this.options.backoffBaseMs, maxMs: this.options.backoffMaxMs });
        // the server's Retry-After is a floor: never retry sooner than asked
        const delayMs = Math.max(backoff, c.retryAfterMs ?? 0);
        if (params.deadline !== undefined && Date.now() + delayMs >= params.deadline) {
          throw new LlmError({
            kind: c.kind,
            status: c.status,
            attempts: attempt,
            message: `${c.message}; no time left before the deadline to retry`,
            cause: error,
          });
        }
        params.onRetry?.({ attempt, delayMs, reason: c.message });
        try {
          await abortableSleep(delayMs, params.signal);
        } catch (abortError) {
          throw new LlmError({ kind: 'aborted', message: 'aborted', attempts: attempt, cause: abortError });
        }
      } finally {
        clearTimeout(timer);
        params.signal?.removeEventListener('abort', forwardAbort);
      }
    }
  }

  #baseBody(params: CompleteParams) {
    return {
      model: this.options.model,
      messages: params.messages,
      temperature: this.options.temperature,
      top_p: this.options.topP,
      ...(params.tools?.length ? { tools: params.tools, tool_choice: 'auto' as const } : {}),
      ...(this.options.maxOutputTokens ? { max_tokens: this.options.maxOutputTokens } : {}),
    };
  }

  #usage({
    reportedModel,
    usage,
    timings,
    params,
    content,
    toolCalls,
  }: {
    reportedModel: string | undefined;
    usage: { prompt_tokens?: number | null; completion_tokens?: number | null } | null | undefined;
    timings: unknown;
    params: CompleteParams;
    content: string | null;
    toolCalls: ToolCallRequest[];
  }): CallUsage {
    const counts = readTokenCounts({
      usage,
      timings,
      promptText: () => JSON.stringify(params.messages) + (params.tools?.length ? JSON.stringify(params.tools) : ''),
      completionText: (content ?? '') + toolCalls.map((c) => c.name + c.arguments).join(''),
    });
    const cost = costOf({
      model: this.options.model,
      reportedModel,
      promptTokens: counts.promptTokens,
      completionTokens: counts.completionTokens,
      prices: this.options.prices,
    });
    return { promptTokens: counts.promptTokens, completionTokens: counts.completionTokens, ...cost, source: counts.source };
  }

  async #attempt(params: CompleteParams & { signal: AbortSignal; timeoutMs: number }): Promise<Omit<ChatResult, 'attempts' | 'durationMs'>> {
    const requestOptions = { signal: params.signal, timeout: params.timeoutMs, maxRetries: 0 };
    if (!this.options.stream) {
      const body: ChatCompletionCreateParamsNonStreaming = { ...this.#baseBody(params), stream: false };
      const completion = (await this.#sdk.chat.completions.create(body, requestOptions)) as ChatCompletion & { timings?: unknown };
      const choice = completion.choices?.[0];
      if (!choice?.message) throw new LlmError({ kind: 'bad_response', message: 'the model endpoint returned no choices', attempts: 1 });
      const toolCalls = (choice.message.tool_calls ?? []).flatMap((call, i) =>
        call.type === 'function' ? [{ id: call.id || `call_${i}`, name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' }] : [],
      );
      const content = choice.message.content ?? null;
      return {
        content,
        toolCalls,
        finishReason: choice.finish_reason ?? null,
        usage: this.#usage({ reportedModel: completion.model, usage: completion.usage, timings: completion.timings, params, content, toolCalls }),
        model: completion.model || this.options.model,
      };
    }

    const body: ChatCompletionCreateParamsStreaming = {
      ...this.#baseBody(params),
      stream: true,
      ...(asksStreamUsage(this.options) ? { stream_options: { include_usage: true } } : {}),
    };
    const stream = await this.#sdk.chat.completions.create(body, requestOptions);
    let content = '';
    let sawContent = false;
    let finishReason: string | null = null;
    let reportedModel: string | undefined;
    let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
    let timings: unknown;
    // in arrival order; `open` maps a delta's index to the call it continues
    const calls: ToolCallRequest[] = [];
    const open = new Map<number, ToolCallRequest>();
    for await (const raw of stream) {
      const chunk = raw as ChatCompletionChunk & { timings?: unknown };
      if (chunk.model) reportedModel = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      if (chunk.timings) timings = chunk.timings;
      // Azure opens with a chunk of prompt filter results and no choices
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      if (typeof choice.delta?.content === 'string' && choice.delta.content.length > 0) {
        content += choice.delta.content;
        sawContent = true;
      }
      for (const delta of choice.delta?.tool_calls ?? []) {
        const index = typeof delta.index === 'number' ? delta.index : 0;
        let call = open.get(index);
        // a new id at an index that already holds a named call is a new call
        // (servers that send every call whole at index 0), not more arguments
        if (!call || (delta.id && call.id && delta.id !== call.id)) {
          call = { id: '', name: '', arguments: '' };
          open.set(index, call);
          calls.push(call);
        }
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.name += delta.function.name;
        if (delta.function?.arguments) call.arguments += delta.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
    // the SDK's stream ends quietly on abort: a timed-out or cancelled stream
    // must not pass for a complete (truncated) answer
    if (params.signal.aborted) throw params.signal.reason ?? new AttemptTimeout('aborted');
    const toolCalls = calls.map((c, i) => ({ ...c, id: c.id || `call_${i}` }));
    const text = sawContent ? content : null;
    return {
      content: text,
      toolCalls,
      finishReason,
      usage: this.#usage({ reportedModel, usage, timings, params, content: text, toolCalls }),
      model: reportedModel || this.options.model,
    };
  }
}
