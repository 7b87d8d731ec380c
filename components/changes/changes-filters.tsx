'use client';

import { CHANGE_STATUSES, funnelDrillDown, type ChangeListFilters, type ChangeStatusName } from '@/common/change-query';
import { formatDateTime } from '@/common/format';
import { dropReasonLabel, skipReasonLabel, statusReasonLabel } from '@/common/labels';
import { SearchBox } from './search-box';
import { AGE_PRESETS, STATUS_LABELS } from './status-labels';

export interface RepositoryOption {
  name: string;
  archived: boolean;
}

function agePresetOf(filters: ChangeListFilters): string {
  const match = AGE_PRESETS.find((p) => p.minAge === filters.minAge && p.maxAge === filters.maxAge);
  // a hand-written range from a shared URL keeps working; the select shows it as custom
  return match ? match.value : 'custom';
}

export function hasActiveFilters(filters: ChangeListFilters): boolean {
  return Boolean(
    filters.status?.length ||
    filters.repo ||
    filters.kind ||
    filters.history !== 'include' ||
    filters.author ||
    filters.reason ||
    filters.funnel ||
    filters.q ||
    filters.minAge ||
    filters.maxAge,
  );
}

export function ChangesFilters({
  filters,
  repositories,
  onChange,
}: {
  filters: ChangeListFilters;
  repositories: RepositoryOption[];
  onChange: (next: ChangeListFilters, how?: { replace?: boolean }) => void;
}) {
  const selected = new Set(filters.status ?? []);
  const agePreset = agePresetOf(filters);
  const drill = funnelDrillDown(filters);

  function toggleStatus(status: ChangeStatusName) {
    const next = new Set(selected);
    if (next.has(status)) next.delete(status);
    else next.add(status);
    // keep the URL's order stable whatever order the chips were clicked in
    const list = CHANGE_STATUSES.filter((s) => next.has(s));
    onChange({ ...filters, status: list.length ? list : undefined });
  }

  return (
    <section className="triage-filters" data-testid="triage-filters" aria-label="Filters">
      <div className="toolbar">
        <SearchBox value={filters.q ?? ''} onCommit={(q) => onChange({ ...filters, q: q || undefined }, { replace: true })} />
        <select
          className="select"
          aria-label="Repository"
          data-testid="triage-repo-filter"
          value={filters.repo ?? ''}
          onChange={(e) => onChange({ ...filters, repo: e.target.value || undefined })}
        >
          <option value="">All repositories</option>
          {filters.repo && !repositories.some((r) => r.name === filters.repo) && <option value={filters.repo}>{filters.repo} (unknown)</option>}
          {repositories.map((r) => (
            <option key={r.name} value={r.name}>
              {r.name}
              {r.archived ? ' (archived)' : ''}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Author kind"
          data-testid="triage-kind-filter"
          value={filters.kind ?? ''}
          onChange={(e) => onChange({ ...filters, kind: (e.target.value || undefined) as ChangeListFilters['kind'] })}
        >
          <option value="">People and bots</option>
          <option value="HUMAN">People only</option>
          <option value="BOT">Bots only</option>
        </select>
        <select
          className="select"
          aria-label="Age of the latest failure"
          data-testid="triage-age-filter"
          value={agePreset}
          onChange={(e) => {
            const preset = AGE_PRESETS.find((p) => p.value === e.target.value);
            if (preset) onChange({ ...filters, minAge: preset.minAge, maxAge: preset.maxAge });
          }}
        >
          {AGE_PRESETS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
          {agePreset === 'custom' && (
            <option value="custom" disabled>
              Custom: {filters.minAge ? `older than ${filters.minAge}` : ''}
              {filters.minAge && filters.maxAge ? ', ' : ''}
              {filters.maxAge ? `newer than ${filters.maxAge}` : ''}
            </option>
          )}
        </select>
        <label className="triage-toggle">
          <input
            type="checkbox"
            data-testid="triage-history-toggle"
            checked={filters.history === 'exclude'}
            onChange={(e) => onChange({ ...filters, history: e.target.checked ? 'exclude' : 'include' })}
          />
          Hide demo history
        </label>
      </div>
      <div className="toolbar triage-status-row">
        <div className="triage-chips" role="group" aria-label="Status" data-testid="triage-status-filter">
          {CHANGE_STATUSES.map((status) => (
            <button
              key={status}
              type="button"
              className={`triage-chip${selected.has(status) ? ' triage-chip-on' : ''}`}
              aria-pressed={selected.has(status)}
              data-status={status}
              onClick={() => toggleStatus(status)}
            >
              {STATUS_LABELS[status]}
            </button>
          ))}
        </div>
        {filters.author && (
          <span className="triage-active-filter" data-testid="triage-author-filter">
            author: <strong>{filters.author}</strong>
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Remove author filter ${filters.author}`}
              onClick={() => onChange({ ...filters, author: undefined })}
            >
              ×
            </button>
          </span>
        )}
        {filters.reason && (
          <span className="triage-active-filter" data-testid="triage-reason-filter">
            reason: <strong>{statusReasonLabel(filters.reason)}</strong>
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Remove reason filter ${filters.reason}`}
              onClick={() => onChange({ ...filters, reason: undefined })}
            >
              ×
            </button>
          </span>
        )}
        {drill && (
          <span className="triage-active-filter" data-testid="triage-funnel-filter">
            Insights:{' '}
            <strong>{drill.step === 'skipped' ? `skipped, ${skipReasonLabel(drill.reason)}` : `fix dropped, ${dropReasonLabel(drill.reason)}`}</strong>
            {`, first failed ${drill.from ? formatDateTime(drill.from) : 'any time'} – ${formatDateTime(drill.to)}`}
            <button
              type="button"
              className="btn btn-small"
              aria-label="Remove the Insights filter"
              onClick={() =>
                onChange({ ...filters, funnel: undefined, firstFrom: undefined, firstTo: undefined, policy: undefined, model: undefined, trigger: undefined })
              }
            >
              ×
            </button>
          </span>
        )}
        {hasActiveFilters(filters) && (
          <button type="button" className="btn btn-small" data-testid="triage-clear-filters" onClick={() => onChange({ history: 'include' })}>
            Clear filters
          </button>
        )}
      </div>
    </section>
  );
}
