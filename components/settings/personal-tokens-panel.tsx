'use client';

import { useState, type FormEvent } from 'react';
import { describeError } from '../admin/api';
import { formatAgo, formatDateTime } from '@/common/format';
import { DataTable } from '@/components/data-table';
import {
  useIssuePersonalToken,
  usePersonalTokens,
  useRevokePersonalToken,
  type PersonalToken,
  type PersonalTokenKind,
  type PersonalTokenScope,
} from './use-personal-tokens';
import { TokenExpiryField, expiresAtFor, type TokenExpiryChoice } from '@/components/token-expiry';

const SCOPE_LABEL: Record<PersonalTokenScope, string> = { read: 'read', decide: 'read + decide' };
const KIND_LABEL: Record<PersonalTokenKind, string> = { cli: 'command line', ide: 'editor' };

function IssuedToken({ token, name, kind, onDismiss }: { token: string; name: string; kind: PersonalTokenKind; onDismiss: () => void }) {
  return (
    <div className="card admin-issued" role="status" data-testid="personal-token-issued">
      <h3 className="card-title">Token “{name}” created</h3>
      <div className="alert alert-info">
        Copy it now: this is the only time it is shown; flowfix keeps only a hash.{' '}
        {kind === 'ide' ? (
          <>
            In VS Code, run <code>flowfix: Sign in</code> from the command palette and paste it.
          </>
        ) : (
          <>
            Use it from a terminal as<code> FLOWFIX_TOKEN=… npx flowfix fix show FIX_ID</code>.
          </>
        )}
      </div>
      <div className="row admin-issued-row">
        <input
          className="input mono admin-issued-input"
          readOnly
          value={token}
          onFocus={(e) => e.currentTarget.select()}
          aria-label="The new personal token"
          data-testid="personal-token-value"
        />
        <button className="btn" type="button" onClick={onDismiss} data-testid="personal-token-done">
          I have stored it
        </button>
      </div>
    </div>
  );
}

function IssueForm({ onIssued }: { onIssued: (r: { token: string; name: string; kind: PersonalTokenKind }) => void }) {
  const issue = useIssuePersonalToken();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<PersonalTokenScope>('read');
  const [kind, setKind] = useState<PersonalTokenKind>('cli');
  const [expiry, setExpiry] = useState<TokenExpiryChoice>('30');

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const expiresAt = expiresAtFor(expiry);
    issue.mutate(
      { name, scope, kind, ...(expiresAt ? { expiresAt } : {}) },
      {
        onSuccess: (r) => {
          setName('');
          onIssued({ token: r.token, name: r.record.name, kind: r.record.kind });
        },
      },
    );
  }

  return (
    <form className="card stack" onSubmit={onSubmit} data-testid="personal-token-form">
      <h3 className="card-title">Create a token</h3>
      <label className="field admin-narrow">
        Name
        <input
          className="input"
          required
          placeholder="e.g. laptop terminal"
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="personal-token-name"
        />
      </label>
      <fieldset className="admin-fieldset">
        <legend>Used from</legend>
        <label className="admin-check">
          <input type="radio" name="kind" checked={kind === 'cli'} onChange={() => setKind('cli')} data-testid="personal-token-kind-cli" />
          the command line (npx flowfix fix …)
        </label>
        <label className="admin-check">
          <input type="radio" name="kind" checked={kind === 'ide'} onChange={() => setKind('ide')} data-testid="personal-token-kind-ide" />
          the editor (the flowfix VS Code extension)
        </label>
      </fieldset>
      <fieldset className="admin-fieldset">
        <legend>May</legend>
        <label className="admin-check">
          <input type="radio" name="scope" checked={scope === 'read'} onChange={() => setScope('read')} data-testid="personal-token-scope-read" />
          read: show fixes and download their patches (flowfix fix show)
        </label>
        <label className="admin-check">
          <input type="radio" name="scope" checked={scope === 'decide'} onChange={() => setScope('decide')} data-testid="personal-token-scope-decide" />
          read and decide: also accept and reject fixes as you (flowfix fix apply), within your roles
        </label>
      </fieldset>
      <TokenExpiryField value={expiry} onChange={setExpiry} testId="personal-token-expiry" />
      {issue.isError && (
        <div className="alert alert-error" role="alert" data-testid="personal-token-error">
          {describeError(issue.error)}
        </div>
      )}
      <div className="row">
        <button className="btn btn-primary" type="submit" disabled={issue.isPending} data-testid="personal-token-create">
          {issue.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

function TokenRow({ token }: { token: PersonalToken }) {
  const revoke = useRevokePersonalToken();
  const revoked = token.revokedAt !== null;
  const expired = !revoked && token.expiresAt !== null && new Date(token.expiresAt).getTime() < Date.now();
  return (
    <tr data-testid="personal-token-row" data-name={token.name} className={revoked || expired ? 'admin-row-muted' : undefined}>
      <td>
        <div className="admin-strong">{token.name}</div>
        <div className="mono small muted">{token.prefix}…</div>
      </td>
      <td>
        <span className="badge" data-testid="personal-token-scope">
          {SCOPE_LABEL[token.scope]}
        </span>
      </td>
      <td className="small" data-testid="personal-token-kind">
        {KIND_LABEL[token.kind]}
      </td>
      <td className="small">{formatDateTime(token.createdAt)}</td>
      <td className="small" data-testid="personal-token-last-used">
        {formatAgo(token.lastUsedAt)}
      </td>
      <td className="small">{token.expiresAt ? formatDateTime(token.expiresAt) : 'never'}</td>
      <td data-testid="personal-token-status">
        {revoked ? (
          <span className="badge badge-rejected">revoked</span>
        ) : expired ? (
          <span className="badge badge-stale">expired</span>
        ) : (
          <span className="badge badge-applied">active</span>
        )}
      </td>
      <td className="admin-actions">
        {!revoked && (
          <button
            className="btn btn-small btn-danger"
            type="button"
            disabled={revoke.isPending}
            onClick={() => revoke.mutate(token.id)}
            data-testid="personal-token-revoke"
          >
            Revoke
          </button>
        )}
        {revoke.isError && (
          <div className="alert alert-error small" role="alert">
            {describeError(revoke.error)}
          </div>
        )}
      </td>
    </tr>
  );
}

export function PersonalTokensPanel() {
  const tokens = usePersonalTokens();
  const [issued, setIssued] = useState<{ token: string; name: string; kind: PersonalTokenKind } | null>(null);
  return (
    <section className="stack" data-testid="personal-tokens">
      {issued && <IssuedToken token={issued.token} name={issued.name} kind={issued.kind} onDismiss={() => setIssued(null)} />}
      <IssueForm onIssued={setIssued} />
      <DataTable
        label="Your personal tokens"
        headers={['Token', 'Scope', 'Used from', 'Created', 'Last used', 'Expires', 'Status', '']}
        query={tokens}
        rows={tokens.data}
        loading="Loading tokens…"
        empty="No personal tokens yet."
      >
        {(t) => <TokenRow key={t.id} token={t} />}
      </DataTable>
    </section>
  );
}
