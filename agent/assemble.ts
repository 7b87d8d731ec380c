import type { Env } from '../lib/env';
import type { ModelSettings, RunPolicy } from '../common/settings';
import { LlmClient, llmClientOptionsFromSettings } from './llm/client';
import { createLlmPolicy, llmProtocolFromSettings } from './policies/llm';
import { createOfflinePolicy } from './policies/offline';
import { summarise } from './report/summary';
import type { SummariseFn } from './phases/contract';
import type { Policy } from './types';

// One assembly of a run, whoever starts it (the worker, `flowfix repair`,
// the benches): the policies the run's policy name calls for and, where a
// model is configured, the summariser that asks it for the root cause (one
// call after the fix, sanitised; agent/report/summary.ts). Offline runs write
// their summary from the evidence.

/** The model a run needs cannot be used here; the message says why (the run fails as a configuration problem). */
export class ModelUnavailableError extends Error {}

export interface RunAssembly {
  /** tried in order: tiered is offline, then the model */
  policies: Policy[];
  /** with a model: its root-cause summary; absent: the evidence's */
  summarise?: SummariseFn;
}

export function assembleRun({
  policy,
  modelSettings,
  env,
  priceTable = {},
}: {
  policy: RunPolicy;
  /** the run's model settings, its model already chosen (a run may name its own) */
  modelSettings: ModelSettings;
  env: Pick<Env, 'FLOWFIX_MODEL_BASE_URL' | 'FLOWFIX_MODEL' | 'FLOWFIX_MODEL_API_KEY'>;
  priceTable?: ModelSettings['prices'];
}): RunAssembly {
  const offline = () => createOfflinePolicy({ maxCandidates: modelSettings.offline.maxCandidates });
  if (policy === 'offline') return { policies: [offline()] };
  const options = llmClientOptionsFromSettings({ settings: modelSettings, env, priceTable });
  if (!options) throw new ModelUnavailableError('no model is configured (model settings, or FLOWFIX_MODEL_BASE_URL and FLOWFIX_MODEL)');
  let client: LlmClient;
  try {
    client = new LlmClient(options);
  } catch (err) {
    // e.g. the azure dialect without a key
    throw new ModelUnavailableError(`the model endpoint cannot be used: ${(err as Error).message}`);
  }
  const llm = createLlmPolicy({ client, protocol: llmProtocolFromSettings(modelSettings) });
  return {
    policies: policy === 'tiered' ? [offline(), llm] : [llm],
    summarise: (input) => summarise({ ...input, client }),
  };
}
