'use client';

import { useState } from 'react';
import { describeError } from './api';
import { formatDateTime } from '@/common/format';
import { RepositoryForm } from './repository-form';
import type { AdminRepository } from './types';
import { useAdminRepositories, useUpdateRepository } from './use-admin-repositories';
import { DataTable } from '@/components/data-table';

function RepositoryRow({ repo, onEdit }: { repo: AdminRepository; onEdit: () => void }) {
  const update = useUpdateRepository();
  const [confirming, setConfirming] = useState(false);
  const archived = repo.archivedAt !== null;
  const testCommand = typeof repo.settings.test === 'string' ? repo.settings.test : null;
  const policy = typeof repo.modelSettings.policy === 'string' ? repo.modelSettings.policy : 'offline';
  return (
    <tr data-testid="repo-row" data-name={repo.name} className={archived ? 'admin-row-muted' : undefined}>
      <td>
        <div className="admin-strong">{repo.name}</div>
        <div className="mono small muted admin-ellipsis" title={repo.gitUrl}>
          {repo.gitUrl}
        </div>
      </td>
      <td className="small">
        <span className="mono">{repo.defaultBranch}</span>
        <div className="muted">{repo.language}</div>
      </td>
      <td className="small mono admin-ellipsis" title={testCommand ?? "detected from the repository's scripts and config files"}>
        {testCommand ?? <span className="muted">detected</span>}
      </td>
      <td className="small">
        {policy}
        {!repo.effective && (
          <div>
            <span className="badge badge-rejected" title="A stored setting no longer validates; edit and save to fix it">
              invalid settings
            </span>
          </div>
        )}
      </td>
      <td className="small">{repo.changeCount}</td>
      <td data-testid="repo-status">
        {archived ? (
          <span className="badge badge-stale" title={formatDateTime(repo.archivedAt)}>
            archived
          </span>
        ) : (
          <span className="badge badge-applied">active</span>
        )}
      </td>
      <td className="admin-actions">
        <button className="btn btn-small" type="button" onClick={onEdit} data-testid="repo-edit">
          Edit
        </button>
        {archived ? (
          <button
            className="btn btn-small"
            type="button"
            disabled={update.isPending}
            onClick={() => update.mutate({ id: repo.id, archived: false })}
            data-testid="repo-unarchive"
          >
            Restore
          </button>
        ) : confirming ? (
          <>
            <button
              className="btn btn-small btn-danger"
              type="button"
              disabled={update.isPending}
              onClick={() => update.mutate({ id: repo.id, archived: true }, { onSuccess: () => setConfirming(false) })}
              data-testid="repo-archive-confirm"
            >
              Archive
            </button>
            <button className="btn btn-small" type="button" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <button
            className="btn btn-small btn-danger"
            type="button"
            onClick={() => setConfirming(true)}
            title="History stays; new failure reports are refused"
            data-testid="repo-archive"
          >
            Archive…
          </button>
        )}
        {update.isError && (
          <div className="alert alert-error small" role="alert">
            {describeError(update.error)}
          </div>
        )}
      </td>
    </tr>
  );
}

export function RepositoriesPanel() {
  const repositories = useAdminRepositories();
  // null: no form; 'new': the register form; an id: editing that repository
  const [editing, setEditing] = useState<string | null>(null);
  const editingRepo = editing && editing !== 'new' ? (repositories.data?.find((r) => r.id === editing) ?? null) : null;

  return (
    <section className="stack" data-testid="admin-repositories">
      <div className="toolbar">
        <p className="muted admin-lead">Repositories flowfix repairs: where they live, how to build and test them, and which policies apply.</p>
        <button className="btn btn-primary" type="button" onClick={() => setEditing('new')} disabled={editing !== null} data-testid="repo-new">
          Register repository
        </button>
      </div>
      {editing === 'new' && <RepositoryForm key="new" repo={null} onDone={() => setEditing(null)} />}
      {editingRepo && <RepositoryForm key={editingRepo.id} repo={editingRepo} onDone={() => setEditing(null)} />}
      <DataTable
        label="Repositories"
        headers={['Repository', 'Branch', 'Target test command', 'Policy', 'Changes', 'Status', '']}
        query={repositories}
        rows={repositories.data}
        loading="Loading repositories…"
        empty="No repositories yet. Register one so CI can report its failures."
      >
        {(r) => (
          <RepositoryRow
            key={r.id}
            repo={r}
            onEdit={() => {
              setEditing(r.id);
              window.scrollTo({ top: 0, behavior: 'smooth' });
            }}
          />
        )}
      </DataTable>
    </section>
  );
}
