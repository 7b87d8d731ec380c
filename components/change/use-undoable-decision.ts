'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { rejectReasonLabel } from '@/common/labels';
import { useAcceptFix, useRejectFix, type RejectReason } from './use-fix-decisions';

// Accept and reject, the same on every page that decides (the review queue,
// the change page): a decision waits UNDO_MS before anything is sent
// (Gmail's undo-send), so the reviewer sees it coming and can take it back;
// leaving the page takes it back too (the timer dies with the component), so
// nothing is sent that the reviewer could not see. What the server answered
// stays on screen as the outcome: the fix's card does not vanish unexplained.

export const UNDO_MS = 5000;

/** `title`: the change's title, where the page lists several fixes; without it the fix is "this fix" */
export type DecisionRequest =
  { kind: 'accept'; fixId: string; title?: string } | { kind: 'reject'; fixId: string; title?: string; reason: RejectReason; text?: string };

export type PendingDecision = DecisionRequest & { due: number };

export interface DecisionOutcome {
  kind: 'ok' | 'error';
  text: string;
  fixId: string;
  /** the commit an accept wrote */
  commit?: string | null;
}

/** "Applying “title”", "Rejecting “title” (Wrong fix)": what is about to happen, in words. */
export function describeDecision(d: DecisionRequest, tense: 'pending' | 'done' | 'undone'): string {
  const what = d.title ? `“${d.title}”` : 'this fix';
  if (d.kind === 'accept') return tense === 'pending' ? `Applying ${what}` : tense === 'done' ? `Applied ${what}` : `Not applied: ${what}`;
  const why = ` (${rejectReasonLabel(d.reason)})`;
  return tense === 'pending' ? `Rejecting ${what}${why}` : tense === 'done' ? `Rejected ${what}${why}` : `Not rejected: ${what}`;
}

export function useUndoableDecision({ onDecided }: { onDecided?: (d: DecisionRequest) => void } = {}) {
  const accept = useAcceptFix();
  const reject = useRejectFix();
  const [pending, setPending] = useState<PendingDecision | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [outcome, setOutcome] = useState<DecisionOutcome | null>(null);

  const onDecidedRef = useRef(onDecided);
  useEffect(() => {
    onDecidedRef.current = onDecided;
  }, [onDecided]);

  const send = useCallback(
    (d: DecisionRequest) => {
      setOutcome({ kind: 'ok', text: `${describeDecision(d, 'pending')}…`, fixId: d.fixId });
      const onError = (err: Error) => setOutcome({ kind: 'error', text: d.title ? `“${d.title}”: ${err.message}` : err.message, fixId: d.fixId });
      if (d.kind === 'accept') {
        accept.mutate(d.fixId, {
          onSuccess: (r) => {
            onDecidedRef.current?.(d);
            setOutcome({
              kind: 'ok',
              text: `${describeDecision(d, 'done')}${r.commit ? ` as ${r.commit.slice(0, 12)}` : ''}.`,
              fixId: d.fixId,
              commit: r.commit ?? null,
            });
          },
          onError,
        });
      } else {
        reject.mutate(
          { fixId: d.fixId, reason: d.reason, text: d.text },
          {
            onSuccess: () => {
              onDecidedRef.current?.(d);
              setOutcome({ kind: 'ok', text: `${describeDecision(d, 'done')}.`, fixId: d.fixId });
            },
            onError,
          },
        );
      }
    },
    [accept, reject],
  );
  const sendRef = useRef(send);
  useEffect(() => {
    sendRef.current = send;
  }, [send]);

  // the undo window: a tick for the countdown, the decision when it runs out;
  // unmounting (leaving the page) clears both, so it is never sent
  useEffect(() => {
    if (!pending) return;
    const tick = window.setInterval(() => setNow(Date.now()), 250);
    const fire = window.setTimeout(
      () => {
        setPending(null);
        sendRef.current(pending);
      },
      Math.max(0, pending.due - Date.now()),
    );
    return () => {
      window.clearInterval(tick);
      window.clearTimeout(fire);
    };
  }, [pending]);

  const start = (d: DecisionRequest) => {
    // a second decision sends the first one now, as a new e-mail sends the last one
    if (pending && pending.fixId !== d.fixId) send(pending);
    setOutcome(null);
    setNow(Date.now());
    setPending({ ...d, due: Date.now() + UNDO_MS });
  };

  const undo = () => {
    if (!pending) return false;
    setOutcome({ kind: 'ok', text: `${describeDecision(pending, 'undone')}.`, fixId: pending.fixId });
    setPending(null);
    return true;
  };

  return {
    pending,
    /** whole seconds left in the undo window */
    seconds: pending ? Math.max(0, Math.ceil((pending.due - now) / 1000)) : null,
    outcome,
    /** a decision is on its way to the server */
    sending: accept.isPending || reject.isPending,
    start,
    undo,
    /** tell the reviewer something about the decisions in words (a decision that may not be made) */
    say: (o: DecisionOutcome | null) => setOutcome(o),
  };
}

export type UndoableDecision = ReturnType<typeof useUndoableDecision>;
