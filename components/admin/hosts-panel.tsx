'use client';

import { useState, type FormEvent } from 'react';
import { describeError } from './api';
import { formatDateTime } from '@/common/format';
import type { AdminHost } from './types';
import { useAdminRepositories } from './use-admin-repositories';
import { useAdminHosts, useGitHubManifest, useHostRepositories, useLinkRepository, useRegisterHost, type RegisterHostInput } from './use-admin-hosts';

// Code hosts: register a GitHub App (from the manifest flowfix serves) or a
// GitLab instance, then link flowfix repositories to projects from the host's
// own list. Secrets go to the server once and are never shown again.

function RegisterHostForm({ onDone }: { onDone: () => void }) {
  const register = useRegisterHost();
  const [kind, setKind] = useState<'GITHUB' | 'GITLAB'>('GITHUB');
  const [name, setName] = useState('');
  const [apiBaseUrl, setApiBaseUrl] = useState('https://api.github.com');
  const [appId, setAppId] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [token, setToken] = useState('');
  const [webhookSecret, setWebhookSecret] = useState('');
  const manifest = useGitHubManifest(kind === 'GITHUB');

  function choose(next: 'GITHUB' | 'GITLAB') {
    setKind(next);
    setApiBaseUrl(next === 'GITHUB' ? 'https://api.github.com' : 'https://gitlab.com');
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const input: RegisterHostInput =
      kind === 'GITHUB' ? { kind, name, apiBaseUrl, appId, privateKey, webhookSecret } : { kind, name, apiBaseUrl, token, webhookSecret };
    register.mutate(input, { onSuccess: onDone });
  }

  return (
    <form className="card stack" onSubmit={onSubmit} data-testid="host-register-form" autoComplete="off">
      <h3 className="card-title">Connect a code host</h3>
      <fieldset className="admin-fieldset">
        <legend>Host</legend>
        <label className="admin-check">
          <input type="radio" name="kind" checked={kind === 'GITHUB'} onChange={() => choose('GITHUB')} data-testid="host-kind-github" />
          GitHub App (github.com or GitHub Enterprise Server)
        </label>
        <label className="admin-check">
          <input type="radio" name="kind" checked={kind === 'GITLAB'} onChange={() => choose('GITLAB')} data-testid="host-kind-gitlab" />
          GitLab (gitlab.com or self-managed)
        </label>
      </fieldset>
      {kind === 'GITHUB' && (
        <div className="stack">
          <p className="small">
            Create the App from this manifest (GitHub: Settings → Developer settings → GitHub Apps, or your Enterprise Server’s equivalent), generate a private
            key, then enter the App id, the key and the webhook secret you chose below.
          </p>
          <pre className="mono small admin-manifest" data-testid="host-manifest">
            {manifest.data ? JSON.stringify(manifest.data, null, 2) : manifest.isError ? describeError(manifest.error) : 'Loading…'}
          </pre>
        </div>
      )}
      <label className="field admin-narrow">
        Name
        <input
          className="input"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={kind === 'GITHUB' ? 'github.com' : 'gitlab.example.com'}
          data-testid="host-name"
        />
      </label>
      <label className="field">
        API URL
        <input className="input mono" required value={apiBaseUrl} onChange={(e) => setApiBaseUrl(e.target.value)} data-testid="host-api-url" />
        <span className="muted small">{kind === 'GITHUB' ? 'Enterprise Server: https://HOST/api/v3' : 'the instance’s root URL'}</span>
      </label>
      {kind === 'GITHUB' ? (
        <>
          <label className="field admin-narrow">
            App id
            <input className="input mono" required inputMode="numeric" value={appId} onChange={(e) => setAppId(e.target.value)} data-testid="host-app-id" />
          </label>
          <label className="field">
            Private key (PEM)
            <textarea
              className="input mono"
              required
              rows={4}
              value={privateKey}
              onChange={(e) => setPrivateKey(e.target.value)}
              spellCheck={false}
              data-testid="host-private-key"
            />
          </label>
        </>
      ) : (
        <label className="field">
          Access token (project or group token with the api scope and the Developer role)
          <input className="input mono" type="password" required value={token} onChange={(e) => setToken(e.target.value)} data-testid="host-token" />
        </label>
      )}
      <label className="field">
        Webhook secret
        <input
          className="input mono"
          type="password"
          required
          value={webhookSecret}
          onChange={(e) => setWebhookSecret(e.target.value)}
          data-testid="host-webhook-secret"
        />
      </label>
      <p className="muted small">Secrets are stored encrypted and never shown again.</p>
      {register.isError && (
        <div className="alert alert-error" role="alert" data-testid="host-register-error">
          {describeError(register.error)}
        </div>
      )}
      <div className="row">
        <button className="btn btn-primary" type="submit" disabled={register.isPending} data-testid="host-register-submit">
          {register.isPending ? 'Connecting…' : 'Connect'}
        </button>
        <button className="btn" type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function LinkRepositoryForm({ host, onDone }: { host: AdminHost; onDone: () => void }) {
  const projects = useHostRepositories(host.id);
  const repositories = useAdminRepositories();
  const link = useLinkRepository(host.id);
  const [externalId, setExternalId] = useState('');
  const [repositoryId, setRepositoryId] = useState('');
  const [artifactName, setArtifactName] = useState('junit*');
  const [junitGlob, setJunitGlob] = useState('**/*.xml');
  const linked = new Set(host.links.map((l) => l.repositoryId));
  const free = (repositories.data ?? []).filter((r) => !r.archivedAt && !linked.has(r.id));
  const open = (projects.data ?? []).filter((p) => p.linkedTo === null);

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    link.mutate({ externalId, repositoryId, ...(host.kind === 'GITHUB' ? { artifactName, junitGlob } : {}) }, { onSuccess: onDone });
  }

  return (
    <form className="card stack" onSubmit={onSubmit} data-testid="host-link-form">
      <h4 className="card-title">Link a repository on {host.name}</h4>
      {projects.isLoading && <span className="muted small">Asking {host.name} for its repositories…</span>}
      {projects.isError && (
        <div className="alert alert-error" role="alert">
          {describeError(projects.error)}
        </div>
      )}
      <label className="field">
        Project on {host.name}
        <select className="input" required value={externalId} onChange={(e) => setExternalId(e.target.value)} data-testid="host-link-project">
          <option value="">Choose…</option>
          {open.map((p) => (
            <option key={p.externalId} value={p.externalId}>
              {p.fullName}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        flowfix repository
        <select className="input" required value={repositoryId} onChange={(e) => setRepositoryId(e.target.value)} data-testid="host-link-repository">
          <option value="">Choose…</option>
          {free.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
      </label>
      {host.kind === 'GITHUB' && (
        <div className="row">
          <label className="field">
            Artifact name (glob)
            <input className="input mono" value={artifactName} onChange={(e) => setArtifactName(e.target.value)} data-testid="host-link-artifact" />
          </label>
          <label className="field">
            JUnit files in it (path glob)
            <input className="input mono" value={junitGlob} onChange={(e) => setJunitGlob(e.target.value)} data-testid="host-link-glob" />
          </label>
        </div>
      )}
      {link.isError && (
        <div className="alert alert-error" role="alert" data-testid="host-link-error">
          {describeError(link.error)}
        </div>
      )}
      <div className="row">
        <button className="btn btn-primary" type="submit" disabled={link.isPending || !externalId || !repositoryId} data-testid="host-link-submit">
          Link
        </button>
        <button className="btn" type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function HostCard({ host }: { host: AdminHost }) {
  const [linking, setLinking] = useState(false);
  return (
    <section className="card stack" data-testid="host-card" data-name={host.name}>
      <div className="row">
        <h3 className="card-title">{host.name}</h3>
        <span className="badge">{host.kind === 'GITHUB' ? `GitHub App ${host.appId ?? ''}` : 'GitLab'}</span>
        <span className="mono small muted">{host.apiBaseUrl}</span>
        <span className="small muted">connected {formatDateTime(host.createdAt)}</span>
      </div>
      <div className="muted small">
        Webhook URL: <code>/api/hosts/{host.kind === 'GITHUB' ? 'github' : 'gitlab'}/webhook</code> on this server
      </div>
      {host.links.length === 0 ? (
        <p className="muted small">No repository linked yet.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>On {host.name}</th>
              <th>flowfix repository</th>
              {host.kind === 'GITHUB' && <th>JUnit from</th>}
            </tr>
          </thead>
          <tbody>
            {host.links.map((l) => (
              <tr key={l.id} data-testid="host-link-row">
                <td className="mono">{l.fullName}</td>
                <td>{l.repositoryName}</td>
                {host.kind === 'GITHUB' && (
                  <td className="mono small">
                    {l.artifactName} → {l.junitGlob}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {linking ? (
        <LinkRepositoryForm host={host} onDone={() => setLinking(false)} />
      ) : (
        <div className="row">
          <button className="btn" type="button" onClick={() => setLinking(true)} data-testid="host-link-open">
            Link a repository…
          </button>
        </div>
      )}
    </section>
  );
}

export function HostsPanel() {
  const hosts = useAdminHosts();
  const [registering, setRegistering] = useState(false);
  return (
    <div className="stack" data-testid="hosts-panel">
      <p className="muted small">
        Connected hosts send their failed runs to flowfix by webhook; CI elsewhere keeps reporting with <code>flowfix report</code>.
      </p>
      {hosts.isError && (
        <div className="alert alert-error" role="alert">
          {describeError(hosts.error)}
        </div>
      )}
      {hosts.data?.map((h) => (
        <HostCard key={h.id} host={h} />
      ))}
      {hosts.data?.length === 0 && !registering && <p className="muted">No code host connected.</p>}
      {registering ? (
        <RegisterHostForm onDone={() => setRegistering(false)} />
      ) : (
        <div className="row">
          <button className="btn btn-primary" type="button" onClick={() => setRegistering(true)} data-testid="host-register-open">
            Connect a code host…
          </button>
        </div>
      )}
    </div>
  );
}
