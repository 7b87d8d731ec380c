'use client';

import { GRADE_LABELS, GRADE_LABEL_TEXT, GRADE_TAGS, GRADE_TAG_TEXT, rationaleRequired } from '@/common/grading';
import { DECISION_KIND_LABELS, humaniseCode, rejectReasonLabel } from '@/common/labels';
import { DisputeForm } from './dispute-form';
import { LabelBadge, TagBadges } from './labels';
import type { GradeForm } from './use-grade-form';
import type { GradeItemActions } from './use-grade-item';
import type { GradingItemView } from './types';

const REVEALED_VIA: Record<string, string> = {
  settled: 'when the item was settled',
  disputed_list: 'in the disputed list',
  export: 'in the queue’s export',
};

/**
 * The grader's side panel: the label, tags and rationale, skip; once the item
 * is settled or revealed, the lock, the dispute form and the other labels.
 */
export function GradePanel({ item: it, form, dispute }: { item: GradingItemView; form: GradeForm; dispute: GradeItemActions['dispute'] }) {
  const { locked } = form;
  return (
    <aside className="grade-panel card" id="your-label" aria-labelledby="label-title" data-testid="grade-panel">
      <h2 className="card-title" id="label-title">
        Your label
      </h2>
      {it.decision && (
        <p className="alert alert-info small" data-testid="grade-decision">
          Reviewers: {(DECISION_KIND_LABELS[it.decision.kind as keyof typeof DECISION_KIND_LABELS] ?? humaniseCode(it.decision.kind)).toLowerCase()}
          {it.decision.reason ? ` (${rejectReasonLabel(it.decision.reason)})` : ''}
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
          {it.mine ? 'Your label is locked' : 'You can no longer label this item'}: you saw the other graders’ labels {REVEALED_VIA[it.revealed.via] ?? ''} (
          {new Date(it.revealed.at).toLocaleString()}).
          {it.mine ? ' To change your mind, dispute it with a note below.' : ''}
        </p>
      )}
      {!it.revealed && it.mine && it.labelsComplete && (
        <p className="alert alert-info small" data-testid="grade-locked">
          Your label is final: the item has all its labels. To change your mind, dispute it with a note below.
        </p>
      )}
      {it.mine && !locked && (
        <p className="muted small" data-testid="grade-blind-note">
          Other graders’ labels stay hidden until the item is settled; you may revise yours until the item has all its labels.
        </p>
      )}
      <div className="grade-labels" role="group" aria-label="Label">
        {GRADE_LABELS.map((l, i) => (
          <button
            key={l}
            type="button"
            className="grade-label"
            aria-pressed={form.label === l}
            onClick={() => form.setLabel(l)}
            disabled={locked}
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
        {form.showTags ? (
          <fieldset className="grade-tags" data-testid="grade-tags">
            <legend className="small muted">Tags (optional)</legend>
            {GRADE_TAGS.map((t, i) => (
              <label key={t}>
                <input
                  ref={i === 0 ? form.refs.firstTagRef : undefined}
                  type="checkbox"
                  checked={form.tags.includes(t)}
                  disabled={locked}
                  onChange={() => form.toggleTag(t)}
                  data-testid="grade-tag"
                  data-tag={t}
                />
                {GRADE_TAG_TEXT[t]}
              </label>
            ))}
          </fieldset>
        ) : (
          <button type="button" className="btn btn-small" onClick={form.openTags} disabled={locked}>
            <kbd>t</kbd> Tags{form.tags.length ? ` (${form.tags.length})` : ''}
          </button>
        )}
        {!form.showTags && <TagBadges tags={form.tags} />}
      </div>
      <label className="field" style={{ marginTop: 12 }}>
        Rationale{' '}
        {form.label && !rationaleRequired(form.label) ? (
          <span className="muted small">(optional for correct)</span>
        ) : (
          <span className="muted small">(required)</span>
        )}
        <textarea
          ref={form.refs.rationaleRef}
          className="input"
          rows={4}
          value={form.rationale}
          disabled={locked}
          onChange={(e) => form.setRationale(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              form.submit();
            }
          }}
          placeholder="Why this label: what the fix gets right or wrong"
          data-testid="grade-rationale"
        />
      </label>
      {form.error && (
        <p className="field-error" role="alert" data-testid="grade-form-error">
          {form.error}
        </p>
      )}
      <div className="row" style={{ marginTop: 12 }}>
        {!locked && (
          <button type="button" className="btn btn-primary" onClick={form.submit} disabled={form.busy || !form.label} data-testid="grade-submit">
            {it.mine ? 'Revise label' : 'Submit and next'} <kbd>Enter</kbd>
          </button>
        )}
        {!it.mine && !locked && (
          <button type="button" className="btn" onClick={form.openSkip} disabled={form.busy} data-testid="grade-skip">
            Skip <kbd>s</kbd>
          </button>
        )}
      </div>
      {form.skipping && (
        <form
          className="row"
          style={{ marginTop: 10 }}
          onSubmit={(e) => {
            e.preventDefault();
            form.skip();
          }}
        >
          <input
            ref={form.refs.skipRef}
            className="input"
            style={{ flex: 1 }}
            value={form.skipReason}
            onChange={(e) => form.setSkipReason(e.target.value)}
            placeholder="Why skip (e.g. unfamiliar language)"
            data-testid="skip-reason"
          />
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
      {(it.revealed || it.labelsComplete) && it.mine && it.queue.status === 'OPEN' && <DisputeForm item={it} dispute={dispute} />}
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
  );
}

/**
 * The labels within reach on a narrow screen, where the panel comes after
 * the whole fix (thousands of pixels down): a bar along the bottom of the
 * window (CSS shows it below 960 px only) that picks a label and leads to
 * the panel for the tags, the rationale and saving.
 */
export function GradeQuickBar({ form }: { form: GradeForm }) {
  if (form.locked) return null;
  return (
    <nav className="grade-quick" aria-label="Label this fix">
      <div className="grade-quick-labels" role="group" aria-label="Label">
        {GRADE_LABELS.map((l) => (
          <button
            key={l}
            type="button"
            className="btn btn-small grade-quick-label"
            aria-pressed={form.label === l}
            onClick={() => form.setLabel(l)}
            data-testid="grade-quick-label"
            data-label={l}
          >
            {GRADE_LABEL_TEXT[l].name}
          </button>
        ))}
      </div>
      <a className="btn btn-small btn-primary" href="#your-label" data-testid="grade-quick-panel">
        {form.label ? 'Save…' : 'Label…'}
      </a>
    </nav>
  );
}
