'use client';

import { useState, type FormEvent } from 'react';
import { describeError } from './api';
import { formatAgo, formatDateTime } from '@/common/format';
import type { AdminToken } from './types';
import { useAdminRepositories } from './use-admin-repositories';
import { useAdminTokens, useIssueToken, useRevokeToken } from './use-admin-tokens';
import { DataTable } from '@/components/data-table';
import { TokenExpiryField, expiresAtFor, type TokenExpiryChoice } from '@/components/token-expiry';

function IssuedToken({ token, name, onDismiss }: { token: string; name: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(token);
      setCopied(true);
    } catch {
      // clipboard needs a secure context; the text is selectable anyway
      setCopied(false);
    }
  }
  return (
    <div className="card admin-issued" role="status">
      <h3 className="card-title">Token “{name}” issued</h3>
      <div className="alert alert-info">
        Copy it now: this is the only time it is shown. flowfix keeps only a hash. Store it as a secret in your CI (for example
        <code> FLOWFIX_TOKEN</code>) and send it as <code>Authorization: Bearer …</code>.
      </div>
      <div className="row admin-issued-row">
        <input
          className="input mono admin-issued-input"
          readOnly
          value={token}
          onFocus={(e) => e.currentTarget.select()}
          aria-label="The new CI token"
          data-testid="issued-token"
        />
        <button className="btn" type="button" onClick={copy} data-testid="issued-token-copy">
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button className="btn" type="button" onClick={onDismiss} data-testid="issued-token-done">
          I have stored it
        </button>
      </div>
    </div>
  );
}

