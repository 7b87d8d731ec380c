'use client';

import { useQuery } from '@tanstack/react-query';
import type { FixFile } from '@/lib/fixes/views';
import { requestJson, retryUnlessClientError } from '../api-client';

export type { FixFile };

/** The fix's files, whole on both sides, fetched only once the diff is opened. */
export function useFixFiles(fixId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['fix', fixId, 'files'],
    queryFn: ({ signal }) =>
      requestJson<{ files: FixFile[] }>(`/api/fixes/${encodeURIComponent(fixId)}/files`, { signal }).then((r) => r.files),
    enabled,
    staleTime: 60_000,
    retry: retryUnlessClientError,
  });
}
