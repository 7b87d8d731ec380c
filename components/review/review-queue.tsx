'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ReviewQueueItem } from '@/lib/fixes/views';
import { formatAge } from '@/components/triage/format-age';
import { RejectForm } from '@/components/change/fix-decisions';
import { commitOf, useAcceptFix } from '@/components/change/use-fix-decisions';
import { useReviewQueue } from './use-review-queue';
import { SHORTCUTS, useQueueShortcuts, type ShortcutAction } from './use-queue-shortcuts';

const fixHref = (item: ReviewQueueItem) =>
  `/changes/${encodeURIComponent(item.changeId)}?fix=${encodeURIComponent(item.fixId)}`;

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

function QueueRow({
  item,
  selected,
  onSelect,
  canDecide,
  rejecting,
  onCloseReject,
}: {
  item: ReviewQueueItem;
  selected: boolean;
  onSelect: () => void;
  canDecide: boolean;
  rejecting: boolean;
  onCloseReject: () => void;
}) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (selected) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [selected]);
  return (
    <li
      ref={ref}
      className={`queue-item${selected ? ' queue-item-selected' : ''}`}
      data-testid="queue-item"
      data-fix-id={item.fixId}
      aria-selected={selected}
      onClick={onSelect}
    >
      <div className="queue-item-head">
        <Link href={fixHref(item)} className="triage-title" data-testid="queue-open">
          {item.title}
        </Link>
        <span className="muted small">{formatAge(Date.now() - new Date(item.createdAt).getTime())}</span>
      </div>
      <div className="muted small row">
        <span className="mono">{item.externalId}</span>
        <span>· {item.repository}</span>
        <span>· {item.author}</span>
        {item.authorKind === 'BOT' && <span className="badge badge-bot">bot</span>}
        {item.isHistory && <span className="badge badge-history">history</span>}
      </div>
      <p className="queue-summary">{item.summaryText || <span className="muted">No summary.</span>}</p>
      <div className="muted small row">
        <span>
          {item.files.slice(0, 3).map((f, i) => (
            <span key={f}>
              {i > 0 && ', '}
              <Link href={`${fixHref(item)}&file=${encodeURIComponent(f)}`} className="mono">
                {f}
              </Link>
            </span>
          ))}
          {item.files.length > 3 && ` +${item.files.length - 3} more`}
        </span>
        <span className="diff-add">+{item.diffStat.added}</span>
        <span className="diff-del">−{item.diffStat.removed}</span>
        {item.gatesTotal > 0 && (
          <span>
            · {item.gatesPassed}/{item.gatesTotal} checks passed
          </span>
        )}
      </div>
      {canDecide && rejecting && <RejectForm fixId={item.fixId} onCancel={onCloseReject} onDone={onCloseReject} autoFocus />}
    </li>
  );
}

export function ReviewQueue({ canDecide }: { canDecide: boolean }) {
  const router = useRouter();
  const query = useReviewQueue();
  const accept = useAcceptFix();
  const items = useMemo(() => query.data?.pages.flatMap((p) => p.items) ?? [], [query.data]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [rejectingId, setRejectingId] = useState<string | null>(null);
  // decided fixes leave the list, so what happened to them is said above it
  const [outcome, setOutcome] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  // the selection follows the fix, not the position: decided fixes leave the list
  const index = Math.max(0, items.findIndex((i) => i.fixId === selectedId));
  const selected = items[index] ?? null;

  const onAction = (action: ShortcutAction) => {
    if (!selected) return;
    if (action === 'next') setSelectedId(items[Math.min(items.length - 1, index + 1)]?.fixId ?? null);
    else if (action === 'previous') setSelectedId(items[Math.max(0, index - 1)]?.fixId ?? null);
    else if (action === 'open') router.push(fixHref(selected));
    else if (action === 'reject' && canDecide) setRejectingId(selected.fixId);
    else if (action === 'accept' && canDecide && !accept.isPending) {
      const { fixId, title } = selected;
      setOutcome({ kind: 'ok', text: `Applying “${title}”…` });
      accept.mutate(fixId, {
        onSuccess: (r) => {
          const commit = commitOf(r);
          setOutcome({ kind: 'ok', text: `Applied “${title}”${commit ? ` as ${commit.slice(0, 12)}` : ''}.` });
        },
        onError: (err) => setOutcome({ kind: 'error', text: `“${title}”: ${err.message}` }),
      });
    }
  };
  useQueueShortcuts(onAction, items.length > 0 && rejectingId === null);

  return (
    <div className="review-queue" data-testid="review-queue">
      <ShortcutLegend />
      {outcome && (
        <div
          className={`alert ${outcome.kind === 'ok' ? 'alert-ok' : 'alert-error'} queue-outcome`}
          role={outcome.kind === 'ok' ? 'status' : 'alert'}
          data-testid="queue-outcome"
        >
          {outcome.text}
        </div>
      )}
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
      {items.length > 0 && (
        <ul className="queue-list" role="listbox" aria-label="Fixes waiting for review" data-testid="queue-list">
          {items.map((item) => (
            <QueueRow
              key={item.fixId}
              item={item}
              selected={item.fixId === selected?.fixId}
              onSelect={() => setSelectedId(item.fixId)}
              canDecide={canDecide}
              rejecting={rejectingId === item.fixId}
              onCloseReject={() => setRejectingId(null)}
            />
          ))}
        </ul>
      )}
      {query.hasNextPage && (
        <div className="triage-more">
          <button type="button" className="btn" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
            {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </div>
  );
}
