import { getEnv } from '../env';
import { resolveModelEndpoint, type ModelSettings, type RunPolicy } from '../../common/settings';

// Which policies a repository's runs may use, and the one an automatic run
// takes: triage queues with the default, a reviewer's "Run agent" picks among
// the allowed (lib/runs/service.ts startManualRun).

/**
 * Policies a run of this repository may use: never costlier than the admin's
 * choice (offline < tiered < llm), and nothing that needs a model when none
 * is configured.
 */
export function allowedPolicies(settings: ModelSettings): RunPolicy[] {
  if (!resolveModelEndpoint({ settings, env: getEnv() })) return ['offline'];
  if (settings.policy === 'llm') return ['offline', 'tiered', 'llm'];
  if (settings.policy === 'tiered') return ['offline', 'tiered'];
  return ['offline'];
}

/** The policy of an automatic run: the admin's, or offline when no model is configured. */
export function defaultPolicy(settings: ModelSettings): RunPolicy {
  return allowedPolicies(settings).includes(settings.policy) ? settings.policy : 'offline';
}
