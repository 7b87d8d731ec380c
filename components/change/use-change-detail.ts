'use client';

import { useQuery } from '@tanstack/react-query';
import type { ChangeDetail } from '@/lib/changes/detail';
import { requestJson, retryUnlessClientError } from '../api-client';

export type { ChangeDetail };

export const changeDetailKey = (changeId: string) => ['change', changeId] as const;

/** The change page's data; the server renders the first copy, decisions and runs refresh it. */
export function useChangeDetail(changeId: string, initialData?: ChangeDetail) {
  return useQuery({
    queryKey: changeDetailKey(changeId),
    queryFn: ({ signal }) => requestJson<ChangeDetail>(`/api/changes/${encodeURIComponent(changeId)}`, { signal }),
    initialData,
    // a run in progress changes the page under the reviewer's eyes
    refetchInterval: (query) => {
      const data = query.state.data;
      const active = data?.runs.some((r) => r.status === 'QUEUED' || r.status === 'RUNNING');
      return active ? 5_000 : false;
    },
    retry: retryUnlessClientError,
  });
}
