'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import type { RunListPage } from '@/common/run-list';
import { requestJson, retryUnlessClientError } from '../api-client';

export interface RunFilters {
  status: string[];
  repository: string;
  policy: string;
}

export function runFiltersToParams(filters: RunFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.status.length) params.set('status', filters.status.join(','));
  if (filters.repository) params.set('repository', filters.repository);
  if (filters.policy) params.set('policy', filters.policy);
  return params;
}

/** Every run, newest first, page by page, for these filters. */
export function useRuns(filters: RunFilters) {
  return useInfiniteQuery({
    queryKey: ['runs', filters],
    queryFn: ({ pageParam, signal }) => {
      const params = runFiltersToParams(filters);
      if (pageParam) params.set('cursor', pageParam);
      return requestJson<RunListPage>(`/api/runs?${params.toString()}`, { signal });
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    retry: retryUnlessClientError,
    // queued and running rows move on by themselves
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.items.some((r) => r.status === 'QUEUED' || r.status === 'RUNNING')) ? 5_000 : false),
  });
}
