'use client';

import { useMemo } from 'react';
import { usePathname, useSearchParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { insightsQueryFromSearchParams, toInsightsSearchParams, type InsightsQuery, type InsightsSection } from '@/common/insights-query';
import type { Adoption, Cost, Funnel, GradedPrecision, Latency, NoFixReasons, Overview } from '@/lib/insights';
import { requestJson, retryUnlessClientError } from '../api-client';

// The URL is the one source of truth for the Insights filter (a copied link
// shows the same figures); the native history API updates it without a
// server round trip and only the figures are fetched again.

export function useInsightsFilter(): [InsightsQuery, (next: InsightsQuery) => void, string] {
  const params = useSearchParams();
  const pathname = usePathname();
  const key = params.toString();
  const query = useMemo(() => insightsQueryFromSearchParams(new URLSearchParams(key)), [key]);
  const setQuery = (next: InsightsQuery) => {
    const qs = toInsightsSearchParams(next).toString();
    window.history.pushState(null, '', qs ? `${pathname}?${qs}` : pathname);
  };
  return [query, setQuery, toInsightsSearchParams(query).toString()];
}

export interface SectionData {
  overview: Overview;
  funnel: Funnel;
  adoption: Adoption;
  latency: Latency;
  cost: Cost;
  quality: { noFix: NoFixReasons; precision: GradedPrecision };
}

export interface SectionAnswer<S extends InsightsSection> {
  section: S;
  /** UTC ISO instants; from null = all time */
  period: { from: string | null; to: string };
  data: SectionData[S];
}

/** What the filter bar offers: the models runs have used, newest first. They change only as runs start. */
export function useInsightsOptions() {
  return useQuery({
    queryKey: ['insights', 'options'],
    queryFn: ({ signal }) => requestJson<{ models: string[] }>('/api/insights/options', { signal }),
    staleTime: 5 * 60_000,
    retry: retryUnlessClientError,
  });
}

export function useInsightsSection<S extends InsightsSection>(section: S, query: InsightsQuery) {
  const qs = toInsightsSearchParams(query).toString();
  return useQuery({
    queryKey: ['insights', section, qs],
    queryFn: ({ signal }) => requestJson<SectionAnswer<S>>(`/api/insights/${section}${qs ? `?${qs}` : ''}`, { signal }),
    placeholderData: (previous) => previous,
    retry: retryUnlessClientError,
  });
}
