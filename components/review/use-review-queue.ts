'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import type { ReviewQueuePage } from '@/lib/fixes/views';
import { requestJson, retryUnlessClientError } from '../api-client';

/** Fixes waiting for review, newest first, page by page; demo history only when asked for. */
export function useReviewQueue({ includeHistory = false }: { includeHistory?: boolean } = {}) {
  return useInfiniteQuery({
    queryKey: ['review-queue', { includeHistory }],
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams();
      if (pageParam) params.set('cursor', pageParam);
      if (includeHistory) params.set('history', 'include');
      const qs = params.toString();
      return requestJson<ReviewQueuePage>(`/api/review-queue${qs ? `?${qs}` : ''}`, { signal });
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    retry: retryUnlessClientError,
  });
}
