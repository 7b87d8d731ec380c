'use client';

import { useQuery } from '@tanstack/react-query';
import type { FixFile } from '@/lib/fixes/views';
import { requestJson, retryUnlessClientError } from '../api-client';

export type { FixFile };

/** Where a fix's files come from for reviewers; the grading page passes its own route. */
export function fixFilesUrl(fixId: string): string {
  return `/api/fixes/${encodeURIComponent(fixId)}/files`;
}

/** The fix's files, whole on both sides, fetched only once the diff is opened. */
export function useFixFiles(url: string, enabled: boolean) {
  return useQuery({
    queryKey: ['files', url],
    queryFn: ({ signal }) => requestJson<{ files: FixFile[] }>(url, { signal }).then((r) => r.files),
    enabled,
    staleTime: 60_000,
    retry: retryUnlessClientError,
  });
}
