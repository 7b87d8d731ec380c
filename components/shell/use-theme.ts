'use client';

import { useSyncExternalStore } from 'react';
import { THEME_CHANGE_EVENT, THEME_STORAGE_KEY, type Theme, type ThemeChoice } from './theme';

// The browser side of the theme (components/shell/theme.ts): the stored
// choice, and the theme in force as the inline script set it on <html>.
// Both are external stores, read with useSyncExternalStore: never copied
// into state, and the server's render (which cannot know them) is System
// and light until hydration reads the real values.

function readChoice(): ThemeChoice {
  try {
    const stored = window.localStorage.getItem(THEME_STORAGE_KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system';
  }
}

function subscribeChoice(onChange: () => void): () => void {
  window.addEventListener('storage', onChange);
  window.addEventListener(THEME_CHANGE_EVENT, onChange);
  return () => {
    window.removeEventListener('storage', onChange);
    window.removeEventListener(THEME_CHANGE_EVENT, onChange);
  };
}

/** Stores the choice and lets the inline script apply it (System is the absence of a stored choice). */
export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(THEME_STORAGE_KEY);
    else window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // storage disabled: the choice cannot outlive this page; apply it anyway
    document.documentElement.setAttribute(
      'data-theme',
      choice === 'system' ? (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light') : choice,
    );
    return;
  }
  window.dispatchEvent(new Event(THEME_CHANGE_EVENT));
}

export function useThemeChoice(): ThemeChoice {
  return useSyncExternalStore(subscribeChoice, readChoice, () => 'system');
}

function readTheme(): Theme {
  return document.documentElement.getAttribute('data-theme') === 'dark' ? 'dark' : 'light';
}

function subscribeTheme(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return () => observer.disconnect();
}

/** The theme in force (what the CSS tokens show), for what CSS cannot reach: Monaco's theme. */
export function useResolvedTheme(): Theme {
  return useSyncExternalStore(subscribeTheme, readTheme, () => 'light');
}
