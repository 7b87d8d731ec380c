'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RunSummary } from '@/lib/runs/queries';
import { requestJson } from '../api-client';

export type { RunSummary };

export const runQueryKey = (runId: string) => ['run', runId] as const;

/**
 * The run row (status, counters, fix). The page renders it on the server;
 * while the run is active it is refreshed now and then for the counters, and
 * the page invalidates it when the stream says something changed.
 */
export function useRun({ runId, initial, active }: { runId: string; initial: RunSummary; active: boolean }) {
  return useQuery({
    queryKey: runQueryKey(runId),
    queryFn: ({ signal }) => requestJson<{ run: RunSummary }>(`/api/runs/${encodeURIComponent(runId)}`, { signal }).then((r) => r.run),
    initialData: initial,
    refetchInterval: active ? 10_000 : false,
  });
}

/** POST /api/runs/:id/cancel — the worker turns the flag into an abort. */
export function useCancelRun(runId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => requestJson<unknown>(`/api/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' }),
    onSettled: () => client.invalidateQueries({ queryKey: runQueryKey(runId) }),
  });
}
