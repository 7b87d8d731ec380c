'use client';

import { useQuery } from '@tanstack/react-query';
import type { ChangeDetail } from '@/lib/changes/detail';
import { requestJson, retryUnlessClientError } from '../api-client';

export type { ChangeDetail };

export const changeDetailKey = (changeId: string) => ['change', changeId] as const;

/** an edit passed its re-validation this recently and is not applied yet: the apply is still under way (or was refused, which the change's status says) */
const APPLY_WAIT_MS = 10 * 60_000;
const recent = (iso: string) => Date.now() - new Date(iso).getTime() < APPLY_WAIT_MS;

/** The change page's data; the server renders the first copy, decisions and runs refresh it. */
export function useChangeDetail(changeId: string, initialData?: ChangeDetail) {
  return useQuery({
    queryKey: changeDetailKey(changeId),
    queryFn: ({ signal }) => requestJson<ChangeDetail>(`/api/changes/${encodeURIComponent(changeId)}`, { signal }),
    initialData,
    // a run in progress changes the page under the reviewer's eyes; so does
    // an edited fix being applied once its re-validation run has ended
    refetchInterval: (query) => {
      const data = query.state.data;
      const active = data?.runs.some((r) => r.status === 'QUEUED' || r.status === 'RUNNING');
      const applying = data?.fixes.some(
        (f) => f.status === 'APPLYING' || (f.status === 'READY' && f.revalidation?.status === 'FIXED' && recent(f.revalidation.createdAt)),
      );
      return active || applying ? 5_000 : false;
    },
    retry: retryUnlessClientError,
  });
}
