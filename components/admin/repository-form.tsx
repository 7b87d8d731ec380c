'use client';

import { useState, type FormEvent } from 'react';
import { describeError } from './api';
import { LANGUAGES } from '@/common/settings';
import type { AdminRepository } from './types';
import { useRegisterRepository, useUpdateRepository, type RepositoryInput } from './use-admin-repositories';

// The commands get their own fields; every other setting (time limits,
// network, env, test path patterns…) and the filter policy and model settings
// are edited as JSON and validated by the server against their schemas
// (common/settings.ts), which names the offending path.

const COMMAND_FIELDS = [
  {
    key: 'install',
    label: 'Install command',
    placeholder: 'npm ci',
    help: 'Runs once per workspace in the sandbox, reaching only the registries; dependency install scripts stay off unless "allowInstallScripts": true.',
  },
  { key: 'build', label: 'Build command', placeholder: 'npm run build', help: 'Optional. Checked by the compile gate.' },
  {
    key: 'test',
    label: 'Target test command (template)',
    placeholder: 'node --test --test-reporter=junit --test-reporter-destination=junit.xml --test-name-pattern={namePattern}',
    help: 'Empty: detected from the repository (its test script, runner config and lock file), with a report flowfix reads. Placeholders: {ids} {names} {files} {namePattern}, shell-quoted.',
  },
  { key: 'regression', label: 'Regression command', placeholder: 'npm test', help: 'The full suite. Defaults to the test command with no targets.' },
  { key: 'junitReport', label: 'JUnit report path', placeholder: 'junit.xml', help: 'Relative to the repository; * and ** allowed.' },
] as const;
type CommandKey = (typeof COMMAND_FIELDS)[number]['key'];
const COMMAND_KEYS: readonly string[] = COMMAND_FIELDS.map((f) => f.key);

function pretty(value: Record<string, unknown>): string {
  return Object.keys(value).length === 0 ? '' : JSON.stringify(value, null, 2);
}

