'use client';

import { LoadMore } from '@/components/load-more';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ReviewQueueItem } from '@/lib/fixes/views';
import { formatAge } from '@/common/format';
import { selectionAfterDecision } from '@/common/queue-selection';
import { RejectForm } from '@/components/change/fix-decisions';
import { DecisionStatus } from '@/components/change/decision-status';
import { useUndoableDecision, type PendingDecision } from '@/components/change/use-undoable-decision';
import { ChangedLines } from '@/components/diff/changed-lines';
import { useReviewQueue } from './use-review-queue';
import { SHORTCUTS, useQueueShortcuts, type ShortcutAction } from './use-queue-shortcuts';

// The review queue: a listbox of fixes (arrow keys or j/k move, the selected
// option has the focus so screen readers follow it) and, outside the list, the
// actions on the selected fix. An accept or a reject waits out the undo
// window every page shares (components/change/use-undoable-decision.ts):
// `u`, Escape or the Undo button takes it back; leaving the page takes it
// back too. The card stays, marked, until the server has the decision; then
// the outcome is said above the list and the card leaves it.

const SELECTED_KEY = 'flowfix:review:selected';

const fixHref = (item: ReviewQueueItem) => `/changes/${encodeURIComponent(item.changeId)}?fix=${encodeURIComponent(item.fixId)}`;
const optionId = (fixId: string) => `queue-option-${fixId}`;

function ShortcutLegend() {
  return (
    <div className="shortcut-legend muted small" data-testid="shortcut-legend" aria-label="Keyboard shortcuts">
      {SHORTCUTS.map((s) => (
        <span key={s.label}>
          {s.keys.map((k, i) => (
            <span key={k}>
              {i > 0 && ' / '}
              <kbd>{k}</kbd>
            </span>
          ))}{' '}
          {s.label}
        </span>
      ))}
    </div>
  );
}

function QueueOption({
  item,
  selected,
  pending,
  onSelect,
  onOpen,
}: {
  item: ReviewQueueItem;
  selected: boolean;
  pending: { kind: PendingDecision['kind']; seconds: number } | null;
  onSelect: () => void;
  onOpen: () => void;
}) {
  return (
    <li
      id={optionId(item.fixId)}
      role="option"
      tabIndex={selected ? 0 : -1}
      className={`queue-item${selected ? ' queue-item-selected' : ''}`}
      data-testid="queue-item"
      data-fix-id={item.fixId}
      aria-selected={selected}
      onClick={onSelect}
      onFocus={onSelect}
      onDoubleClick={onOpen}
    >
      <div className="queue-item-head">
        <span className="triage-title" data-testid="queue-title">
          {item.title}
        </span>
        <span className="muted small">{formatAge(Date.now() - new Date(item.createdAt).getTime())}</span>
      </div>
      <div className="muted small row">
        <span className="mono">{item.externalId}</span>
        <span>· {item.repository}</span>
        <span>· {item.author}</span>
        {item.authorKind === 'BOT' && <span className="badge badge-bot">bot</span>}
        {item.isHistory && <span className="badge badge-history">history · read-only</span>}
        {pending !== null && (
          <span
            className={`badge ${pending.kind === 'accept' ? 'badge-fix_ready' : 'badge-rejected'}`}
            data-testid="queue-item-pending"
            data-decision={pending.kind}
          >
            {pending.kind === 'accept' ? 'applying' : 'rejecting'} in {pending.seconds} s
          </span>
        )}
      </div>
      <p className="queue-summary">{item.summaryText || <span className="muted">No summary.</span>}</p>
      <div className="muted small row">
        <span className="mono queue-files">
          {item.files.slice(0, 3).join(', ')}
          {item.files.length > 3 && ` +${item.files.length - 3} more`}
        </span>
        <span className="diff-add">+{item.diffStat.additions}</span>
        <span className="diff-del">−{item.diffStat.deletions}</span>
        {item.gatesTotal > 0 && (
          <span data-testid="queue-item-checks">
            · {item.gatesPassed}/{item.gatesTotal} checks passed
          </span>
        )}
        {item.proof && (
          // a pass of a flaky target proves nothing: said in words, never counted as a passed check
          <span className="badge badge-unproven" data-testid="queue-item-unproven" title={item.proof.detail}>
            {item.proof.label}
          </span>
        )}
      </div>
    </li>
  );
}

