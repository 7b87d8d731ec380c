'use client';

import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { VERDICT_KINDS, type VerdictKind } from '@/common/decisions';
import { ApiError, requestJson, retryUnlessClientError } from '../api-client';

interface Options {
  graders: Array<{ id: string; name: string; email: string; roles: string[] }>;
  repositories: Array<{ id: string; name: string }>;
  policies: string[];
  models: string[];
}

const STATUSES = [
  ['READY', 'ready'],
  ['APPLIED', 'applied'],
  ['REJECTED', 'rejected'],
  ['DROPPED', 'dropped'],
  ['STALE', 'stale'],
] as const;
const DECISION_TEXT: Record<VerdictKind | 'NONE', string> = {
  ACCEPT: 'accepted',
  EDIT_ACCEPT: 'edited then accepted',
  REJECT: 'rejected',
  NONE: 'no decision yet',
};
const DECISIONS = [...VERDICT_KINDS, 'NONE' as const].map((k) => [k, DECISION_TEXT[k]] as const);

function toggle(list: string[], value: string): string[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

function Checks({
  legend,
  options,
  value,
  onChange,
  testId,
}: {
  legend: string;
  options: ReadonlyArray<readonly [string, string]>;
  value: string[];
  onChange: (v: string[]) => void;
  testId: string;
}) {
  return (
    <fieldset data-testid={testId}>
      <legend>{legend}</legend>
      {options.length === 0 ? (
        <span className="muted small">None yet</span>
      ) : (
        <div className="check-list">
          {options.map(([v, label]) => (
            <label key={v}>
              <input type="checkbox" checked={value.includes(v)} onChange={() => onChange(toggle(value, v))} /> {label}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

// A manager builds a queue from a filter over fixes: every filter is optional
// (none checked means any), the sample is random with a seed that is recorded.
export function QueueForm() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const options = useQuery({
    queryKey: ['grading', 'options'],
    queryFn: ({ signal }) => requestJson<Options>('/api/grading/options', { signal }),
    retry: retryUnlessClientError,
  });
  const [name, setName] = useState('');
  const [instructions, setInstructions] = useState('');
  const [graderIds, setGraderIds] = useState<string[] | null>(null);
  const [leadGraderId, setLead] = useState('');
  const [gradersPerFix, setPerFix] = useState(3);
  const [showDecisions, setShowDecisions] = useState(false);
  const [repositoryIds, setRepos] = useState<string[]>([]);
  const [policies, setPolicies] = useState<string[]>([]);
  const [models, setModels] = useState<string[]>([]);
  const [statuses, setStatuses] = useState<string[]>([]);
  const [decisions, setDecisions] = useState<string[]>([]);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [sample, setSample] = useState('');
  const [seed, setSeed] = useState('');
  const [includeHistory, setIncludeHistory] = useState(false);
  const [ungradedOnly, setUngradedOnly] = useState(false);

  // every grader (not managers and admins) seated by default
  const seated = graderIds ?? options.data?.graders.filter((g) => g.roles.includes('GRADER')).map((g) => g.id) ?? [];

  const create = useMutation({
    mutationFn: () =>
      requestJson<{ id: string; items: number; seed: string | null }>('/api/grading/queues', {
        method: 'POST',
        body: {
          name,
          instructions,
          gradersPerFix,
          showDecisions,
          graderIds: seated,
          leadGraderId: leadGraderId || null,
          filter: {
            repositoryIds,
            policies,
            models,
            statuses,
            decisions,
            includeHistory,
            ungradedOnly,
            ...(from ? { from } : {}),
            ...(to ? { to } : {}),
            ...(sample ? { sample: Number(sample) } : {}),
            ...(seed ? { seed } : {}),
          },
        },
      }),
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: ['grading', 'queues'] });
      router.push(`/grading/${r.id}`);
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  if (options.isPending) return <div className="card muted">Loading…</div>;
  if (options.isError) return <div className="alert alert-error">Could not load the form: {options.error.message}</div>;
  const o = options.data;
  const issues = create.error instanceof ApiError ? create.error.issues : [];

  return (
    <form className="card" onSubmit={submit} aria-labelledby="queue-form-title" data-testid="queue-form">
      <h2 className="card-title" id="queue-form-title">
        What to grade, and who grades it
      </h2>
      <div className="queue-form">
        <label className="field">
          Name
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} data-testid="queue-name" />
        </label>
        <div className="row" style={{ alignItems: 'flex-end' }}>
          <label className="field">
            Graders per fix
            <input
              className="input"
              type="number"
              min={1}
              max={10}
              value={gradersPerFix}
              onChange={(e) => setPerFix(Number(e.target.value))}
              style={{ width: 90 }}
              data-testid="queue-per-fix"
            />
          </label>
          <label className="field">
            Lead grader
            <select className="select" value={leadGraderId} onChange={(e) => setLead(e.target.value)} data-testid="queue-lead">
              <option value="">None (managers settle)</option>
              {o.graders
                .filter((g) => seated.includes(g.id))
                .map((g) => (
                  <option key={g.id} value={g.id}>
                    {g.name}
                  </option>
                ))}
            </select>
          </label>
        </div>
        <label className="field span-2">
          Instructions for graders
          <textarea
            className="input"
            rows={3}
            value={instructions}
            onChange={(e) => setInstructions(e.target.value)}
            placeholder="What counts as overfitting here, what to compare against…"
          />
        </label>
        <fieldset className="span-2" data-testid="queue-graders">
          <legend>Who grades</legend>
          <div className="check-list">
            {o.graders.map((g) => (
              <label key={g.id} title={g.email}>
                <input type="checkbox" checked={seated.includes(g.id)} onChange={() => setGraderIds(toggle(seated, g.id))} /> {g.name}{' '}
                <span className="muted small">{g.roles.map((r) => r.toLowerCase()).join(', ')}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <Checks
          legend="Repositories (none: all)"
          testId="queue-repositories"
          options={o.repositories.map((r) => [r.id, r.name] as const)}
          value={repositoryIds}
          onChange={setRepos}
        />
        <Checks legend="Fix status (none: any)" testId="queue-statuses" options={STATUSES} value={statuses} onChange={setStatuses} />
        <Checks legend="Policy (none: any)" testId="queue-policies" options={o.policies.map((p) => [p, p] as const)} value={policies} onChange={setPolicies} />
        <Checks legend="Model (none: any)" testId="queue-models" options={o.models.map((m) => [m, m] as const)} value={models} onChange={setModels} />
        <Checks legend="Reviewers’ decision (none: any)" testId="queue-decisions" options={DECISIONS} value={decisions} onChange={setDecisions} />
        <fieldset>
          <legend>Period and sample</legend>
          <div className="row">
            <label className="field">
              From
              <input className="input" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
            </label>
            <label className="field">
              Before
              <input className="input" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
            </label>
            <label className="field">
              Random sample of
              <input
                className="input"
                type="number"
                min={1}
                max={10000}
                value={sample}
                onChange={(e) => setSample(e.target.value)}
                placeholder="all"
                style={{ width: 100 }}
                data-testid="queue-sample"
              />
            </label>
            <label className="field">
              Seed
              <input
                className="input"
                value={seed}
                onChange={(e) => setSeed(e.target.value)}
                placeholder="generated"
                style={{ width: 130 }}
                disabled={!sample}
              />
            </label>
          </div>
        </fieldset>
        <div className="span-2 row">
          <label className="admin-check">
            <input type="checkbox" checked={showDecisions} onChange={(e) => setShowDecisions(e.target.checked)} /> Graders may see the reviewers’ decisions
            before labelling
          </label>
          <label className="admin-check">
            <input type="checkbox" checked={ungradedOnly} onChange={(e) => setUngradedOnly(e.target.checked)} data-testid="queue-ungraded" /> Only fixes nobody
            has labelled yet
          </label>
          <label className="admin-check">
            <input type="checkbox" checked={includeHistory} onChange={(e) => setIncludeHistory(e.target.checked)} data-testid="queue-history" /> Include demo
            history fixes
          </label>
        </div>
      </div>
      {create.isError && (
        <div className="alert alert-error" role="alert" style={{ marginTop: 12 }} data-testid="queue-form-error">
          {create.error.message}
          {issues.length > 0 && (
            <ul>
              {issues.map((i) => (
                <li key={i.path + i.message}>
                  {i.path}: {i.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div className="row" style={{ marginTop: 16 }}>
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim()} data-testid="queue-create">
          {create.isPending ? 'Building the queue…' : 'Create queue'}
        </button>
        <span className="muted small">{seated.length} graders seated</span>
      </div>
    </form>
  );
}
