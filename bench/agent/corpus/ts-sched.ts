import type { CorpusBug, CorpusProject } from './types';

// Scheduling helpers in TypeScript: pagination, a calendar, intervals.

export const tsSched: CorpusProject = {
  name: 'ts-sched',
  language: 'typescript',
  files: {
    'package.json': '{ "name": "ts-sched", "private": true, "type": "module" }\n',
    'src/paginate.ts': `export function pageCount(total: number, size: number): number {
  if (size <= 0) throw new RangeError('size must be positive');
  return Math.ceil(total / size);
}

export function paginate<T>(items: T[], page: number, size: number): T[] {
  const start = (page - 1) * size;
  return items.slice(start, start + size);
}

export function pageWindow(current: number, last: number, radius = 2): number[] {
  const from = Math.max(1, current - radius);
  const to = Math.min(last, current + radius);
  const pages: number[] = [];
  for (let p = from; p <= to; p++) pages.push(p);
  return pages;
}
`,
    'src/calendar.ts': `export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function isWeekend(day: number): boolean {
  return day === 0 || day === 6;
}
`,
    'src/interval.ts': `export interface Interval {
  start: number;
  end: number;
}

export function overlaps(a: Interval, b: Interval): boolean {
  return a.start < b.end && b.start < a.end;
}

export function merge(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((x, y) => x.start - y.start);
  const out: Interval[] = [];
  for (const iv of sorted) {
    const last = out[out.length - 1];
    if (last && iv.start <= last.end) last.end = Math.max(last.end, iv.end);
    else out.push({ ...iv });
  }
  return out;
}

export function duration(iv: Interval): number {
  return iv.end - iv.start;
}
`,
    'test/paginate.test.ts': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageCount, pageWindow, paginate } from '../src/paginate.ts';

const seven = [1, 2, 3, 4, 5, 6, 7];

test('pageCount rounds up', () => {
  assert.equal(pageCount(10, 3), 4);
  assert.equal(pageCount(9, 3), 3);
  assert.equal(pageCount(0, 5), 0);
});

test('paginate returns the requested page', () => {
  assert.deepEqual(paginate(seven, 2, 3), [4, 5, 6]);
  assert.deepEqual(paginate(seven, 3, 3), [7]);
});

test('pageWindow stays within bounds', () => {
  assert.deepEqual(pageWindow(1, 10), [1, 2, 3]);
  assert.deepEqual(pageWindow(5, 10), [3, 4, 5, 6, 7]);
  assert.deepEqual(pageWindow(10, 10), [8, 9, 10]);
});
`,
    'test/calendar.test.ts': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { daysInMonth, isLeapYear, isWeekend } from '../src/calendar.ts';

test('isLeapYear follows the Gregorian rule', () => {
  assert.equal(isLeapYear(2024), true);
  assert.equal(isLeapYear(1900), false);
  assert.equal(isLeapYear(2000), true);
  assert.equal(isLeapYear(2023), false);
});

test('daysInMonth knows February', () => {
  assert.equal(daysInMonth(2024, 2), 29);
  assert.equal(daysInMonth(2023, 2), 28);
  assert.equal(daysInMonth(2023, 4), 30);
  assert.equal(daysInMonth(2023, 1), 31);
});

test('isWeekend is Saturday and Sunday', () => {
  assert.equal(isWeekend(0), true);
  assert.equal(isWeekend(6), true);
  assert.equal(isWeekend(3), false);
});
`,
    'test/interval.test.ts': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duration, merge, overlaps } from '../src/interval.ts';

test('overlaps needs a shared instant', () => {
  assert.equal(overlaps({ start: 0, end: 5 }, { start: 5, end: 10 }), false);
  assert.equal(overlaps({ start: 0, end: 5 }, { start: 4, end: 10 }), true);
});

test('merge joins overlapping intervals', () => {
  assert.deepEqual(merge([{ start: 1, end: 3 }, { start: 8, end: 10 }, { start: 2, end: 6 }]), [
    { start: 1, end: 6 },
    { start: 8, end: 10 },
  ]);
  assert.deepEqual(merge([{ start: 1, end: 2 }, { start: 2, end: 3 }]), [{ start: 1, end: 3 }]);
});

