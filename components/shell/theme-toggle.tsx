'use client';

import { THEME_CHOICES, type ThemeChoice } from './theme';
import { setThemeChoice, useThemeChoice } from './use-theme';

const LABELS: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

// A native select: keyboard and screen-reader behaviour for free, and small
// enough for the header on a phone.
export function ThemeToggle() {
  const choice = useThemeChoice();
  return (
    <select
      className="select theme-select"
      aria-label="Colour theme"
      title="Colour theme"
      data-testid="theme-select"
      value={choice}
      onChange={(e) => setThemeChoice(e.target.value as ThemeChoice)}
    >
      {THEME_CHOICES.map((c) => (
        <option key={c} value={c}>
          {LABELS[c]} theme
        </option>
      ))}
    </select>
  );
}
