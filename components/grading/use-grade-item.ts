'use client';

import { useCallback, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { GradeLabelName, GradeTagName } from '@/common/grading';
import { requestJson, retryUnlessClientError } from '../api-client';
import type { GradingItemView } from './types';

export const gradingQueueUrl = (queueId: string) => `/api/grading/queues/${encodeURIComponent(queueId)}`;
const itemUrl = (queueId: string, itemId: string) => `${gradingQueueUrl(queueId)}/items/${encodeURIComponent(itemId)}`;

export interface GradeInput {
  label: GradeLabelName;
  tags: GradeTagName[];
  rationale: string;
}

export interface GradeOutcome {
  outcome: string;
}

/**
 * The item a grader is looking at and what they can do with it. With an
 * `itemId` (from the address) it is that item, refreshed after each action;
 * without one it is the next item the server reserves for the grader, and a
 * label or a skip moves on to the one after. The key sits outside
 * `['grading', …]` on purpose: the lists under that prefix are invalidated
 * after every label, and refetching this query would reserve another item.
 */
export function useGradeItem(queueId: string, itemId: string | null) {
  const queryClient = useQueryClient();
  // each turn is one POST …/next; a new turn asks for the item after this one
  const [turn, setTurn] = useState(0);
  const item = useQuery({
    queryKey: ['grade-item', queueId, itemId ?? 'next', itemId ? 0 : turn] as const,
    queryFn: ({ signal }): Promise<GradingItemView | null> =>
      itemId
        ? requestJson<GradingItemView>(itemUrl(queueId, itemId), { signal })
        : requestJson<{ item: GradingItemView | null }>(`${gradingQueueUrl(queueId)}/next`, { method: 'POST', signal }).then((r) => r.item),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    retry: retryUnlessClientError,
  });

  const refresh = useCallback(async () => {
    await item.refetch();
  }, [item]);

  /** After a label or a skip: the same item again when it is in the address, else the next one. */
  const moveOn = useCallback(async () => {
    void queryClient.invalidateQueries({ queryKey: ['grading'] });
    if (itemId) await item.refetch();
    else setTurn((t) => t + 1);
  }, [queryClient, itemId, item]);

  const grade = useMutation({
    mutationFn: ({ itemId: id, ...body }: GradeInput & { itemId: string }) =>
      requestJson<GradeOutcome>(`${itemUrl(queueId, id)}/grade`, { method: 'POST', body }),
    onSuccess: moveOn,
  });
  const skip = useMutation({
    mutationFn: ({ itemId: id, reason }: { itemId: string; reason: string }) =>
      requestJson(`${itemUrl(queueId, id)}/skip`, { method: 'POST', body: { reason } }),
    onSuccess: moveOn,
  });
  const dispute = useMutation({
    mutationFn: ({ itemId: id, label, note }: { itemId: string; label: GradeLabelName; note: string }) =>
      requestJson(`${itemUrl(queueId, id)}/dispute`, { method: 'POST', body: { label, note } }),
    onSuccess: refresh,
  });

  return { item, grade, skip, dispute, filesUrl: (id: string) => `${itemUrl(queueId, id)}/files` };
}

export type GradeItemActions = ReturnType<typeof useGradeItem>;