export function ReviewQueue({ canDecide }: { canDecide: boolean }) {
  const router = useRouter();
  const [includeHistory, setIncludeHistory] = useState(false);
  const query = useReviewQueue({ includeHistory });
  const items = useMemo(() => query.data?.pages.flatMap((p) => p.items) ?? [], [query.data]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [rejectingId, setRejectingId] = useState<string | null>(null);
  const keyboardMove = useRef(false);

  // the selection survives leaving the page and coming back (it follows the fix, not the position)
  useEffect(() => {
    const saved = window.sessionStorage.getItem(SELECTED_KEY);
    if (saved) setSelectedId(saved);
  }, []);
  const index = Math.max(
    0,
    items.findIndex((i) => i.fixId === selectedId),
  );
  const selected = items[index] ?? null;
  useEffect(() => {
    if (selected) window.sessionStorage.setItem(SELECTED_KEY, selected.fixId);
  }, [selected]);

  // a decided fix leaves the list: the selection moves on to the card after it
  // (the one before it when it was the last), never back to the top, so the
  // reviewer keeps their place; a selection elsewhere stays where it is
  const itemsRef = useRef(items);
  useEffect(() => {
    itemsRef.current = items;
  }, [items]);
  const moveOnFrom = useCallback((fixId: string) => {
    const ids = itemsRef.current.map((i) => i.fixId);
    setSelectedId((current) => {
      const next = selectionAfterDecision(ids, current, fixId);
      if (next !== current) keyboardMove.current = true;
      return next;
    });
  }, []);

  // focus follows a keyboard move, so screen readers announce the new option
  useEffect(() => {
    if (!selected || !keyboardMove.current) return;
    keyboardMove.current = false;
    const node = document.getElementById(optionId(selected.fixId));
    node?.focus();
    node?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  // decided fixes leave the list, so what happened to them is said above it
  const decision = useUndoableDecision({ onDecided: (d) => moveOnFrom(d.fixId) });
  const pending = decision.pending;

  const startAccept = (item: ReviewQueueItem) => {
    if (!canDecide || item.isHistory) {
      const text = item.isHistory ? 'Demo history fixes are examples: they cannot be applied.' : 'Only reviewers and admins decide.';
      decision.say({ kind: 'error', text, fixId: item.fixId });
      return;
    }
    decision.start({ kind: 'accept', fixId: item.fixId, title: item.title });
  };
  const undo = () => void decision.undo();

  const move = (to: number) => {
    const next = items[Math.min(items.length - 1, Math.max(0, to))];
    if (!next) return;
    keyboardMove.current = true;
    setSelectedId(next.fixId);
  };

  const onAction = (action: ShortcutAction) => {
    if (action === 'undo') return undo();
    if (action === 'close') {
      if (rejectingId) setRejectingId(null);
      else undo();
      return;
    }
    if (!selected) return;
    if (action === 'next') move(index + 1);
    else if (action === 'previous') move(index - 1);
    else if (action === 'first') move(0);
    else if (action === 'last') move(items.length - 1);
    else if (action === 'open') router.push(fixHref(selected));
    else if (action === 'reject' && canDecide && !selected.isHistory) setRejectingId(selected.fixId);
    else if (action === 'accept') startAccept(selected);
  };
  useQueueShortcuts(onAction, items.length > 0 || pending !== null);

  const rejecting = rejectingId ? (items.find((i) => i.fixId === rejectingId) ?? null) : null;

  return (
    <div className="review-queue" data-testid="review-queue">
      <div className="queue-toolbar">
        <ShortcutLegend />
        <label className="admin-check small">
          <input type="checkbox" checked={includeHistory} onChange={(e) => setIncludeHistory(e.target.checked)} data-testid="queue-include-history" />
          Show demo history (read-only)
        </label>
      </div>
      <DecisionStatus decision={decision} ids={{ pending: 'queue-pending', undo: 'queue-undo', ok: 'queue-outcome', error: 'queue-outcome' }} undoKey="u" />
      {!canDecide && <p className="muted small">You can read the queue; reviewers and admins decide.</p>}
      {query.isPending && <div className="card muted">Loading the queue…</div>}
      {query.isError && (
        <div className="alert alert-error" role="alert">
          Could not load the queue: {query.error.message}
        </div>
      )}
      {query.isSuccess && items.length === 0 && (
        <div className="card empty" data-testid="queue-empty">
          Nothing waiting for review.
        </div>
      )}
      <div className="queue-body">
        {selected && (
          <section className="queue-detail" aria-label="The selected fix" data-testid="queue-detail">
            <div className="queue-actions row" role="group" aria-label={`Actions on the selected fix: ${selected.title}`} data-testid="queue-actions">
              <Link href={fixHref(selected)} className="btn" data-testid="queue-open">
                Open
              </Link>
              {canDecide && !selected.isHistory && (
                <>
                  <button
                    type="button"
                    className="btn btn-primary"
                    data-testid="queue-accept"
                    disabled={pending?.fixId === selected.fixId || decision.sending}
                    onClick={() => startAccept(selected)}
                  >
                    Accept
                  </button>
                  <button
                    type="button"
                    className="btn"
                    data-testid="queue-reject"
                    disabled={pending?.fixId === selected.fixId || decision.sending}
                    onClick={() => setRejectingId(selected.fixId)}
                  >
                    Reject
                  </button>
                </>
              )}
              <span className="muted small">{selected.externalId}</span>
            </div>
            {canDecide && rejecting && (
              <div className="queue-reject" data-testid="queue-reject-panel">
                <RejectForm
                  key={rejecting.fixId}
                  fixId={rejecting.fixId}
                  onCancel={() => setRejectingId(null)}
                  onSubmit={(reason, text) => {
                    setRejectingId(null);
                    decision.start({ kind: 'reject', fixId: rejecting.fixId, title: rejecting.title, reason, ...(text ? { text } : {}) });
                  }}
                  autoFocus
                />
              </div>
            )}
            <h2 className="fix-section-title">
              Changes <span className="diff-add">+{selected.diffStat.additions}</span> <span className="diff-del">−{selected.diffStat.deletions}</span>
            </h2>
            <ChangedLines key={selected.fixId} changes={selected.changes} more="on the fix's page (Open)" />
          </section>
        )}
        {items.length > 0 && (
          <ul className="queue-list" role="listbox" aria-label="Fixes waiting for review" data-testid="queue-list">
            {items.map((item) => (
              <QueueOption
                key={item.fixId}
                item={item}
                selected={item.fixId === selected?.fixId}
                pending={pending?.fixId === item.fixId ? { kind: pending.kind, seconds: decision.seconds ?? 0 } : null}
                onSelect={() => setSelectedId(item.fixId)}
                onOpen={() => router.push(fixHref(item))}
              />
            ))}
          </ul>
        )}
      </div>
      <LoadMore query={query} />
    </div>
  );
}