test('duration is end minus start', () => {
  assert.equal(duration({ start: 2, end: 7 }), 5);
});
`,
  },
};

const id = (name: string) => `test::${name}`;

export const tsSchedBugs: CorpusBug[] = [
  {
    id: 'ts-sched/page-window',
    project: 'ts-sched',
    kind: 'off-by-one',
    title: 'Pagination: labels for the page picker',
    description: 'Adds pageLabels, which marks the current page, on top of pageWindow.',
    change: [
      {
        file: 'src/paginate.ts',
        replace: [['  for (let p = from; p <= to; p++) pages.push(p);', '  for (let p = from; p < to; p++) pages.push(p);']],
        append:
          "\nexport function pageLabels(current: number, last: number): string[] {\n  return pageWindow(current, last).map((p) => (p === current ? '[' + p + ']' : String(p)));\n}\n",
      },
    ],
    failingTests: [id('pageWindow stays within bounds')],
    truth: { file: 'src/paginate.ts', symbol: 'pageWindow' },
    offlineFixable: true,
    fix: 'relational-operator',
  },
  {
    id: 'ts-sched/duration-sign',
    project: 'ts-sched',
    kind: 'wrong-arithmetic',
    title: 'duration: reject reversed intervals',
    description: 'An interval that ends before it starts is a bug upstream; throw.',
    change: [
      {
        file: 'src/interval.ts',
        replace: [
          ['  return iv.end - iv.start;', "  if (iv.end < iv.start) throw new RangeError('interval ends before it starts');\n  return iv.end + iv.start;"],
        ],
      },
    ],
    failingTests: [id('duration is end minus start')],
    truth: { file: 'src/interval.ts', symbol: 'duration' },
    offlineFixable: true,
    fix: 'arithmetic-operator',
  },
  {
    id: 'ts-sched/leap-logic',
    project: 'ts-sched',
    kind: 'wrong-logical',
    title: 'isLeapYear: integers only',
    description: 'Fractional years slipped through from a form; reject them.',
    change: [
      {
        file: 'src/calendar.ts',
        replace: [
          [
            '  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;',
            "  if (!Number.isInteger(year)) throw new TypeError('year must be an integer');\n  return (year % 4 === 0 || year % 100 !== 0) || year % 400 === 0;",
          ],
        ],
      },
    ],
    failingTests: [id('isLeapYear follows the Gregorian rule'), id('daysInMonth knows February')],
    truth: { file: 'src/calendar.ts', symbol: 'isLeapYear' },
    offlineFixable: true,
    fix: 'logical-operator',
  },
  {
    id: 'ts-sched/merge-negated',
    project: 'ts-sched',
    kind: 'negated-condition',
    title: 'merge: sort ties by end',
    description: 'Intervals with the same start now come out in a stable order.',
    change: [
      {
        file: 'src/interval.ts',
        replace: [
          [
            '  const sorted = [...intervals].sort((x, y) => x.start - y.start);',
            '  const sorted = [...intervals].sort((x, y) => x.start - y.start || x.end - y.end);',
          ],
          ['    if (last && iv.start <= last.end) last.end', '    if (last && !(iv.start <= last.end)) last.end'],
        ],
      },
    ],
    failingTests: [id('merge joins overlapping intervals')],
    truth: { file: 'src/interval.ts', symbol: 'merge' },
    offlineFixable: true,
    fix: 'remove-negation',
  },
  {
    id: 'ts-sched/labels-swapped',
    project: 'ts-sched',
    kind: 'swapped-args',
    title: 'Pagination: page picker labels',
    description: 'pageLabels renders the picker, the current page in brackets.',
    change: [
      {
        file: 'src/paginate.ts',
        append:
          "\nexport function pageLabels(current: number, last: number): string[] {\n  return pageWindow(last, current).map((p) => (p === current ? '[' + p + ']' : String(p)));\n}\n",
      },
      {
        file: 'test/paginate.test.ts',
        replace: [
          [
            "import { pageCount, pageWindow, paginate } from '../src/paginate.ts';",
            "import { pageCount, pageLabels, pageWindow, paginate } from '../src/paginate.ts';",
          ],
        ],
        append: "\ntest('pageLabels marks the current page', () => {\n  assert.deepEqual(pageLabels(2, 9), ['1', '[2]', '3', '4']);\n});\n",
      },
    ],
    failingTests: [id('pageLabels marks the current page')],
    truth: { file: 'src/paginate.ts', symbol: 'pageLabels' },
    offlineFixable: true,
    fix: 'swap-arguments',
  },
  {
    id: 'ts-sched/weekend-literal',
    project: 'ts-sched',
    kind: 'wrong-literal',
    title: 'isWeekend: day names',
    description: "Accept 'sat'/'sun' as well as day numbers.",
    change: [
      {
        file: 'src/calendar.ts',
        replace: [
          [
            'export function isWeekend(day: number): boolean {\n  return day === 0 || day === 6;',
            "const DAY_NUMBERS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };\n\nexport function isWeekend(day: number | string): boolean {\n  const n = typeof day === 'string' ? DAY_NUMBERS[day.toLowerCase()] : day;\n  return n === 0 || n === 7;",
          ],
        ],
      },
    ],
    failingTests: [id('isWeekend is Saturday and Sunday')],
    truth: { file: 'src/calendar.ts', symbol: 'isWeekend' },
    offlineFixable: true,
    fix: 'boundary-literal',
  },
  {
    id: 'ts-sched/zero-size-missing',
    project: 'ts-sched',
    kind: 'missing-logic',
    title: 'pageCount: size 0 means everything on one page',
    description: 'The API uses size=0 for "no paging".',
    change: [
      {
        file: 'test/paginate.test.ts',
        append: "\ntest('pageCount with size 0 is one page', () => {\n  assert.equal(pageCount(10, 0), 1);\n});\n",
      },
      { file: 'src/paginate.ts', replace: [['export function pageCount(', '/** size 0: no paging, one page with everything */\nexport function pageCount(']] },
    ],
    failingTests: [id('pageCount with size 0 is one page')],
    truth: { file: 'src/paginate.ts', symbol: 'pageCount' },
    offlineFixable: false,
    fix: null,
  },
];
