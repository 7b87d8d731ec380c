'use client';

import { usePathname, useSearchParams } from 'next/navigation';
import { useMemo } from 'react';
import { formatDateTime } from '@/common/format';
import type { AdminAuditEntry } from './types';
import { useAdminUsers } from './use-admin-users';
import { auditExportUrl, useAdminAudit, type AuditFilterInput } from './use-admin-audit';
import { DataTable } from '@/components/data-table';

const EMPTY: AuditFilterInput = { actor: '', action: '', from: '', to: '' };

function actorLabel(e: AdminAuditEntry): string {
  if (e.actor) return e.actor.email;
  return e.actorKind === 'system' ? 'system' : e.actorKind === 'token' ? 'CI token' : 'anonymous';
}

const TARGET_TYPE: Record<string, string> = {
  ci_token: 'CI token',
  personal_token: 'personal token',
  code_host: 'code host',
  grading_queue: 'grading queue',
  system_setting: 'setting',
};

/** "user Ada <ada@example.com>": the target by name (lib/audit.ts names it), its id when it has none (deleted, or a setting's key) */
function target(e: AdminAuditEntry): string {
  if (!e.targetType) return '—';
  const type = TARGET_TYPE[e.targetType] ?? e.targetType;
  if (e.targetType === 'account') return `account ${e.targetId ?? ''}`.trim();
  return `${type} ${e.targetName ?? e.targetId ?? ''}`.trim();
}

const FILTER_KEYS = ['actor', 'action', 'from', 'to'] as const satisfies ReadonlyArray<keyof AuditFilterInput>;

// The URL holds the filter (/admin?tab=audit&action=auth.&from=…), as on the
// triage list: a reload, a copied link and back/forward show the same entries.
// The native history API updates it without a server round trip (Next's
// router syncs useSearchParams with it); only the entries are fetched again.
function useUrlAuditFilter(): [AuditFilterInput, (next: AuditFilterInput) => void] {
  const params = useSearchParams();
  const pathname = usePathname();
  const key = params.toString();
  const filter = useMemo(() => {
    const p = new URLSearchParams(key);
    return { actor: p.get('actor') ?? '', action: p.get('action') ?? '', from: p.get('from') ?? '', to: p.get('to') ?? '' };
  }, [key]);
  const setFilter = (next: AuditFilterInput) => {
    const qs = new URLSearchParams(key);
    for (const k of FILTER_KEYS) {
      if (next[k].trim()) qs.set(k, next[k].trim());
      else qs.delete(k);
    }
    const text = qs.toString();
    window.history.pushState(null, '', text ? `${pathname}?${text}` : pathname);
  };
  return [filter, setFilter];
}

export function AuditPanel() {
  const [filter, setFilter] = useUrlAuditFilter();
  const audit = useAdminAudit(filter);
  const users = useAdminUsers();
  const actions = audit.data?.pages[0]?.actions ?? [];
  const entries = audit.data?.pages.flatMap((p) => p.entries) ?? [];
  const set = (k: keyof AuditFilterInput) => (e: { target: { value: string } }) => setFilter({ ...filter, [k]: e.target.value });
  const filtered = FILTER_KEYS.some((k) => filter[k] !== '');

  return (
    <section className="stack" data-testid="admin-audit">
      <div className="toolbar">
        <p className="muted admin-lead">
          Who did what, newest first: sign-ins and failed attempts, lockouts, role changes, tokens, decisions on fixes and settings.
        </p>
        <a className="btn btn-small" href={auditExportUrl(filter, 'csv')} download data-testid="audit-export-csv">
          Export CSV
        </a>
        <a className="btn btn-small" href={auditExportUrl(filter, 'json')} download data-testid="audit-export-json">
          Export JSON
        </a>
      </div>
      <div className="row" role="search" aria-label="Filter the audit log">
        <label className="field">
          Actor
          <select className="input" value={filter.actor} onChange={set('actor')} data-testid="audit-filter-actor">
            <option value="">anyone</option>
            {users.data?.map((u) => (
              <option key={u.id} value={u.id}>
                {u.email}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Action
          <select className="input" value={filter.action} onChange={set('action')} data-testid="audit-filter-action">
            <option value="">any</option>
            {[...new Set(actions.map((a) => `${a.split('.')[0]}.`))].map((family) => (
              <option key={family} value={family}>
                {family}*
              </option>
            ))}
            {actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          From
          <input className="input" type="date" value={filter.from} onChange={set('from')} data-testid="audit-filter-from" />
        </label>
        <label className="field">
          To
          <input className="input" type="date" value={filter.to} onChange={set('to')} data-testid="audit-filter-to" />
        </label>
        {filtered && (
          <button className="btn btn-small" type="button" onClick={() => setFilter(EMPTY)} data-testid="audit-filter-clear">
            Clear
          </button>
        )}
      </div>
      <DataTable
        label="Audit log entries"
        headers={['When', 'Actor', 'Action', 'Target', 'Details']}
        query={audit}
        rows={entries}
        loading="Loading the audit log…"
        empty="No entries match this filter."
        errorTestId="audit-error"
      >
        {(e) => (
          <tr key={e.id} data-testid="audit-row" data-id={e.id} data-action={e.action}>
            <td className="small">{formatDateTime(e.createdAt)}</td>
            <td className="small mono">{actorLabel(e)}</td>
            <td className="mono small" data-testid="audit-action">
              {e.action}
            </td>
            <td className="small admin-ellipsis" title={e.targetId ? `${target(e)} · id ${e.targetId}` : target(e)} data-testid="audit-target">
              {target(e)}
            </td>
            <td className="small mono admin-ellipsis" title={JSON.stringify(e.data)}>
              {JSON.stringify(e.data)}
            </td>
          </tr>
        )}
      </DataTable>
      {audit.hasNextPage && (
        <button className="btn" type="button" onClick={() => audit.fetchNextPage()} disabled={audit.isFetchingNextPage} data-testid="audit-more">
          {audit.isFetchingNextPage ? 'Loading…' : 'Older entries'}
        </button>
      )}
    </section>
  );
}
