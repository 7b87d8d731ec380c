'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import type { ReviewQueuePage } from '@/lib/fixes/views';
import { requestJson, retryUnlessClientError } from '../api-client';

/** Fixes waiting for review, newest first, page by page. */
export function useReviewQueue() {
  return useInfiniteQuery({
    queryKey: ['review-queue'],
    queryFn: ({ pageParam, signal }) =>
      requestJson<ReviewQueuePage>(`/api/review-queue${pageParam ? `?cursor=${encodeURIComponent(pageParam)}` : ''}`, { signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    retry: retryUnlessClientError,
  });
}
