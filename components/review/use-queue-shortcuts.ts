'use client';

import { useEffect, useRef } from 'react';

export const SHORTCUTS = [
  { keys: ['j', '↓'], label: 'next' },
  { keys: ['k', '↑'], label: 'previous' },
  { keys: ['o', 'Enter'], label: 'open' },
  { keys: ['a'], label: 'accept (5 s to undo)' },
  { keys: ['u'], label: 'undo' },
  { keys: ['r'], label: 'reject' },
  { keys: ['Esc'], label: 'close' },
] as const;

export type ShortcutAction = 'next' | 'previous' | 'first' | 'last' | 'open' | 'accept' | 'undo' | 'reject' | 'close';

const KEY_ACTION: Record<string, ShortcutAction> = {
  j: 'next',
  ArrowDown: 'next',
  k: 'previous',
  ArrowUp: 'previous',
  Home: 'first',
  End: 'last',
  o: 'open',
  Enter: 'open',
  a: 'accept',
  u: 'undo',
  r: 'reject',
  Escape: 'close',
};

/** Typing in a field must never trigger a shortcut. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') {
    const type = (target as HTMLInputElement).type;
    return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(type);
  }
  return false;
}

export function useQueueShortcuts(onAction: (action: ShortcutAction) => void, enabled: boolean) {
  const handler = useRef(onAction);
  useEffect(() => {
    handler.current = onAction;
  }, [onAction]);
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      const action = KEY_ACTION[e.key];
      if (!action) return;
      // Enter on a link or button keeps its own meaning
      if (e.key === 'Enter' && e.target instanceof HTMLElement && e.target.closest('a, button')) return;
      e.preventDefault();
      handler.current(action);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);
}
