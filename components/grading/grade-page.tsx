'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  GRADE_LABELS,
  GRADE_LABEL_TEXT,
  GRADE_TAGS,
  GRADE_TAG_TEXT,
  rationaleRequired,
  type GradeLabelName,
  type GradeTagName,
} from '@/common/grading';
import { FailureEvidence } from '@/components/change/failure-evidence';
import { GateChain } from '@/components/change/fix-evidence';
import { FixSummary } from '@/components/change/fix-summary';
import { FixDiff } from '@/components/diff/fix-diff';
import { ApiError, requestJson } from '../api-client';
import { DiffText, LabelBadge, TagBadges } from './labels';
import type { GradingItemView } from './types';

// The grading page: what a grader needs to judge one fix and nothing that
// biases (no other label, no consensus, no reviewers' decision unless the
// queue allows it — until the item is settled), keyboard first: 1–4 label,
// t tags, Enter submit and next, s skip, p the previous item, ? keys. Once
// the grader has seen the other labels, their label is locked (the server
// refuses a revision) and the panel offers a dispute with a note instead.

const KEYS: Array<[string, string]> = [
  ['1 – 4', 'choose a label'],
  ['t', 'tags'],
  ['r', 'write the rationale'],
  ['Enter', 'submit and load the next item'],
  ['Shift + Enter', 'a new line in the rationale'],
  ['s', 'skip (with a reason)'],
  ['p', 'the previous item you labelled or skipped'],
  ['Esc', 'leave a field, close a panel'],
  ['?', 'this list'],
];

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable) return true;
  return tag === 'INPUT' && !['checkbox', 'radio', 'button'].includes((target as HTMLInputElement).type);
}

type State =
  | { kind: 'loading' }
  | { kind: 'item'; item: GradingItemView }
  | { kind: 'done' }
  | { kind: 'error'; message: string };

const REVEALED_VIA: Record<string, string> = {
  settled: 'when the item was settled',
  disputed_list: 'in the disputed list',
  export: 'in the queue’s export',
};

