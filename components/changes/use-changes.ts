'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import type { ChangeListItem, ChangeListPage } from '@/lib/changes/list-changes';
import { toChangeListSearchParams, type ChangeListFilters } from '@/common/change-query';
import { requestJson, retryUnlessClientError } from '../api-client';

export type { ChangeListItem, ChangeListPage };

async function fetchChangesPage({
  filters,
  cursor,
  signal,
}: {
  filters: ChangeListFilters;
  cursor: string | undefined;
  signal: AbortSignal;
}): Promise<ChangeListPage> {
  const qs = toChangeListSearchParams(filters, { cursor });
  return requestJson<ChangeListPage>(`/api/changes?${qs}`, { signal });
}

/** The changes list, page by page (cursor), keyed by its filters. */
export function useChanges(filters: ChangeListFilters) {
  return useInfiniteQuery({
    queryKey: ['changes', filters],
    queryFn: ({ pageParam, signal }) => fetchChangesPage({ filters, cursor: pageParam, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // running changes show a time-left estimate: keep it (and their status) fresh
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.items.some((i) => Boolean(i.activeRun))) ? 10_000 : false),
    // a 4xx will not get better by asking again
    retry: retryUnlessClientError,
  });
}