function IssueTokenForm({ onIssued, onCancel }: { onIssued: (r: { token: string; name: string }) => void; onCancel: () => void }) {
  const issue = useIssueToken();
  const repositories = useAdminRepositories();
  const [name, setName] = useState('');
  // one repository's CI is the usual case: "all repositories" is a deliberate choice
  const [scope, setScope] = useState<'all' | 'chosen'>('chosen');
  const [expiry, setExpiry] = useState<TokenExpiryChoice>('90');
  const [chosen, setChosen] = useState<string[]>([]);
  const active = repositories.data?.filter((r) => !r.archivedAt) ?? [];

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    issue.mutate(
      { name, allRepositories: scope === 'all', repositoryIds: scope === 'all' ? [] : chosen, expiresAt: expiresAtFor(expiry) },
      { onSuccess: (r) => onIssued({ token: r.token, name: r.record.name }) },
    );
  }

  return (
    <form className="card stack" onSubmit={onSubmit} data-testid="token-issue-form">
      <h3 className="card-title">Issue a CI token</h3>
      <label className="field admin-narrow">
        Name
        <input
          className="input"
          required
          placeholder="e.g. github-actions shop"
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="token-name"
        />
      </label>
      <fieldset className="admin-fieldset">
        <legend>May report failures for</legend>
        <label className="admin-check">
          <input type="radio" name="scope" checked={scope === 'all'} onChange={() => setScope('all')} data-testid="token-scope-all" />
          all repositories, including ones registered later
        </label>
        <label className="admin-check">
          <input type="radio" name="scope" checked={scope === 'chosen'} onChange={() => setScope('chosen')} data-testid="token-scope-chosen" />
          only these repositories:
        </label>
        {scope === 'chosen' && (
          <div className="admin-repo-choices">
            {active.length === 0 && <span className="muted small">No active repositories yet: register one first.</span>}
            {active.map((r) => (
              <label key={r.id} className="admin-check">
                <input
                  type="checkbox"
                  checked={chosen.includes(r.id)}
                  onChange={(e) => setChosen(e.target.checked ? [...chosen, r.id] : chosen.filter((id) => id !== r.id))}
                  data-testid={`token-repo-${r.name}`}
                />
                {r.name}
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <TokenExpiryField value={expiry} onChange={setExpiry} testId="token-expiry" />
      {issue.isError && (
        <div className="alert alert-error" role="alert" data-testid="token-issue-error">
          {describeError(issue.error)}
        </div>
      )}
      <div className="row">
        <button
          className="btn btn-primary"
          type="submit"
          disabled={issue.isPending || (scope === 'chosen' && chosen.length === 0)}
          data-testid="token-issue-submit"
        >
          {issue.isPending ? 'Issuing…' : 'Issue token'}
        </button>
        <button className="btn" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function TokenRow({ token }: { token: AdminToken }) {
  const revoke = useRevokeToken();
  const [confirming, setConfirming] = useState(false);
  const revoked = token.revokedAt !== null;
  const expired = !revoked && token.expiresAt !== null && new Date(token.expiresAt).getTime() < Date.now();
  return (
    <tr data-testid="token-row" data-name={token.name} className={revoked || expired ? 'admin-row-muted' : undefined}>
      <td>
        <div className="admin-strong">{token.name}</div>
        <div className="mono small muted">{token.prefix}…</div>
      </td>
      <td>
        {token.allRepositories ? (
          <span className="badge">all repositories</span>
        ) : (
          <div className="row">
            {token.repositories.map((r) => (
              <span key={r.id} className="badge">
                {r.name}
              </span>
            ))}
            {token.repositories.length === 0 && <span className="muted small">none (repositories removed)</span>}
          </div>
        )}
      </td>
      <td className="small">
        {token.createdBy ? token.createdBy.name : <span className="muted">system</span>}
        <div className="muted">{formatDateTime(token.createdAt)}</div>
      </td>
      <td className="small">{formatAgo(token.lastUsedAt)}</td>
      <td className="small" data-testid="token-expires">
        {token.expiresAt ? formatDateTime(token.expiresAt) : 'never'}
      </td>
      <td data-testid="token-status">
        {revoked ? (
          <span className="badge badge-rejected" title={formatDateTime(token.revokedAt)}>
            revoked {formatDateTime(token.revokedAt)}
          </span>
        ) : expired ? (
          <span className="badge badge-stale">expired</span>
        ) : (
          <span className="badge badge-applied">active</span>
        )}
      </td>
      <td className="admin-actions">
        {!revoked &&
          (confirming ? (
            <div className="row">
              <span className="small">CI using it will be refused.</span>
              <button
                className="btn btn-small btn-danger"
                type="button"
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(token.id, { onSuccess: () => setConfirming(false) })}
                data-testid="token-revoke-confirm"
              >
                Revoke
              </button>
              <button className="btn btn-small" type="button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </div>
          ) : (
            <button className="btn btn-small btn-danger" type="button" onClick={() => setConfirming(true)} data-testid="token-revoke">
              Revoke…
            </button>
          ))}
        {revoke.isError && (
          <div className="alert alert-error small" role="alert">
            {describeError(revoke.error)}
          </div>
        )}
      </td>
    </tr>
  );
}

export function TokensPanel() {
  const tokens = useAdminTokens();
  const [issuing, setIssuing] = useState(false);
  const [issued, setIssued] = useState<{ token: string; name: string } | null>(null);

  return (
    <section className="stack" data-testid="admin-tokens">
      <div className="toolbar">
        <p className="muted admin-lead">CI systems report failing changes with these tokens. A token is shown once, then only its prefix.</p>
        <button
          className="btn btn-primary"
          type="button"
          onClick={() => {
            setIssued(null);
            setIssuing(true);
          }}
          disabled={issuing}
          data-testid="token-new"
        >
          Issue token
        </button>
      </div>
      {issued && <IssuedToken token={issued.token} name={issued.name} onDismiss={() => setIssued(null)} />}
      {issuing && (
        <IssueTokenForm
          onIssued={(r) => {
            setIssuing(false);
            setIssued(r);
          }}
          onCancel={() => setIssuing(false)}
        />
      )}
      <DataTable
        label="CI tokens"
        headers={['Token', 'Scope', 'Created by', 'Last used', 'Expires', 'Status', '']}
        query={tokens}
        rows={tokens.data}
        loading="Loading tokens…"
        empty="No CI tokens yet."
      >
        {(t) => <TokenRow key={t.id} token={t} />}
      </DataTable>
    </section>
  );
}
