// The run page's own labels (numbers, times and costs: common/format.ts).

import { RUN_STATUS_LABELS } from '@/common/labels';

/** A run's status in words (common/labels.ts), and GONE: the run's page after it was deleted. */
export const STATUS_TEXT: Record<string, string> = { ...RUN_STATUS_LABELS, GONE: 'Deleted' };

export const PHASE_TEXT: Record<string, string> = {
  setup: 'Setup',
  red: 'RED',
  localise: 'Localise',
  patch: 'Patch',
  verify: 'Verify',
  summary: 'Summary',
};

/** Pretty-prints a JSON string (tool arguments); anything else as is. */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? '';
}
