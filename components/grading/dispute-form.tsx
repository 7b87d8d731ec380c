'use client';

import { useState } from 'react';
import { GRADE_LABELS, GRADE_LABEL_TEXT, type GradeLabelName } from '@/common/grading';
import type { GradeItemActions } from './use-grade-item';
import type { GradingItemView } from './types';

/**
 * Once the item has all its labels, or after the reveal, a grader's label is
 * final; changing their mind is a dispute: the first label stays, the proposed one and a note go to the lead
 * grader, who settles the item again.
 */
export function DisputeForm({ item, dispute }: { item: GradingItemView; dispute: GradeItemActions['dispute'] }) {
  const [label, setLabel] = useState<GradeLabelName>(item.mine?.label ?? 'CORRECT');
  const [note, setNote] = useState('');
  return (
    <form
      className="stack"
      style={{ marginTop: 12, gap: 8 }}
      onSubmit={(e) => {
        e.preventDefault();
        dispute.mutate({ itemId: item.item.id, label, note }, { onSuccess: () => setNote('') });
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
        <textarea
          className="input"
          rows={2}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          placeholder="Why the label should change"
          data-testid="dispute-note"
        />
      </label>
      {dispute.isError && (
        <p className="field-error" role="alert">
          {dispute.error.message}
        </p>
      )}
      <div>
        <button type="submit" className="btn" disabled={dispute.isPending || !note.trim()} data-testid="dispute-submit">
          Dispute
        </button>
      </div>
    </form>
  );
}
