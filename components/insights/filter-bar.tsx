'use client';

import { useEffect, useState } from 'react';
import { RUN_TRIGGERS, type InsightsQuery } from '@/common/insights-query';
import { policyLabel } from '@/common/labels';
import { RUN_POLICIES } from '@/common/settings';
import { browserTimeZone } from '@/common/format';
import { useInsightsFilter, useInsightsOptions } from './use-insights';

const PERIODS: Array<{ value: InsightsQuery['period']; label: string }> = [
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: '90d', label: 'Last 90 days' },
  { value: 'all', label: 'All time' },
  { value: 'custom', label: 'Custom…' },
];
const TRIGGER_LABELS: Record<(typeof RUN_TRIGGERS)[number], string> = {
  AUTO: 'Automatic runs',
  MANUAL: 'Manual runs',
  REVALIDATE: 'Re-validations',
};

function todayUtc(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

// The one filter every Insights chart follows; its state is the URL.
export function InsightsFilterBar({ repositories }: { repositories: Array<{ name: string; archived: boolean }> }) {
  const [query, setQuery] = useInsightsFilter();
  const options = useInsightsOptions();
  const models = options.data?.models ?? [];
  const [zone, setZone] = useState('');
  // the zone is the browser's: read after hydration so the server's never shows
  useEffect(() => setZone(browserTimeZone()), []);
  const set = (patch: Partial<InsightsQuery>) => setQuery({ ...query, ...patch });

  return (
    <section className="insights-filters" aria-label="Insights filter" data-testid="insights-filters">
      <div className="toolbar">
        <select
          className="select"
          aria-label="Period"
          data-testid="insights-period"
          value={query.period}
          onChange={(e) => {
            const period = e.target.value as InsightsQuery['period'];
            if (period === 'custom') set({ period, from: query.from ?? todayUtc(-29), to: query.to ?? todayUtc() });
            else set({ period, from: undefined, to: undefined });
          }}
        >
          {PERIODS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
        {query.period === 'custom' && (
          <span className="row" data-testid="insights-custom-period">
            <input
              className="input"
              type="date"
              aria-label="From (UTC day)"
              value={query.from ?? ''}
              max={query.to}
              onChange={(e) => e.target.value && set({ from: e.target.value })}
            />
            <span className="muted">to</span>
            <input
              className="input"
              type="date"
              aria-label="To (UTC day, inclusive)"
              value={query.to ?? ''}
              min={query.from}
              onChange={(e) => e.target.value && set({ to: e.target.value })}
            />
          </span>
        )}
        <select
          className="select"
          aria-label="Repository"
          data-testid="insights-repo"
          value={query.repo ?? ''}
          onChange={(e) => set({ repo: e.target.value || undefined })}
        >
          <option value="">All repositories</option>
          {query.repo && !repositories.some((r) => r.name === query.repo) && <option value={query.repo}>{query.repo} (unknown)</option>}
          {repositories.map((r) => (
            <option key={r.name} value={r.name}>
              {r.name}
              {r.archived ? ' (archived)' : ''}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Policy"
          data-testid="insights-policy"
          value={query.policy ?? ''}
          onChange={(e) => set({ policy: e.target.value || undefined })}
        >
          <option value="">Every policy</option>
          {query.policy && !(RUN_POLICIES as readonly string[]).includes(query.policy) && <option value={query.policy}>{policyLabel(query.policy)}</option>}
          {RUN_POLICIES.map((p) => (
            <option key={p} value={p}>
              {policyLabel(p)}
            </option>
          ))}
        </select>
        <select
          className="select insights-model"
          aria-label="Model"
          data-testid="insights-model"
          value={query.model ?? ''}
          onChange={(e) => set({ model: e.target.value || undefined })}
        >
          <option value="">Any model</option>
          {/* a model from a copied link that no run used (or before the list arrives) */}
          {query.model && !models.includes(query.model) && (
            <option value={query.model}>
              {query.model}
              {options.isSuccess ? ' (no runs)' : ''}
            </option>
          )}
          {models.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Trigger"
          data-testid="insights-trigger"
          value={query.trigger ?? ''}
          onChange={(e) => set({ trigger: (e.target.value || undefined) as InsightsQuery['trigger'] })}
        >
          <option value="">Repairs (auto and manual)</option>
          {RUN_TRIGGERS.map((t) => (
            <option key={t} value={t}>
              {TRIGGER_LABELS[t]}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Authors"
          data-testid="insights-author"
          value={query.author ?? ''}
          onChange={(e) => set({ author: (e.target.value || undefined) as InsightsQuery['author'] })}
        >
          <option value="">People and bots</option>
          <option value="HUMAN">People only</option>
          <option value="BOT">Bots only</option>
        </select>
        <div className="insights-seg" role="group" aria-label="Buckets">
          {(['day', 'week'] as const).map((b) => (
            <button key={b} type="button" aria-pressed={query.bucket === b} onClick={() => set({ bucket: b })} data-testid={`insights-bucket-${b}`}>
              {b === 'day' ? 'Daily' : 'Weekly'}
            </button>
          ))}
        </div>
      </div>
      <p className="insights-note">
        Figures follow the changes that first failed in the period (UTC days; weeks start on Monday).
        {zone ? ` Times are shown in your time zone, ${zone}.` : ''}
      </p>
    </section>
  );
}
