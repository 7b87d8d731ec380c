'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { requestJson } from '@/components/api-client';
import type { AdminRepository } from './types';

export const adminRepositoriesKey = ['admin', 'repositories'] as const;

export interface RepositoryInput {
  name: string;
  gitUrl: string;
  defaultBranch: string;
  language: string;
  settings: Record<string, unknown>;
  filterPolicy: Record<string, unknown>;
  modelSettings: Record<string, unknown>;
}

export function useAdminRepositories() {
  return useQuery({
    queryKey: adminRepositoriesKey,
    queryFn: () => requestJson<{ repositories: AdminRepository[] }>('/api/admin/repositories').then((r) => r.repositories),
  });
}

export function useRegisterRepository() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: RepositoryInput) =>
      requestJson<{ repository: AdminRepository }>('/api/admin/repositories', { method: 'POST', body: input }).then((r) => r.repository),
    onSuccess: () => client.invalidateQueries({ queryKey: adminRepositoriesKey }),
  });
}

export function useUpdateRepository() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...patch }: Partial<RepositoryInput> & { id: string; archived?: boolean }) =>
      requestJson<{ repository: AdminRepository }>(`/api/admin/repositories/${encodeURIComponent(id)}`, { method: 'PATCH', body: patch }).then(
        (r) => r.repository,
      ),
    // token scopes list repository names, so refresh tokens too
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: adminRepositoriesKey }), client.invalidateQueries({ queryKey: ['admin', 'tokens'] })]),
  });
}
