'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { requestJson } from '@/components/api-client';
import type { AdminToken } from './types';

export const adminTokensKey = ['admin', 'tokens'] as const;

export function useAdminTokens() {
  return useQuery({
    queryKey: adminTokensKey,
    queryFn: () => requestJson<{ tokens: AdminToken[] }>('/api/admin/tokens').then((r) => r.tokens),
  });
}

export function useIssueToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; allRepositories: boolean; repositoryIds: string[]; expiresAt: string | null }) =>
      requestJson<{ token: string; record: AdminToken }>('/api/admin/tokens', { method: 'POST', body: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: adminTokensKey }),
  });
}

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => requestJson<{ token: AdminToken }>(`/api/admin/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' }).then((r) => r.token),
    onSuccess: () => client.invalidateQueries({ queryKey: adminTokensKey }),
  });
}
