'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import type { ChangeListItem, ChangeListPage } from '@/lib/changes/list-changes';
import { toChangeListSearchParams, type ChangeListFilters } from '@/lib/changes/query-schema';

export type { ChangeListItem, ChangeListPage };

export class ChangesRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ChangesRequestError';
  }
}

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
  const res = await fetch(`/api/changes?${qs}`, { signal, headers: { accept: 'application/json' } });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new ChangesRequestError(body?.error?.message ?? `Request failed (${res.status})`, res.status);
  }
  return (await res.json()) as ChangeListPage;
}

/** The triage list, page by page (cursor), keyed by its filters. */
export function useChanges(filters: ChangeListFilters) {
  return useInfiniteQuery({
    queryKey: ['changes', filters],
    queryFn: ({ pageParam, signal }) => fetchChangesPage({ filters, cursor: pageParam, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // running changes show a time-left estimate: keep it (and their status) fresh
    refetchInterval: (query) =>
      query.state.data?.pages.some((p) => p.items.some((i) => Boolean(i.activeRun))) ? 10_000 : false,
    // a 4xx will not get better by asking again
    retry: (count, error) => !(error instanceof ChangesRequestError && error.status < 500) && count < 1,
  });
}
