'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { useRouter } from 'next/navigation';
import { GRADE_LABELS, GRADE_LABEL_TEXT, rationaleRequired, type GradeLabelName, type GradeTagName } from '@/common/grading';
import { ApiError } from '../api-client';
import type { GradeItemActions } from './use-grade-item';
import type { GradingItemView } from './types';

/** Once the item is settled, the grader has seen the others' labels, or their label is final (the fix has all its labels), the server refuses a revision. */
export function isLocked(item: GradingItemView): boolean {
  return item.consensus !== null || item.revealed !== null || (item.mine !== null && item.labelsComplete);
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable) return true;
  return tag === 'INPUT' && !['checkbox', 'radio', 'button'].includes((target as HTMLInputElement).type);
}

/**
 * The grader's draft for one item (label, tags, rationale, a skip with its
 * reason), its checks before it is sent, and the page's keys. The page mounts
 * it once per item, so the draft starts from the grader's own label, if any.
 */
export function useGradeForm({
  item,
  actions,
  onNotice,
  previousHref,
  onToggleKeys,
  onCloseKeys,
}: {
  item: GradingItemView;
  actions: GradeItemActions;
  onNotice: (text: string) => void;
  previousHref: string | null;
  onToggleKeys: () => void;
  onCloseKeys: () => void;
}) {
  const router = useRouter();
  const [label, setLabel] = useState<GradeLabelName | null>(item.mine?.label ?? null);
  const [tags, setTags] = useState<GradeTagName[]>(item.mine?.tags ?? []);
  const [rationale, setRationale] = useState(item.mine?.rationale ?? '');
  const [showTags, setShowTags] = useState(false);
  const [skipping, setSkipping] = useState(false);
  const [skipReason, setSkipReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const rationaleRef = useRef<HTMLTextAreaElement>(null);
  const firstTagRef = useRef<HTMLInputElement>(null);
  const skipRef = useRef<HTMLInputElement>(null);
  const locked = isLocked(item);
  const busy = actions.grade.isPending || actions.skip.isPending;
  const { grade, skip: skipAction } = actions;

  const missingRationale = useCallback(() => {
    if (!label || !rationaleRequired(label) || rationale.trim()) return false;
    setError(`A rationale is required for ${GRADE_LABEL_TEXT[label].name.toLowerCase()}`);
    rationaleRef.current?.focus();
    return true;
  }, [label, rationale]);

  const submit = useCallback(() => {
    if (busy || locked) return;
    if (!label) {
      setError('Choose a label first (1–4)');
      return;
    }
    if (missingRationale()) return;
    setError(null);
    grade.mutate(
      { itemId: item.item.id, label, tags, rationale },
      {
        onSuccess: (r) => onNotice(r.outcome === 'revise' ? 'Label revised' : r.outcome === 'unchanged' ? 'No change' : 'Label saved'),
        onError: (err) => setError(err instanceof ApiError ? err.message : 'Could not save the label'),
      },
    );
  }, [busy, locked, label, missingRationale, grade, item.item.id, tags, rationale, onNotice]);

  const skip = useCallback(() => {
    if (busy) return;
    if (!skipReason.trim()) {
      setError('Say why you skip this item');
      skipRef.current?.focus();
      return;
    }
    skipAction.mutate({ itemId: item.item.id, reason: skipReason }, { onSuccess: () => onNotice('Skipped'), onError: (err) => setError(err.message) });
  }, [busy, skipReason, skipAction, item.item.id, onNotice]);

  const openTags = useCallback(() => {
    setShowTags(true);
    setTimeout(() => firstTagRef.current?.focus(), 0);
  }, []);
  const openSkip = useCallback(() => {
    setSkipping(true);
    setTimeout(() => skipRef.current?.focus(), 0);
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'Escape') {
        if (isTyping(e.target)) (e.target as HTMLElement).blur();
        onCloseKeys();
        setShowTags(false);
        return;
      }
      if (isTyping(e.target)) return;
      if (e.key === '?') {
        e.preventDefault();
        onToggleKeys();
        return;
      }
      if (e.key === 'p' && previousHref) {
        e.preventDefault();
        router.push(previousHref);
        return;
      }
      if (locked) return;
      const n = Number(e.key);
      if (Number.isInteger(n) && n >= 1 && n <= GRADE_LABELS.length && !showTags) {
        e.preventDefault();
        setLabel(GRADE_LABELS[n - 1]);
        setError(null);
        return;
      }
      if (e.key === 't') {
        e.preventDefault();
        openTags();
        return;
      }
      if (e.key === 's' && !item.mine) {
        e.preventDefault();
        openSkip();
        return;
      }
      if (e.key === 'r') {
        e.preventDefault();
        rationaleRef.current?.focus();
        return;
      }
      if (e.key === 'Enter' && !(e.target instanceof HTMLElement && e.target.closest('a, button'))) {
        e.preventDefault();
        if (!missingRationale()) submit();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [item.mine, locked, showTags, submit, missingRationale, previousHref, router, onToggleKeys, onCloseKeys, openTags, openSkip]);

  return {
    label,
    setLabel,
    tags,
    toggleTag: (t: GradeTagName) => setTags((v) => (v.includes(t) ? v.filter((x) => x !== t) : [...v, t])),
    rationale,
    setRationale,
    showTags,
    openTags,
    skipping,
    openSkip,
    skipReason,
    setSkipReason,
    error,
    locked,
    busy,
    submit,
    skip,
    refs: { rationaleRef, firstTagRef, skipRef },
  };
}

export type GradeForm = ReturnType<typeof useGradeForm>;
