'use client';

import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { GRADE_LABELS, GRADE_LABEL_TEXT, type GradeLabelName } from '@/common/grading';
import { formatAgo } from '@/common/format';
import { requestJson, retryUnlessClientError } from '../api-client';
import { LabelBadge, TagBadges } from './labels';
import type { DisputedItem } from './types';

function SettleForm({ queueId, item }: { queueId: string; item: DisputedItem }) {
  const queryClient = useQueryClient();
  const counts = new Map<GradeLabelName, number>();
  for (const l of item.labels) counts.set(l.label, (counts.get(l.label) ?? 0) + 1);
  const majority = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'CORRECT';
  const [label, setLabel] = useState<GradeLabelName>(majority);
  const [note, setNote] = useState('');
  const settle = useMutation({
    mutationFn: () =>
      requestJson(`/api/grading/queues/${encodeURIComponent(queueId)}/items/${encodeURIComponent(item.itemId)}/settle`, {
        method: 'POST',
        body: { label, note },
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['grading'] }),
  });
  return (
    <form
      className="settle-form"
      onSubmit={(e) => {
        e.preventDefault();
        settle.mutate();
      }}
      data-testid="settle-form"
    >
      <label className="field">
        Settled label
        <select className="select" value={label} onChange={(e) => setLabel(e.target.value as GradeLabelName)} data-testid="settle-label">
          {GRADE_LABELS.map((l) => (
            <option key={l} value={l}>
              {GRADE_LABEL_TEXT[l].name}
              {counts.get(l) ? ` (${counts.get(l)})` : ''}
            </option>
          ))}
        </select>
      </label>
      <label className="field" style={{ flex: '1 1 320px' }}>
        Note
        <textarea
          className="input"
          rows={1}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          placeholder="Why this label"
          required
          data-testid="settle-note"
        />
      </label>
      <button type="submit" className="btn btn-primary" disabled={settle.isPending || !note.trim()} data-testid="settle-submit">
        Settle
      </button>
      {settle.isError && (
        <span className="field-error" role="alert">
          {settle.error.message}
        </span>
      )}
    </form>
  );
}

// Items whose labels disagree (or that a grader disputed after the reveal):
// every label and rationale side by side, the disputes, and a form to record
// the settled label with a note. Reading it locks the reader's own labels on
// these items (the server records the reveal).
export function DisputedList({ queueId }: { queueId: string }) {
  const disputed = useQuery({
    queryKey: ['grading', 'queue', queueId, 'disputed'],
    queryFn: ({ signal }) =>
      requestJson<{ items: DisputedItem[] }>(`/api/grading/queues/${encodeURIComponent(queueId)}/disputed`, { signal }).then((r) => r.items),
    retry: retryUnlessClientError,
  });
  return (
    <section className="card" aria-labelledby="disputed-title" data-testid="disputed-list">
      <h2 className="card-title" id="disputed-title">
        Disputed {disputed.data && <span className="muted small">({disputed.data.length})</span>}
      </h2>
      {disputed.isPending && <p className="muted">Loading…</p>}
      {disputed.isError && <div className="alert alert-error">{disputed.error.message}</div>}
      {disputed.data?.length === 0 && (
        <p className="muted" data-testid="disputed-empty">
          Nothing to settle: every complete item agreed or is settled.
        </p>
      )}
      <div className="stack">
        {disputed.data?.map((item) => (
          <article key={item.itemId} className="dispute" data-testid="disputed-item" data-item-id={item.itemId}>
            <div>
              <span className="muted small">
                #{item.position + 1} · {item.change.repository} · {item.change.externalId}
              </span>
              <div className="triage-title">{item.change.title}</div>
            </div>
            <div className="dispute-labels">
              {item.labels.map((l) => (
                <div key={l.grader} className="dispute-label">
                  <div className="row">
                    <strong>{l.grader}</strong>
                    <LabelBadge label={l.label} />
                    <span className="muted small">{formatAgo(l.updatedAt)}</span>
                  </div>
                  <TagBadges tags={l.tags} />
                  <p>{l.rationale || <span className="muted">No rationale</span>}</p>
                </div>
              ))}
            </div>
            {item.disputes.length > 0 && (
              <div className="stack" style={{ gap: 6 }} data-testid="disputed-disputes">
                <strong className="small">Disputed after the reveal</strong>
                {item.disputes.map((d) => (
                  <div key={`${d.grader}-${d.at}`} className="dispute-label">
                    <div className="row">
                      <strong>{d.grader}</strong> proposes {d.label ? <LabelBadge label={d.label} /> : null}
                      <span className="muted small">{formatAgo(d.at)}</span>
                    </div>
                    <p>{d.note}</p>
                  </div>
                ))}
              </div>
            )}
            <SettleForm queueId={queueId} item={item} />
          </article>
        ))}
      </div>
    </section>
  );
}
