'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { requestJson } from '../api-client';

// The signed-in user's personal API tokens (/api/me/tokens), for the CLI and the editor extension.

export type PersonalTokenScope = 'read' | 'decide';
export type PersonalTokenKind = 'cli' | 'ide';

export interface PersonalToken {
  id: string;
  name: string;
  prefix: string;
  scope: PersonalTokenScope;
  kind: PersonalTokenKind;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export const personalTokensKey = ['me', 'tokens'] as const;

export function usePersonalTokens() {
  return useQuery({
    queryKey: personalTokensKey,
    queryFn: () => requestJson<{ tokens: PersonalToken[] }>('/api/me/tokens').then((r) => r.tokens),
  });
}

export function useIssuePersonalToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; scope: PersonalTokenScope; kind: PersonalTokenKind; expiresAt?: string }) =>
      requestJson<{ token: string; record: PersonalToken }>('/api/me/tokens', { method: 'POST', body: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: personalTokensKey }),
  });
}

export function useRevokePersonalToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => requestJson<{ token: PersonalToken }>(`/api/me/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' }).then((r) => r.token),
    onSuccess: () => client.invalidateQueries({ queryKey: personalTokensKey }),
  });
}
