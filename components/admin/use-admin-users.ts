'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { requestJson } from '@/components/api-client';
import type { AdminUser, RoleName } from './types';

export const adminUsersKey = ['admin', 'users'] as const;

export function useAdminUsers() {
  return useQuery({
    queryKey: adminUsersKey,
    queryFn: () => requestJson<{ users: AdminUser[] }>('/api/admin/users').then((r) => r.users),
  });
}

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; name: string; password: string; roles: RoleName[] }) =>
      requestJson<{ user: AdminUser }>('/api/admin/users', { method: 'POST', body: input }).then((r) => r.user),
    onSuccess: () => client.invalidateQueries({ queryKey: adminUsersKey }),
  });
}

export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...patch }: { id: string; name?: string; roles?: RoleName[]; disabled?: boolean; password?: string }) =>
      requestJson<{ user: AdminUser }>(`/api/admin/users/${encodeURIComponent(id)}`, { method: 'PATCH', body: patch }).then((r) => r.user),
    onSuccess: () => client.invalidateQueries({ queryKey: adminUsersKey }),
  });
}

/** Lifts a sign-in lock (too many failed attempts) before it runs out. */
export function useUnlockUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      requestJson<{ user: AdminUser }>(`/api/admin/users/${encodeURIComponent(id)}/unlock`, { method: 'POST', body: {} }).then((r) => r.user),
    onSuccess: () => client.invalidateQueries({ queryKey: adminUsersKey }),
  });
}