function parseJsonObject(text: string, label: string): Record<string, unknown> {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${label} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${label} must be a JSON object`);
  return value as Record<string, unknown>;
}

function initialState(repo: AdminRepository | null) {
  const settings = repo?.settings ?? {};
  const commands = Object.fromEntries(COMMAND_FIELDS.map((f) => [f.key, typeof settings[f.key] === 'string' ? (settings[f.key] as string) : '']));
  const otherSettings = Object.fromEntries(Object.entries(settings).filter(([k]) => !COMMAND_KEYS.includes(k) && k !== 'language'));
  const { policy, ...otherModel } = repo?.modelSettings ?? {};
  return {
    name: repo?.name ?? '',
    gitUrl: repo?.gitUrl ?? '',
    defaultBranch: repo?.defaultBranch ?? 'main',
    language: repo?.language ?? 'typescript',
    commands: commands as Record<CommandKey, string>,
    otherSettings: pretty(otherSettings),
    filterPolicy: pretty(repo?.filterPolicy ?? {}),
    modelPolicy: typeof policy === 'string' ? policy : '',
    otherModel: pretty(otherModel),
  };
}

export function RepositoryForm({ repo, onDone }: { repo: AdminRepository | null; onDone: () => void }) {
  const register = useRegisterRepository();
  const update = useUpdateRepository();
  const mutation = repo ? update : register;
  const [state, setState] = useState(() => initialState(repo));
  const [clientError, setClientError] = useState<string | null>(null);
  const set = <K extends keyof typeof state>(key: K, value: (typeof state)[K]) => setState((s) => ({ ...s, [key]: value }));

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    setClientError(null);
    let input: RepositoryInput;
    try {
      const commands = Object.fromEntries(Object.entries(state.commands).filter(([, v]) => v.trim() !== ''));
      const modelSettings = parseJsonObject(state.otherModel, 'Model settings');
      input = {
        name: state.name,
        gitUrl: state.gitUrl,
        defaultBranch: state.defaultBranch,
        language: state.language,
        settings: { ...parseJsonObject(state.otherSettings, 'Other settings'), ...commands },
        filterPolicy: parseJsonObject(state.filterPolicy, 'Filter policy'),
        modelSettings: state.modelPolicy ? { ...modelSettings, policy: state.modelPolicy } : modelSettings,
      };
    } catch (err) {
      setClientError((err as Error).message);
      return;
    }
    if (repo) update.mutate({ id: repo.id, ...input }, { onSuccess: onDone });
    else register.mutate(input, { onSuccess: onDone });
  }

  return (
    <form className="card stack" onSubmit={onSubmit} data-testid="repo-form">
      <h3 className="card-title">{repo ? `Edit ${repo.name}` : 'Register a repository'}</h3>
      <div className="admin-form-grid">
        <label className="field">
          Name
          <input className="input" required placeholder="shop" value={state.name} onChange={(e) => set('name', e.target.value)} data-testid="repo-name" />
          <span className="muted small">What CI sends as “repository”.</span>
        </label>
        <label className="field">
          Git location
          <input
            className="input mono"
            required
            placeholder="/srv/git/shop.git or https://git.example.com/shop.git"
            value={state.gitUrl}
            onChange={(e) => set('gitUrl', e.target.value)}
            data-testid="repo-git-url"
          />
          <span className="muted small">Where the server fetches from and pushes accepted fixes to.</span>
        </label>
        <label className="field">
          Default branch
          <input className="input mono" required value={state.defaultBranch} onChange={(e) => set('defaultBranch', e.target.value)} data-testid="repo-branch" />
        </label>
        <label className="field">
          Language
          <select className="select" value={state.language} onChange={(e) => set('language', e.target.value)} data-testid="repo-language">
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
      </div>

      <h4 className="admin-subhead">Commands</h4>
      <div className="admin-form-grid">
        {COMMAND_FIELDS.map((f) => (
          <label key={f.key} className={`field ${f.key === 'test' ? 'admin-span-2' : ''}`}>
            {f.label}
            <input
              className="input mono"
              placeholder={f.placeholder}
              value={state.commands[f.key]}
              onChange={(e) => set('commands', { ...state.commands, [f.key]: e.target.value })}
              data-testid={`repo-cmd-${f.key}`}
            />
            <span className="muted small">{f.help}</span>
          </label>
        ))}
      </div>

      <h4 className="admin-subhead">Policies</h4>
      <div className="admin-form-grid">
        <label className="field">
          Repair policy
          <select className="select" value={state.modelPolicy} onChange={(e) => set('modelPolicy', e.target.value)} data-testid="repo-model-policy">
            <option value="">default (offline)</option>
            <option value="offline">offline: search-based, no model</option>
            <option value="llm">llm: the configured model</option>
            <option value="tiered">tiered: offline first, then the model</option>
          </select>
        </label>
        <div />
        <label className="field">
          Filter policy (JSON)
          <textarea
            className="input mono admin-json"
            rows={6}
            placeholder={'{ "pre": { "draft": false, "botAuthor": false }, "post": { "maxFixLines": 200 } }'}
            value={state.filterPolicy}
            onChange={(e) => set('filterPolicy', e.target.value)}
            data-testid="repo-filter-policy"
          />
          <span className="muted small">
            Only what differs from the defaults; empty means all defaults. Pre-filters skip drafts (<code>draft</code>), bots (<code>botAuthor</code>), large
            changes, likely infrastructure failures, known-flaky tests and unsupported languages; “Settings in effect” lists them all.
          </span>
        </label>
        <label className="field">
          Other model settings (JSON)
          <textarea
            className="input mono admin-json"
            rows={6}
            placeholder={
              '{ "model": "qwen2.5-coder:7b", "baseUrl": "http://localhost:11434", "dialect": "ollama", "editProtocol": "auto", "contextTokens": 8192, "maxToolCalls": 100, "maxCostUsd": 5 }'
            }
            value={state.otherModel}
            onChange={(e) => set('otherModel', e.target.value)}
            data-testid="repo-model-settings"
          />
        </label>
        <label className="field admin-span-2">
          Other repository settings (JSON)
          <textarea
            className="input mono admin-json"
            rows={4}
            placeholder={
              '{ "timeLimits": { "testSeconds": 300 }, "network": false, "allowInstallScripts": false, "limits": { "memoryMb": 4096 }, "env": { "CI": "1" } }'
            }
            value={state.otherSettings}
            onChange={(e) => set('otherSettings', e.target.value)}
            data-testid="repo-other-settings"
          />
        </label>
      </div>

      {repo?.effective && (
        <details className="admin-effective">
          <summary>Settings in effect (with defaults)</summary>
          <pre className="mono small">{JSON.stringify(repo.effective, null, 2)}</pre>
        </details>
      )}

      {(clientError || mutation.isError) && (
        <div className="alert alert-error" role="alert" data-testid="repo-form-error">
          {clientError ?? describeError(mutation.error)}
        </div>
      )}
      <div className="row">
        <button className="btn btn-primary" type="submit" disabled={mutation.isPending} data-testid="repo-submit">
          {mutation.isPending ? 'Saving…' : repo ? 'Save changes' : 'Register repository'}
        </button>
        <button className="btn" type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