function DisputeForm({ item, base, onDone }: { item: GradingItemView; base: string; onDone: () => void }) {
  const [label, setLabel] = useState<GradeLabelName>(item.mine?.label ?? 'CORRECT');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="stack"
      style={{ marginTop: 12, gap: 8 }}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await requestJson(`${base}/items/${encodeURIComponent(item.item.id)}/dispute`, { method: 'POST', body: { label, note } });
          setNote('');
          onDone();
        } catch (err) {
          setError((err as Error).message);
        } finally {
          setBusy(false);
        }
      }}
      data-testid="dispute-form"
    >
      <h3 className="admin-subhead">Dispute</h3>
      <p className="muted small" style={{ margin: 0 }}>
        Your label stays as you gave it; the label you now propose and your note go to the lead grader, who settles the item again.
      </p>
      <label className="field">
        Label you now propose
        <select className="select" value={label} onChange={(e) => setLabel(e.target.value as GradeLabelName)} data-testid="dispute-label">
          {GRADE_LABELS.map((l) => (
            <option key={l} value={l}>
              {GRADE_LABEL_TEXT[l].name}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Note (required)
        <textarea className="input" rows={2} value={note} onChange={(e) => setNote(e.target.value)} placeholder="Why the label should change" data-testid="dispute-note" />
      </label>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div>
        <button type="submit" className="btn" disabled={busy || !note.trim()} data-testid="dispute-submit">
          Dispute
        </button>
      </div>
    </form>
  );
}

export function GradePage({ queueId, itemId }: { queueId: string; itemId: string | null }) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [label, setLabel] = useState<GradeLabelName | null>(null);
  const [tags, setTags] = useState<GradeTagName[]>([]);
  const [rationale, setRationale] = useState('');
  const [showTags, setShowTags] = useState(false);
  const [skipping, setSkipping] = useState(false);
  const [skipReason, setSkipReason] = useState('');
  const [showKeys, setShowKeys] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [file, setFile] = useState<string | null>(null);
  const rationaleRef = useRef<HTMLTextAreaElement>(null);
  const firstTagRef = useRef<HTMLInputElement>(null);
  const skipRef = useRef<HTMLInputElement>(null);
  const base = `/api/grading/queues/${encodeURIComponent(queueId)}`;

  const show = useCallback((item: GradingItemView | null) => {
    if (!item) {
      setState({ kind: 'done' });
      return;
    }
    setState({ kind: 'item', item });
    setLabel(item.mine?.label ?? null);
    setTags(item.mine?.tags ?? []);
    setRationale(item.mine?.rationale ?? '');
    setShowTags(false);
    setSkipping(false);
    setSkipReason('');
    setError(null);
    setFile(null);
    window.scrollTo({ top: 0 });
  }, []);

  const loadNext = useCallback(async () => {
    setState({ kind: 'loading' });
    try {
      const { item } = await requestJson<{ item: GradingItemView | null }>(`${base}/next`, { method: 'POST' });
      show(item);
    } catch (err) {
      setState({ kind: 'error', message: (err as Error).message });
    }
  }, [base, show]);

  useEffect(() => {
    if (itemId) {
      requestJson<GradingItemView>(`${base}/items/${encodeURIComponent(itemId)}`).then(show, (err: Error) => setState({ kind: 'error', message: err.message }));
    } else {
      void loadNext();
    }
  }, [base, itemId, loadNext, show]);

  const item = state.kind === 'item' ? state.item : null;
  // locked: settled, or the grader has seen the other labels (the server refuses a revision then)
  const settled = (item?.consensus !== null && item?.consensus !== undefined) || (item?.revealed !== null && item?.revealed !== undefined);
  const previousHref = item?.previous ? `/grading/${queueId}/grade?item=${encodeURIComponent(item.previous.itemId)}` : null;

  const reload = useCallback(async () => {
    if (!item) return;
    try {
      show(await requestJson<GradingItemView>(`${base}/items/${encodeURIComponent(item.item.id)}`));
    } catch (err) {
      setState({ kind: 'error', message: (err as Error).message });
    }
  }, [item, base, show]);

  const submit = useCallback(async () => {
    if (!item || busy || settled) return;
    if (!label) {
      setError('Choose a label first (1–4)');
      return;
    }
    if (rationaleRequired(label) && !rationale.trim()) {
      setError(`A rationale is required for ${GRADE_LABEL_TEXT[label].name.toLowerCase()}`);
      rationaleRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await requestJson<{ outcome: string; settledAutomatically: boolean }>(`${base}/items/${encodeURIComponent(item.item.id)}/grade`, {
        method: 'POST',
        body: { label, tags, rationale },
      });
      setNotice(r.outcome === 'revise' ? 'Label revised' : r.outcome === 'unchanged' ? 'No change' : 'Label saved');
      void queryClient.invalidateQueries({ queryKey: ['grading'] });
      if (itemId) {
        const fresh = await requestJson<GradingItemView>(`${base}/items/${encodeURIComponent(item.item.id)}`);
        show(fresh);
      } else {
        await loadNext();
      }
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not save the label');
    } finally {
      setBusy(false);
    }
  }, [item, busy, settled, label, rationale, tags, base, queryClient, itemId, show, loadNext]);

  const skip = useCallback(async () => {
    if (!item || busy) return;
    if (!skipReason.trim()) {
      setError('Say why you skip this item');
      skipRef.current?.focus();
      return;
    }
    setBusy(true);
    try {
      await requestJson(`${base}/items/${encodeURIComponent(item.item.id)}/skip`, { method: 'POST', body: { reason: skipReason } });
      setNotice('Skipped');
      await loadNext();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }, [item, busy, skipReason, base, loadNext]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'Escape') {
        if (isTyping(e.target)) (e.target as HTMLElement).blur();
        setShowKeys(false);
        setShowTags(false);
        return;
      }
      if (isTyping(e.target)) return;
      if (e.key === '?') {
        e.preventDefault();
        setShowKeys((v) => !v);
        return;
      }
      if (e.key === 'p' && previousHref) {
        e.preventDefault();
        router.push(previousHref);
        return;
      }
      if (!item || settled) return;
      const n = Number(e.key);
      if (Number.isInteger(n) && n >= 1 && n <= GRADE_LABELS.length && !showTags) {
        e.preventDefault();
        const chosen = GRADE_LABELS[n - 1];
        setLabel(chosen);
        setError(null);
        return;
      }
      if (e.key === 't') {
        e.preventDefault();
        setShowTags(true);
        setTimeout(() => firstTagRef.current?.focus(), 0);
        return;
      }
      if (e.key === 's' && !item.mine) {
        e.preventDefault();
        setSkipping(true);
        setTimeout(() => skipRef.current?.focus(), 0);
        return;
      }
      if (e.key === 'r') {
        e.preventDefault();
        rationaleRef.current?.focus();
        return;
      }
      if (e.key === 'Enter' && !(e.target instanceof HTMLElement && e.target.closest('a, button'))) {
        e.preventDefault();
        if (label && rationaleRequired(label) && !rationale.trim()) {
          rationaleRef.current?.focus();
          setError(`A rationale is required for ${GRADE_LABEL_TEXT[label].name.toLowerCase()}`);
          return;
        }
        void submit();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [item, settled, showTags, label, rationale, submit, previousHref, router]);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 2500);
    return () => clearTimeout(t);
  }, [notice]);

  if (state.kind === 'loading') return <div className="card muted" data-testid="grade-loading">Loading the next item…</div>;
  if (state.kind === 'error') {
    return (
      <div className="alert alert-error" role="alert" data-testid="grade-error">
        {state.message} · <Link href="/grading">Back to the queues</Link>
      </div>
    );
  }
  if (state.kind === 'done') {
    return (
      <div className="card empty" data-testid="grade-done">
        <p style={{ fontSize: 16, color: 'var(--text)', fontWeight: 600 }}>Nothing left for you in this queue.</p>
        <p>Every item has your label, is reserved by other graders, or is settled.</p>
        <div className="row" style={{ justifyContent: 'center' }}>
          <Link className="btn" href={`/grading/${queueId}`}>
            Back to the queue
          </Link>
          <Link className="btn" href={`/grading/${queueId}#my-labels`}>
            My labels
          </Link>
        </div>
      </div>
    );
  }
  const it = state.item;
  return (
    <div data-testid="grade-page" data-item-id={it.item.id} data-fix-id={it.fix.id}>
      <div className="grading-head">
        <div>
          <div className="muted small">
            <Link href={`/grading/${queueId}`}>{it.queue.name}</Link> ·{' '}
            <span data-testid="grade-position" title="The item’s place in the queue’s order, which every grader shares; it is not a count of your work">
              item {it.item.position + 1} of {it.item.total} in the queue’s order
            </span>
          </div>
          <h1 className="page-title" data-testid="grade-change-title">
            {it.change.title}
          </h1>
          <p className="page-subtitle">
            {it.change.repository} · {it.change.externalId} · by {it.change.author}
          </p>
        </div>
        <div style={{ minWidth: 220 }}>
          <div className="muted small">
            <span data-testid="grade-progress">
              You have labelled {it.progress.labelled} of {it.progress.total}
            </span>
            {it.progress.skipped > 0 && <span data-testid="grade-skipped"> · skipped {it.progress.skipped}</span>}
          </div>
          <div className="progress-bar" style={{ marginTop: 6 }}>
            <span className="progress-complete" style={{ width: `${(it.progress.labelled / Math.max(1, it.progress.total)) * 100}%` }} />
          </div>
          <p className="muted small grade-progress-help" data-testid="grade-progress-help">
            Your own labels among the queue’s {it.progress.total} items. Each item needs {it.queue.gradersPerFix}{' '}
            {it.queue.gradersPerFix === 1 ? 'label' : 'labels'}, so you may be done before labelling them all.
          </p>
          <div className="row" style={{ marginTop: 8 }}>
            {previousHref ? (
              <Link className="btn btn-small" href={previousHref} data-testid="grade-previous">
                <kbd>p</kbd> Previous
              </Link>
            ) : (
              <span className="btn btn-small" aria-disabled="true" style={{ opacity: 0.5 }} title="No earlier item of yours">
                <kbd>p</kbd> Previous
              </span>
            )}
            <Link className="btn btn-small" href={`/grading/${queueId}#my-labels`} data-testid="grade-my-labels">
              My labels
            </Link>
            {itemId && (
              <Link className="btn btn-small" href={`/grading/${queueId}/grade`} data-testid="grade-continue">
                Continue grading
              </Link>
            )}
            <button type="button" className="btn btn-small" onClick={() => setShowKeys(true)}>
              Keys <kbd>?</kbd>
            </button>
          </div>
        </div>
      </div>
      {notice && (
        <div className="alert alert-ok" role="status" style={{ marginBottom: 12 }} data-testid="grade-notice">
          {notice}
        </div>
      )}
      <div className="grade-layout">
        <div className="stack">
          {it.queue.instructions && (
            <section className="card">
              <h2 className="card-title">Instructions</h2>
              <p className="grade-instructions" style={{ margin: 0 }}>
                {it.queue.instructions}
              </p>
            </section>
          )}
          <FailureEvidence failures={it.failures} testCounts={null} />
          <section className="card" aria-labelledby="intent-title">
            <h2 className="card-title" id="intent-title">
              The change’s intent
            </h2>
            <p style={{ whiteSpace: 'pre-wrap', marginTop: 0 }}>{it.change.description || <span className="muted">No description.</span>}</p>
            {it.change.diff ? (
              <details>
                <summary className="muted small">The change’s own diff</summary>
                <DiffText diff={it.change.diff} label="The change’s own diff" />
              </details>
            ) : (
              <p className="muted small">The change’s own diff is not available from the repository.</p>
            )}
          </section>
          <section className="card" aria-labelledby="fix-title">
            <h2 className="card-title grade-section-title" id="fix-title">
              <span>The fix</span>
              <span className="muted small">
                {it.fix.diffStat.files} {it.fix.diffStat.files === 1 ? 'file' : 'files'} · +{it.fix.diffStat.added} −{it.fix.diffStat.removed}
              </span>
            </h2>
            <FixSummary html={it.fix.summaryHtml} />
            <FixDiff
              fixId={it.fix.id}
              filesUrl={`/api/grading/queues/${encodeURIComponent(queueId)}/items/${encodeURIComponent(it.item.id)}/files`}
              file={file} onFileChange={setFile} editing={false} edits={{}} onEdit={() => undefined} />
          </section>
          <section className="card" aria-labelledby="evidence-title">
            <h2 className="card-title" id="evidence-title">
              Validation
            </h2>
            <GateChain gates={it.fix.evidence.gates} proof={it.fix.evidence.proof} />
          </section>
          {it.laterRevision && (
            <section className="card" aria-labelledby="later-title" data-testid="later-revision">
              <h2 className="card-title" id="later-title">
                What the developer did next <span className="muted small">(revision {it.laterRevision.number})</span>
              </h2>
              {it.laterRevision.diff ? (
                <DiffText diff={it.laterRevision.diff} label="The developer’s later revision" />
              ) : (
                <p className="muted small">The later revision’s diff is not available from the repository.</p>
              )}
            </section>
          )}
        </div>
        <aside className="grade-panel card" aria-labelledby="label-title" data-testid="grade-panel">
          <h2 className="card-title" id="label-title">
            Your label
          </h2>
          {it.decision && (
            <p className="alert alert-info small" data-testid="grade-decision">
              Reviewers: {it.decision.kind.toLowerCase().replace('_', ' ')}
              {it.decision.reason ? ` (${it.decision.reason.toLowerCase().replace(/_/g, ' ')})` : ''}
              {it.decision.reasonText ? ` — ${it.decision.reasonText}` : ''}
            </p>
          )}
          {it.consensus && (
            <p className="alert alert-ok small" data-testid="grade-settled">
              Settled as <LabelBadge label={it.consensus.label} /> {it.consensus.automatic ? '(unanimous)' : `— ${it.consensus.note}`}.
            </p>
          )}
          {it.revealed && (
            <p className="alert alert-info small" data-testid="grade-locked">
              {it.mine ? 'Your label is locked' : 'You can no longer label this item'}: you saw the other graders’ labels{' '}
              {REVEALED_VIA[it.revealed.via] ?? ''} ({new Date(it.revealed.at).toLocaleString()}).
              {it.mine ? ' To change your mind, dispute it with a note below.' : ''}
            </p>
          )}
          {it.mine && !settled && (
            <p className="muted small" data-testid="grade-blind-note">
              Other graders’ labels stay hidden until the item is settled; until then you may revise yours.
            </p>
          )}
          <div className="grade-labels" role="group" aria-label="Label">
            {GRADE_LABELS.map((l, i) => (
              <button
                key={l}
                type="button"
                className="grade-label"
                aria-pressed={label === l}
                onClick={() => setLabel(l)}
                disabled={settled}
                data-testid="grade-label"
                data-label={l}
              >
                <span className="grade-label-name">
                  <kbd>{i + 1}</kbd> {GRADE_LABEL_TEXT[l].name}
                </span>
                <span className="grade-label-hint">{GRADE_LABEL_TEXT[l].hint}</span>
              </button>
            ))}
          </div>
          <div style={{ marginTop: 12 }}>
            {showTags ? (
              <fieldset className="grade-tags" data-testid="grade-tags">
                <legend className="small muted">Tags (optional)</legend>
                {GRADE_TAGS.map((t, i) => (
                  <label key={t}>
                    <input
                      ref={i === 0 ? firstTagRef : undefined}
                      type="checkbox"
                      checked={tags.includes(t)}
                      disabled={settled}
                      onChange={() => setTags((v) => (v.includes(t) ? v.filter((x) => x !== t) : [...v, t]))}
                      data-testid="grade-tag"
                      data-tag={t}
                    />
                    {GRADE_TAG_TEXT[t]}
                  </label>
                ))}
              </fieldset>
            ) : (
              <button type="button" className="btn btn-small" onClick={() => setShowTags(true)} disabled={settled}>
                <kbd>t</kbd> Tags{tags.length ? ` (${tags.length})` : ''}
              </button>
            )}
            {!showTags && <TagBadges tags={tags} />}
          </div>
          <label className="field" style={{ marginTop: 12 }}>
            Rationale {label && !rationaleRequired(label) ? <span className="muted small">(optional for correct)</span> : <span className="muted small">(required)</span>}
            <textarea
              ref={rationaleRef}
              className="input"
              rows={4}
              value={rationale}
              disabled={settled}
              onChange={(e) => setRationale(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) {
                  e.preventDefault();
                  void submit();
                }
              }}
              placeholder="Why this label: what the fix gets right or wrong"
              data-testid="grade-rationale"
            />
          </label>
          {error && (
            <p className="field-error" role="alert" data-testid="grade-form-error">
              {error}
            </p>
          )}
          <div className="row" style={{ marginTop: 12 }}>
            {!settled && (
              <button type="button" className="btn btn-primary" onClick={() => void submit()} disabled={busy || !label} data-testid="grade-submit">
                {it.mine ? 'Revise label' : 'Submit and next'} <kbd>Enter</kbd>
              </button>
            )}
            {!it.mine && !settled && (
              <button type="button" className="btn" onClick={() => setSkipping(true)} disabled={busy} data-testid="grade-skip">
                Skip <kbd>s</kbd>
              </button>
            )}
          </div>
          {skipping && (
            <form
              className="row"
              style={{ marginTop: 10 }}
              onSubmit={(e) => {
                e.preventDefault();
                void skip();
              }}
            >
              <input ref={skipRef} className="input" style={{ flex: 1 }} value={skipReason} onChange={(e) => setSkipReason(e.target.value)} placeholder="Why skip (e.g. unfamiliar language)" data-testid="skip-reason" />
              <button type="submit" className="btn btn-small">
                Skip
              </button>
            </form>
          )}
          {it.disputes.length > 0 && (
            <div style={{ marginTop: 12 }} data-testid="grade-disputes">
              <h3 className="admin-subhead">Your disputes</h3>
              <ul className="stack" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                {it.disputes.map((d) => (
                  <li key={d.at} className="dispute-label">
                    <div className="row">
                      {d.label && <LabelBadge label={d.label} />} <span className="muted small">{new Date(d.at).toLocaleString()}</span>
                    </div>
                    <p>{d.note}</p>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {it.revealed && it.mine && it.queue.status === 'OPEN' && <DisputeForm item={it} base={base} onDone={() => void reload()} />}
          {it.others && (
            <div style={{ marginTop: 16 }} data-testid="grade-others">
              <h3 className="admin-subhead">Other graders</h3>
              {it.others.length === 0 ? (
                <p className="muted small">No other label yet.</p>
              ) : (
                <ul className="stack" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                  {it.others.map((o) => (
                    <li key={o.grader} className="dispute-label">
                      <div className="row">
                        <strong>{o.grader}</strong> <LabelBadge label={o.label} />
                      </div>
                      <TagBadges tags={o.tags} />
                      {o.rationale && <p>{o.rationale}</p>}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
          {it.leaseExpiresAt && !it.mine && (
            <p className="muted small" style={{ marginTop: 12 }}>
              Reserved for you until {new Date(it.leaseExpiresAt).toLocaleTimeString()}.
            </p>
          )}
        </aside>
      </div>
      {showKeys && (
        <div className="grade-keys" role="dialog" aria-modal="true" aria-labelledby="keys-title" onClick={() => setShowKeys(false)} data-testid="grade-keys">
          <div className="card" onClick={(e) => e.stopPropagation()}>
            <h2 className="card-title" id="keys-title">
              Keys
            </h2>
            <dl>
              {KEYS.map(([k, what]) => (
                <div key={k} style={{ display: 'contents' }}>
                  <dt>
                    <kbd>{k}</kbd>
                  </dt>
                  <dd style={{ margin: 0 }}>{what}</dd>
                </div>
              ))}
            </dl>
          </div>
        </div>
      )}
    </div>
  );
}
