import { z } from 'zod';
import { RUN_STATUSES } from './run-status';
import { formatAge, formatDuration, formatExactTime } from './format';

export { RUN_STATUSES };

// The runs list's query and rows, shared by GET /api/runs and the Runs page
// (browser-safe: no server imports).

const csv = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .max(500)
    .transform((s) => s.split(',').filter(Boolean))
    .pipe(z.array(z.enum(values)).max(values.length));

export const RunListQuerySchema = z.object({
  status: csv(RUN_STATUSES).optional(),
  repository: z.string().min(1).max(200).optional(),
  policy: z.string().min(1).max(40).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type RunListQuery = z.infer<typeof RunListQuerySchema>;

export interface RunListItem {
  id: string;
  status: string;
  exitReason: string | null;
  trigger: string;
  policy: string;
  model: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  /** null: unknown (a model call had no price) */
  costUsd: number | null;
  toolCalls: number;
  change: { id: string; externalId: string; title: string; isHistory: boolean };
  repository: string;
  fix: { id: string; status: string } | null;
}

export interface RunListPage {
  items: RunListItem[];
  nextCursor: string | null;
  /** what the filters can choose from */
  repositories: string[];
  policies: string[];
}

/**
 * The Runs list's "Started" cell: when a worker began the run (startedAt),
 * never when it was queued (createdAt, what the list is ordered by); the
 * time it waited in the queue goes in the title when it waited a minute or
 * more. A run not started yet says so, with how long it has been queued.
 */
export function runStartedCell(
  run: Pick<RunListItem, 'createdAt' | 'startedAt'>,
  now: number,
): { started: boolean; text: string; title: string; at: string | null } {
  const queued = Date.parse(run.createdAt);
  if (!run.startedAt) {
    return {
      started: false,
      text: `not yet (queued ${formatAge(now - queued)})`,
      title: `Queued ${formatExactTime(run.createdAt)}; no worker has started it yet`,
      at: null,
    };
  }
  const started = Date.parse(run.startedAt);
  const waited = started - queued;
  const title = `Started ${formatExactTime(run.startedAt)}${waited >= 60_000 ? `; queued ${formatDuration(waited)} before it started` : ''}`;
  return { started: true, text: formatAge(now - started), title, at: run.startedAt };
}
