'use client';

import { useSyncExternalStore, type ReactNode } from 'react';
import Link from 'next/link';
import { formatCount, formatPercent, formatUtcDay } from '@/common/format';
import { humaniseCode } from '@/common/labels';
import { wrapLabel } from '@/common/text';

// What the Insights charts share: one palette, axis styling, and the tiles.
// Every colour is a design token of app/globals.css (--chart-*), passed to
// recharts as var(): SVG paints resolve it, so a chart follows a change of
// theme at once, with no re-render. The series keep 3:1 against the card in
// both themes (test/unit/theme/theme-tokens.test.ts).

export const PALETTE = {
  blue: 'var(--chart-blue)',
  green: 'var(--chart-green)',
  amber: 'var(--chart-amber)',
  red: 'var(--chart-red)',
  violet: 'var(--chart-violet)',
  slate: 'var(--chart-slate)',
  teal: 'var(--chart-teal)',
  pink: 'var(--chart-pink)',
} as const;

export const SERIES = [PALETTE.blue, PALETTE.green, PALETTE.amber, PALETTE.red, PALETTE.violet, PALETTE.teal, PALETTE.pink, PALETTE.slate];

export const AXIS = {
  tick: { fontSize: 12, fill: 'var(--chart-axis)' },
  stroke: 'var(--chart-axis)',
  tickLine: false,
} as const;

/** Legends list the series in the order they are drawn (recharts sorts them by name otherwise). */
export const LEGEND = { itemSorter: null } as const;
export const GRID = { stroke: 'var(--chart-grid)', strokeDasharray: '3 3', vertical: false } as const;

// A bar drawn pale, to stay behind another series, gets fillOpacity and an
// outline in its full colour: the outline keeps the shape at 3:1 against the
// card in both themes, where a plain opacity would sink into the dark one.

// The values are written in the tooltip's text colour, not the series'
// (a series colour is made to stand out as a shape, not to be read as
// small text); each value is named by its series, in words, with its unit
// ("Fixes applied: 140", "p90 time: 4 min"): every chart's series has a
// `name` and its formatter writes the unit.
export const TOOLTIP = {
  separator: ': ',
  contentStyle: {
    borderRadius: 6,
    border: '1px solid var(--chart-tooltip-border)',
    background: 'var(--chart-tooltip-bg)',
    fontSize: 12.5,
    color: 'var(--chart-tooltip-text)',
  },
  labelStyle: { fontWeight: 600, color: 'var(--chart-tooltip-text)' },
  itemStyle: { color: 'var(--chart-tooltip-text)' },
  cursor: { fill: 'var(--chart-cursor)' },
} as const;

/**
 * Every chart's own props: no keyboard layer of its own (recharts makes the
 * SVG a tab stop otherwise). The card names the chart for screen readers
 * (role img, its title and a summary of its figures) and offers the same
 * figures as a table (chart-card.tsx).
 */
export const CHART = { accessibilityLayer: false } as const;
// Every Bar and Line has isAnimationActive={false}: the figures are drawn at
// once (seen: a chart left empty on a busy machine while its entry
// animation waited for frames), and nothing moves for people who read them.

/** about how wide a character of the axis' 12 px text is, in px */
const CHAR_PX = 6.8;

/**
 * A category's name under its bars. recharts drops the names that do not fit
 * side by side (on a phone the tallest bars went unnamed); this draws every
 * one, wrapped onto two lines of its share of the axis and cut with "…" past
 * them, the whole name in its title (a tooltip, and what screen readers and
 * the chart's table give in full).
 */
export function CategoryTick(props: { x?: number; y?: number; payload?: { value?: unknown }; width?: number; visibleTicksCount?: number }) {
  const { x = 0, y = 0, payload, width = 0, visibleTicksCount = 1 } = props;
  const name = String(payload?.value ?? '');
  const room = width / Math.max(1, visibleTicksCount) - 6;
  const lines = wrapLabel(name, Math.max(4, Math.floor(room / CHAR_PX)), 2);
  return (
    <g transform={`translate(${x},${y})`} className="insights-category-tick" data-name={name}>
      <title>{name}</title>
      <text textAnchor="middle" fontSize={12} fill="var(--chart-axis)">
        {lines.map((line, i) => (
          <tspan key={i} x={0} dy={i === 0 ? 12 : 14}>
            {line}
          </tspan>
        ))}
      </text>
    </g>
  );
}

/** A category x axis: every name drawn (interval 0), two lines of room. */
export const CATEGORY_AXIS = { interval: 0, tick: <CategoryTick />, height: 40 } as const;

/** A bar of value 0 is drawn as a sliver, so a zero reads as zero, not as a missing bar. */
export const ZERO_BAR = 2;

/** "3 fixes", "1 change": a count with its unit. */
export function countOf(one: string, many: string) {
  return (v: unknown) => `${formatCount(Number(v))} ${Number(v) === 1 ? one : many}`;
}

const NARROW = '(max-width: 640px)';
function subscribeNarrow(onChange: () => void) {
  const media = window.matchMedia(NARROW);
  media.addEventListener('change', onChange);
  return () => media.removeEventListener('change', onChange);
}

/** A phone-sized screen: charts give their labels less room (the server renders the wide layout). */
export function useNarrow(): boolean {
  return useSyncExternalStore(
    subscribeNarrow,
    () => window.matchMedia(NARROW).matches,
    () => false,
  );
}

/** A line's points: hollow, ringed in the series colour on the card's own colour. */
export const DOT = { r: 3, fill: 'var(--panel)' } as const;
export const ACTIVE_DOT = { r: 5, stroke: 'var(--panel)' } as const;

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
  if (error)
    return (
      <div className="card insights-error" role="alert">
        Could not load these figures: {error.message}
      </div>
    );
  if (isLoading) return <div className="card muted">Loading…</div>;
  return null;
}

export function humanise(key: string): string {
  return humaniseCode(key.replace(/^dropped:/, ''));
}

/** What the grading terms mean, where their figures are shown: visible text, read by screen readers too. */
export const GRADING_TERMS: Array<{ term: string; definition: string }> = [
  { term: 'Plausible', definition: 'the fix makes the failing tests pass and keeps the regression suite green: every posted fix is plausible.' },
  { term: 'Correct', definition: 'a plausible fix the graders judged right: it repairs the fault the change introduced, as a developer would accept it.' },
  {
    term: 'Overfitting',
    definition:
      'a plausible fix the graders judged wrong beyond the tests: it makes these tests pass (special-cases their inputs, weakens a check) without repairing the fault.',
  },
  { term: 'Incorrect', definition: 'the graders judged the fix wrong; irrelevant: it does not address this failure.' },
  { term: 'Precision', definition: 'correct fixes of the settled ones (those whose graders agreed on a label), with its 95% Wilson interval.' },
];

export function Definitions({ testId = 'insights-definitions' }: { testId?: string }) {
  return (
    <dl className="insights-definitions" data-testid={testId}>
      {GRADING_TERMS.map((t) => (
        <div key={t.term}>
          <dt>{t.term}</dt>
          <dd>{t.definition}</dd>
        </div>
      ))}
    </dl>
  );
}
