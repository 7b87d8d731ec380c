'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { requestJson } from '@/components/api-client';
import type { AdminHost, AdminHostRepository } from './types';

export const adminHostsKey = ['admin', 'hosts'] as const;

export type RegisterHostInput =
  | { kind: 'GITHUB'; name: string; apiBaseUrl: string; appId: string; appSlug?: string; privateKey: string; webhookSecret: string }
  | { kind: 'GITLAB'; name: string; apiBaseUrl: string; token: string; webhookSecret: string };

export function useAdminHosts() {
  return useQuery({
    queryKey: adminHostsKey,
    queryFn: () => requestJson<{ hosts: AdminHost[] }>('/api/admin/hosts').then((r) => r.hosts),
  });
}

export function useRegisterHost() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: RegisterHostInput) => requestJson<{ host: AdminHost }>('/api/admin/hosts', { method: 'POST', body: input }).then((r) => r.host),
    onSuccess: () => client.invalidateQueries({ queryKey: adminHostsKey }),
  });
}

/** The projects the host lists for flowfix (fetched when the admin opens the list). */
export function useHostRepositories(hostId: string | null) {
  return useQuery({
    queryKey: [...adminHostsKey, hostId, 'repositories'],
    enabled: hostId !== null,
    queryFn: () =>
      requestJson<{ repositories: AdminHostRepository[] }>(`/api/admin/hosts/${encodeURIComponent(hostId ?? '')}/repositories`).then((r) => r.repositories),
  });
}

export function useLinkRepository(hostId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { externalId: string; repositoryId: string; artifactName?: string; junitGlob?: string }) =>
      requestJson<{ host: AdminHost }>(`/api/admin/hosts/${encodeURIComponent(hostId)}/repositories`, { method: 'POST', body: input }).then((r) => r.host),
    onSuccess: () => client.invalidateQueries({ queryKey: adminHostsKey }),
  });
}

export function useGitHubManifest(enabled: boolean) {
  return useQuery({
    queryKey: [...adminHostsKey, 'manifest'],
    enabled,
    queryFn: () => requestJson<{ manifest: Record<string, unknown> }>('/api/admin/hosts/github-manifest').then((r) => r.manifest),
  });
}
