'use client';

import type { ReactNode } from 'react';
import Link from 'next/link';
import { formatPercent, formatUtcDay } from '@/common/format';

// What the Insights charts share: one palette (mid-tone colours that read on
// a light and a dark background alike), axis styling, and the tiles.

export const PALETTE = {
  blue: '#4f7cff',
  green: '#22a06b',
  amber: '#e0a100',
  red: '#e5484d',
  violet: '#8b5cf6',
  slate: '#7c8799',
  teal: '#12a4b4',
  pink: '#d6409f',
} as const;

export const SERIES = [PALETTE.blue, PALETTE.green, PALETTE.amber, PALETTE.red, PALETTE.violet, PALETTE.teal, PALETTE.pink, PALETTE.slate];

export const AXIS = {
  tick: { fontSize: 12, fill: 'currentColor' },
  stroke: 'currentColor',
  tickLine: false,
} as const;

export const GRID = { stroke: 'rgba(127, 137, 153, 0.25)', strokeDasharray: '3 3', vertical: false } as const;

export const TOOLTIP = {
  contentStyle: { borderRadius: 6, border: '1px solid #d7dbe2', fontSize: 12.5, color: '#1c2430' },
  labelStyle: { fontWeight: 600, color: '#1c2430' },
} as const;

/** Percent axis ticks: 0%, 25%, … */
export const percentTick = (v: number) => formatPercent(v, 0);
export const dayTick = (iso: string) => formatUtcDay(iso);

export const CHART_HEIGHT = 280;

export interface Tile {
  label: string;
  value: string;
  /** a smaller line under the value */
  detail?: ReactNode;
  href?: string;
  testId?: string;
}

export function Tiles({ tiles }: { tiles: Tile[] }) {
  return (
    <div className="insights-tiles">
      {tiles.map((t) => {
        const body = (
          <>
            <div className="insights-tile-label">{t.label}</div>
            <div className="insights-tile-value">{t.value}</div>
            {t.detail && <div className="insights-tile-detail">{t.detail}</div>}
          </>
        );
        return t.href ? (
          <Link key={t.label} href={t.href} className="insights-tile insights-tile-link" data-testid={t.testId}>
            {body}
          </Link>
        ) : (
          <div key={t.label} className="insights-tile" data-testid={t.testId}>
            {body}
          </div>
        );
      })}
    </div>
  );
}

/** Loading and error states of a section. */
export function SectionState({ isLoading, error }: { isLoading: boolean; error: Error | null }) {
  if (error) return <div className="card insights-error" role="alert">Could not load these figures: {error.message}</div>;
  if (isLoading) return <div className="card muted">Loading…</div>;
  return null;
}

export function humanise(key: string): string {
  const text = key.replace(/^dropped:/, '').replace(/_/g, ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}
