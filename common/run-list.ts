import { z } from 'zod';
import { RUN_STATUSES } from './run-status';

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

