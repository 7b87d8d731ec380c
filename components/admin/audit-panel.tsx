'use client';

import { useState } from 'react';
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

function target(e: AdminAuditEntry): string {
  if (!e.targetType) return '—';
  return e.targetId ? `${e.targetType} ${e.targetId}` : e.targetType;
}

export function AuditPanel() {
  const [filter, setFilter] = useState<AuditFilterInput>(EMPTY);
  const audit = useAdminAudit(filter);
  const users = useAdminUsers();
  const actions = audit.data?.pages[0]?.actions ?? [];
  const entries = audit.data?.pages.flatMap((p) => p.entries) ?? [];
  const set = (k: keyof AuditFilterInput) => (e: { target: { value: string } }) => setFilter((f) => ({ ...f, [k]: e.target.value }));

  return (
    <section className="stack" data-testid="admin-audit">
      <div className="toolbar">
        <p className="muted admin-lead">Who did what, newest first: sign-ins and failed attempts, lockouts, role changes, tokens, decisions on fixes and settings.</p>
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
        {filter !== EMPTY && (
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
            <td className="small mono admin-ellipsis" title={target(e)}>
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
