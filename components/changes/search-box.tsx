'use client';

import { useEffect, useRef, useState } from 'react';

const DEBOUNCE_MS = 300;

/**
 * The search input. Its draft is local (typing must not wait for the URL);
 * the URL's `q` is the committed value, pushed after a pause in typing. When
 * `q` changes from elsewhere (back button, "clear filters") the draft follows,
 * unless that `q` is the one this box just committed.
 */
export function SearchBox({ value, onCommit }: { value: string; onCommit: (q: string) => void }) {
  const [draft, setDraft] = useState(value);
  const [seen, setSeen] = useState(value);
  const committed = useRef(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // the debounced commit runs after later renders: it must see the latest
  // filters (another filter changed meanwhile), not the ones of the keystroke
  const latest = useRef({ value, onCommit });
  useEffect(() => {
    latest.current = { value, onCommit };
  });

  if (value !== seen) {
    setSeen(value);
    if (value !== committed.current) setDraft(value);
  }

  useEffect(() => () => clearTimeout(timer.current), []);

  function commit(next: string) {
    clearTimeout(timer.current);
    const q = next.trim();
    committed.current = q;
    if (q !== latest.current.value) latest.current.onCommit(q);
  }

  return (
    <input
      className="input triage-search"
      type="search"
      placeholder="Search title, id, author, branch…"
      aria-label="Search changes"
      data-testid="triage-search"
      value={draft}
      maxLength={200}
      onChange={(e) => {
        const next = e.target.value;
        setDraft(next);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => commit(next), DEBOUNCE_MS);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit(draft);
      }}
    />
  );
}
