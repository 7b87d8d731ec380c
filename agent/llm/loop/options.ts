import { z } from 'zod';
import type { ModelSettings } from '../../../common/settings';

// The LLM policy's knobs: its own limits (how patient it is with a model that
// misbehaves) and the edit protocol with the context it has to work in.

export const LlmPolicyLimitsSchema = z.object({
  /** consecutive malformed tool calls returned to the model before the run ends (model_error) */
  maxConsecutiveMalformed: z.number().int().min(0).default(3),
  /** consecutive replies without a tool call before the run ends (no_candidate) */
  maxConsecutiveTextReplies: z.number().int().min(1).default(2),
  /** cap on the repository text in one observation (the context budget may lower it) */
  maxObservationChars: z.number().int().min(500).default(12_000),
  /** older observations are shortened in the history to keep the context (and cost) bounded */
  keepFullObservations: z.number().int().min(1).default(8),
  /** cap on text copied into events (the full observation still goes to the model) */
  maxEventChars: z.number().int().min(200).default(4_000),
});
export type LlmPolicyLimits = z.input<typeof LlmPolicyLimitsSchema>;
export type ResolvedLlmPolicyLimits = z.output<typeof LlmPolicyLimitsSchema>;

export const LlmProtocolOptionsSchema = z.object({
  editProtocol: z.enum(['auto', 'tools', 'text']).default('auto'),
  /** auto: malformed tool calls in the run before switching to text */
  textFallbackAfter: z.number().int().min(1).default(2),
  /** the model's context window (tokens) */
  contextTokens: z.number().int().min(2048).default(32_768),
  maxOutputTokens: z.number().int().positive().optional(),
});
export type LlmProtocolOptions = z.input<typeof LlmProtocolOptionsSchema>;
export type ResolvedLlmProtocolOptions = z.output<typeof LlmProtocolOptionsSchema>;

/** The protocol and context options from a repository's model settings. */
export function llmProtocolFromSettings(
  settings: Pick<ModelSettings, 'editProtocol' | 'textFallbackAfter' | 'contextTokens' | 'maxOutputTokens'>,
): LlmProtocolOptions {
  return {
    editProtocol: settings.editProtocol,
    textFallbackAfter: settings.textFallbackAfter,
    contextTokens: settings.contextTokens,
    ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
  };
}
