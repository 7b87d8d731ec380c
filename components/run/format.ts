// The run page's own labels (numbers, times and costs: common/format.ts).

import { PHASE_LABELS, RUN_STATUS_LABELS } from '@/common/labels';

/** A run's status in words (common/labels.ts), and GONE: the run's page after it was deleted. */
export const STATUS_TEXT: Record<string, string> = { ...RUN_STATUS_LABELS, GONE: 'Deleted' };

/** A phase by its name (common/labels.ts), looked up by a name the event carries. */
export const PHASE_TEXT: Record<string, string> = PHASE_LABELS;

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
