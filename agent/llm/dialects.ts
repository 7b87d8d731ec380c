// How each kind of endpoint speaks the chat-completions protocol, so the
// client can build the right `openai` SDK instance and read its answers.
// Every dialect goes through the real SDK: `AzureOpenAI` for Azure, `OpenAI`
// for the rest; what differs is the URL, the auth header and whether a
// streamed answer carries token usage at all.
//
//   openai    Bearer key; usage in a stream only when asked (stream_options.include_usage)
//   azure     https://<resource>.openai.azure.com/openai/deployments/<deployment>/chat/completions?api-version=…,
//             `api-key` header (no Bearer); stream_options only from api-version 2024-09-01 on
//             (older versions reject the field), so older streams have no usage
//   vllm      Bearer key when the server runs with --api-key; stream usage only when asked;
//             tools need --enable-auto-tool-choice and a --tool-call-parser, else a 400
//   ollama    the OpenAI-compatible API lives under /v1; no key (none is sent)
//   llamacpp  llama.cpp's server: Bearer key only with --api-key; streamed chunks carry no
//             `usage`: the last chunk's `timings` (prompt_n + cache_n, predicted_n) are read
//             instead; tools need --jinja
//
// When an answer has no usage at all, tokens are estimated from the text
// (about 4 characters a token) and marked `estimated`.
import OpenAI, { AzureOpenAI } from 'openai';
import type { ModelDialect } from '../../common/settings';

export type { ModelDialect };

export interface DialectOptions {
  dialect: ModelDialect;
  baseURL: string;
  model: string;
  /** undefined or empty: no credential is sent (local servers) */
  apiKey: string | undefined;
  apiVersion?: string;
  deployment?: string;
  timeoutMs: number;
}

/** The API base the SDK gets: Ollama's and the local servers' OpenAI API is under /v1. */
export function normaliseBaseUrl(dialect: ModelDialect, url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  if (dialect === 'azure') return trimmed.replace(/\/openai$/, '');
  if (dialect === 'ollama' || dialect === 'llamacpp' || dialect === 'vllm') {
    const { pathname } = new URL(trimmed);
    if (pathname === '' || pathname === '/') return `${trimmed}/v1`;
  }
  return trimmed;
}

/** Azure accepts stream_options from api-version 2024-09-01 (GA 2024-10-21) on; older versions answer 400. */
export function azureSupportsStreamUsage(apiVersion: string | undefined): boolean {
  return !!apiVersion && apiVersion.slice(0, 10) >= '2024-09-01';
}

/** Whether a streamed request asks for the usage chunk (stream_options.include_usage). */
export function asksStreamUsage(options: Pick<DialectOptions, 'dialect' | 'apiVersion'>): boolean {
  if (options.dialect === 'azure') return azureSupportsStreamUsage(options.apiVersion);
  // llama.cpp reports tokens in `timings` whatever is asked
  return options.dialect !== 'llamacpp';
}

/** The SDK instance for a dialect. Retries are off: the client has its own policy. */
export function createSdk(options: DialectOptions): OpenAI {
  const common = { maxRetries: 0, timeout: options.timeoutMs };
  const baseURL = normaliseBaseUrl(options.dialect, options.baseURL);
  if (options.dialect === 'azure') {
    if (!options.apiKey) throw new Error('the azure dialect needs an API key (FLOWFIX_MODEL_API_KEY); it is sent as the api-key header');
    if (!options.apiVersion) throw new Error('the azure dialect needs an apiVersion in the model settings');
    return new AzureOpenAI({
      ...common,
      endpoint: baseURL,
      apiKey: options.apiKey,
      apiVersion: options.apiVersion,
      deployment: options.deployment ?? options.model,
    });
  }
  return new OpenAI({
    ...common,
    baseURL,
    // the SDK wants a string; with no key configured no Authorization header is sent at all
    apiKey: options.apiKey || 'none',
    ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
  });
}

// ───── token usage ─────

export type UsageSource = 'reported' | 'timings' | 'estimated';

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  source: UsageSource;
}

interface ReportedUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
}

/** llama.cpp's per-answer timings; prompt_n counts only the tokens not served from its prompt cache. */
interface LlamaCppTimings {
  prompt_n?: number;
  cache_n?: number;
  predicted_n?: number;
}

export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

const nonNegative = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;

/** Token counts from what the endpoint said, best source first. */
export function readTokenCounts({
  usage,
  timings,
  promptText,
  completionText,
}: {
  usage: ReportedUsage | null | undefined;
  timings: unknown;
  promptText: () => string;
  completionText: string;
}): TokenCounts {
  if (usage && nonNegative(usage.prompt_tokens) && nonNegative(usage.completion_tokens)) {
    return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, source: 'reported' };
  }
  const t = (timings && typeof timings === 'object' ? timings : undefined) as LlamaCppTimings | undefined;
  if (t && nonNegative(t.prompt_n) && nonNegative(t.predicted_n)) {
    return { promptTokens: t.prompt_n + (nonNegative(t.cache_n) ? t.cache_n : 0), completionTokens: t.predicted_n, source: 'timings' };
  }
  return { promptTokens: estimateTokens(promptText()), completionTokens: estimateTokens(completionText), source: 'estimated' };
}

/**
 * An endpoint that refuses the `tools` field itself (vLLM without a tool-call
 * parser, llama.cpp without --jinja, a model whose template has no tools):
 * the auto protocol then continues in text instead of failing the run.
 */
export function refusesTools(error: { status?: number; message: string }): boolean {
  return (error.status === 400 || error.status === 422 || error.status === 500) && /\btool/i.test(error.message);
}
