'use client';

import type { AuditPage } from '@/lib/audit';
import type { Jsonify } from '@/common/json';
import { useInfiniteQuery } from '@tanstack/react-query';
import { toAuditSearchParams } from '@/common/audit-query';
import { requestJson, retryUnlessClientError } from '../api-client';

export interface AuditFilterInput {
  actor: string;
  action: string;
  from: string;
  to: string;
}

/** The audit log under a filter, newest first, a keyset page at a time. */
export function useAdminAudit(filter: AuditFilterInput) {
  return useInfiniteQuery({
    queryKey: ['admin', 'audit', filter],
    queryFn: ({ pageParam, signal }) =>
      requestJson<Jsonify<AuditPage>>(`/api/admin/audit?${toAuditSearchParams(filter, pageParam ? { cursor: pageParam } : {})}`, { signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    retry: retryUnlessClientError,
  });
}

/** Where the export of exactly this filter downloads from. */
export function auditExportUrl(filter: AuditFilterInput, format: 'csv' | 'json'): string {
  return `/api/admin/audit/export?${toAuditSearchParams(filter, { format })}`;
}
