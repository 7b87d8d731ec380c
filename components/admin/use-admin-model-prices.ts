'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { requestJson } from '@/components/api-client';

export interface ModelPrice {
  inputPerMTokUsd: number;
  outputPerMTokUsd: number;
}

export interface ModelPriceTable {
  prices: Record<string, ModelPrice>;
  updatedAt: string | null;
  updatedBy: { id: string; name: string } | null;
}

export const adminModelPricesKey = ['admin', 'model-prices'] as const;

export function useAdminModelPrices() {
  return useQuery({
    queryKey: adminModelPricesKey,
    queryFn: ({ signal }) => requestJson<ModelPriceTable>('/api/admin/model-prices', { signal }),
  });
}

export function useSaveModelPrices() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { prices: Record<string, ModelPrice>; ifUpdatedAt: string | null }) =>
      requestJson<ModelPriceTable>('/api/admin/model-prices', { method: 'PUT', body: input }),
    onSuccess: (table) => client.setQueryData(adminModelPricesKey, table),
  });
}
