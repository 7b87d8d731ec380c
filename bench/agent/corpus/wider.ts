import type { CorpusBug } from './types';

// Bugs over the same six projects for the wider offline search's fix
// patterns (agent/policies/offline/structural.ts and the token templates it
// sits beside): a wrong variable or field in scope, a wrong function among
// same-arity siblings, a built-in swapped, an off-by-one index, operands in
// the wrong order, a clause too many, a missing guard, a statement too many or
// one missing that the same file has elsewhere, a membership test inverted.
// Written for flowfix in the style of the others (each change adds something
// along with the mistake, so a fix is never a plain revert); they are not
// bugs collected from real projects. Each has held-out tests the repository
// does not: the bench runs them over a fix to tell a correct one from one
// that only satisfies the repository's own (weak) tests.

const ts = (name: string) => `test::${name}`;
const stats = (name: string) => `tests.test_stats::${name}`;
const letters = (name: string) => `tests.test_letters::${name}`;
const stock = (name: string) => `tests.test_stock::${name}`;
const fmt = (name: string) => `tests.test_fmt::${name}`;
const parse = (name: string) => `tests.test_parse::${name}`;

export const widerBugs: CorpusBug[] = [
  {
    id: 'ts-text/wrap-gap',
    project: 'ts-text',
    kind: 'wrong-variable',
    title: 'wordWrap: configurable gap between words',
    description: 'Some layouts join words with two spaces; the gap is a parameter now.',
    change: [
      {
        file: 'src/wrap.ts',
        replace: [
          ['export function wordWrap(text: string, width: number): string[] {', "export function wordWrap(text: string, width: number, gap = ' '): string[] {"],
          ['    if (line && line.length + 1 + word.length > width) {', '    if (line && line.length + gap.length + line.length > width) {'],
          ["      line = line ? line + ' ' + word : word;", '      line = line ? line + gap + word : word;'],
        ],
      },
      {
        file: 'test/text.test.ts',
        append: "\ntest('wordWrap with a wider gap', () => {\n  assert.deepEqual(wordWrap('abc d ef', 7, '  '), ['abc  d', 'ef']);\n});\n",
      },
    ],
    failingTests: [ts('wordWrap breaks at the width'), ts('wordWrap with a wider gap')],
    truth: { file: 'src/wrap.ts', symbol: 'wordWrap' },
    offlineFixable: true,
    fix: 'wrong-variable',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { wordWrap } from '../src/wrap.ts';\n\ntest('a long line takes a short word', () => {\n  assert.deepEqual(wordWrap('abcdef g', 10), ['abcdef g']);\n  assert.deepEqual(wordWrap('ab cdefgh', 8), ['ab', 'cdefgh']);\n});\n",
      },
    ],
  },
  {
    id: 'ts-text/list-last-index',
    project: 'ts-text',
    kind: 'off-by-one',
    title: 'listNames: serial comma option',
    description: "Style guides differ on the comma before 'and'; make it an option.",
    change: [
      {
        file: 'src/greet.ts',
        replace: [
          [
            "export function listNames(names: string[]): string {\n  if (names.length === 0) return 'nobody';\n  if (names.length === 1) return names[0];\n  return names.slice(0, -1).join(', ') + ' and ' + names[names.length - 1];",
            "export function listNames(names: string[], serialComma = false): string {\n  if (names.length === 0) return 'nobody';\n  if (names.length === 1) return names[0];\n  const last = names.length;\n  const head = names.slice(0, -1).join(', ');\n  return head + (serialComma ? ',' : '') + ' and ' + names[last];",
          ],
        ],
      },
      {
        file: 'test/greet.test.ts',
        append: "\ntest('listNames with a serial comma', () => {\n  assert.equal(listNames(['a', 'b', 'c'], true), 'a, b, and c');\n});\n",
      },
    ],
    failingTests: [ts('listNames joins with and'), ts('listNames with a serial comma')],
    truth: { file: 'src/greet.ts', symbol: 'listNames' },
    offlineFixable: true,
    fix: 'index-off-by-one',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { listNames } from '../src/greet.ts';\n\ntest('two names', () => {\n  assert.equal(listNames(['a', 'b']), 'a and b');\n  assert.equal(listNames(['a', 'b'], true), 'a, and b');\n});\n",
      },
    ],
  },
  {
    id: 'ts-text/list-unique-sorted',
    project: 'ts-text',
    kind: 'extra-statement',
    title: 'listNames: each name once',
    description: 'The same guest can be invited twice; list each name once, in the order given.',
    change: [
      {
        file: 'src/greet.ts',
        replace: [
          [
            "export function listNames(names: string[]): string {\n  if (names.length === 0) return 'nobody';\n  if (names.length === 1) return names[0];\n  return names.slice(0, -1).join(', ') + ' and ' + names[names.length - 1];",
            "export function listNames(names: string[]): string {\n  const unique = [...new Set(names)];\n  unique.sort();\n  if (unique.length === 0) return 'nobody';\n  if (unique.length === 1) return unique[0];\n  return unique.slice(0, -1).join(', ') + ' and ' + unique[unique.length - 1];",
          ],
        ],
      },
      {
        file: 'test/greet.test.ts',
        append: "\ntest('listNames names each guest once, in order', () => {\n  assert.equal(listNames(['bo', 'al', 'bo']), 'bo and al');\n});\n",
      },
    ],
    failingTests: [ts('listNames names each guest once, in order')],
    truth: { file: 'src/greet.ts', symbol: 'listNames' },
    offlineFixable: true,
    fix: 'delete-statement',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { listNames } from '../src/greet.ts';\n\ntest('the caller keeps its list as it was', () => {\n  const names = ['bo', 'al'];\n  assert.equal(listNames(names), 'bo and al');\n  assert.deepEqual(names, ['bo', 'al']);\n});\n",
      },
    ],
  },
  {
    id: 'ts-text/greeting-title',
    project: 'ts-text',
    kind: 'operand-order',
    title: 'greeting: an optional title',
    description: "Letters address people as 'Dr. Lovelace'; greeting takes a title.",
    change: [
      {
        file: 'src/greet.ts',
        replace: [
          [
            "export function greeting(name: string, hour: number): string {\n  const part = hour < 12 ? 'morning' : hour < 18 ? 'afternoon' : 'evening';\n  return 'Good ' + part + ', ' + name + '!';",
            "export function greeting(name: string, hour: number, title = ''): string {\n  const part = hour < 12 ? 'morning' : hour < 18 ? 'afternoon' : 'evening';\n  const who = title ? ' ' + title + name : name;\n  return 'Good ' + part + ', ' + who + '!';",
          ],
        ],
      },
      {
        file: 'test/greet.test.ts',
        append: "\ntest('greeting with a title', () => {\n  assert.equal(greeting('Lovelace', 9, 'Dr.'), 'Good morning, Dr. Lovelace!');\n});\n",
      },
    ],
    failingTests: [ts('greeting with a title')],
    truth: { file: 'src/greet.ts', symbol: 'greeting' },
    offlineFixable: true,
    fix: 'swap-operands',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { greeting } from '../src/greet.ts';\n\ntest('titles in the evening', () => {\n  assert.equal(greeting('Ann', 20, 'Ms.'), 'Good evening, Ms. Ann!');\n});\n",
      },
    ],
  },
  {
    id: 'ts-cart/round-half',
    project: 'ts-cart',
    kind: 'wrong-builtin',
    title: 'roundCents: refunds round away from zero',
    description: 'Negative amounts (refunds) rounded towards zero; round half away from zero on both sides.',
    change: [
      { file: 'src/money.ts', replace: [['  return Math.round(value);', '  return Math.sign(value) * Math.floor(Math.abs(value));']] },
      { file: 'test/money.test.ts', append: "\ntest('roundCents rounds refunds away from zero', () => {\n  assert.equal(roundCents(-2.5), -3);\n});\n" },
    ],
    failingTests: [ts('roundCents rounds half up'), ts('roundCents rounds refunds away from zero'), ts('applyDiscount takes a percentage off')],
    truth: { file: 'src/money.ts', symbol: 'roundCents' },
    offlineFixable: true,
    fix: 'builtin-function',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { roundCents } from '../src/money.ts';\n\ntest('below the half rounds towards zero', () => {\n  assert.equal(roundCents(2.4), 2);\n  assert.equal(roundCents(-2.4), -2);\n});\n",
      },
    ],
  },
  {
    id: 'ts-sched/overlap-inclusive',
    project: 'ts-sched',
    kind: 'wrong-field',
    title: 'overlaps: inclusive mode',
    description: 'Room bookings that touch count as a clash when `inclusive` is set.',
    change: [
      {
        file: 'src/interval.ts',
        replace: [
          [
            'export function overlaps(a: Interval, b: Interval): boolean {\n  return a.start < b.end && b.start < a.end;',
            'export function overlaps(a: Interval, b: Interval, inclusive = false): boolean {\n  if (inclusive) return a.start <= b.end && b.start <= a.end;\n  return a.start < b.end && b.start < a.start;',
          ],
        ],
      },
      {
        file: 'test/interval.test.ts',
        append:
          "\ntest('overlaps can include touching ends', () => {\n  assert.equal(overlaps({ start: 0, end: 5 }, { start: 5, end: 10 }, true), true);\n});\n",
      },
    ],
    failingTests: [ts('overlaps needs a shared instant')],
    truth: { file: 'src/interval.ts', symbol: 'overlaps' },
    offlineFixable: true,
    fix: 'wrong-field',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { overlaps } from '../src/interval.ts';\n\ntest('one inside the other', () => {\n  assert.equal(overlaps({ start: 0, end: 10 }, { start: 2, end: 3 }), true);\n  assert.equal(overlaps({ start: 6, end: 9 }, { start: 0, end: 5 }), false);\n});\n",
      },
    ],
  },
  {
    id: 'ts-sched/merge-joinable',
    project: 'ts-sched',
    kind: 'wrong-function',
    title: 'intervals: named predicates',
    description: 'touches() and joinable() name what merge() checks, for the booking screen to reuse.',
    change: [
      {
        file: 'src/interval.ts',
        replace: [
          [
            'export function merge(',
            'export function touches(a: Interval, b: Interval): boolean {\n  return a.end === b.start || b.end === a.start;\n}\n\nexport function joinable(a: Interval, b: Interval): boolean {\n  return overlaps(a, b) || touches(a, b);\n}\n\nexport function merge(',
          ],
          ['    if (last && iv.start <= last.end) last.end', '    if (last && touches(last, iv)) last.end'],
        ],
      },
    ],
    failingTests: [ts('merge joins overlapping intervals')],
    truth: { file: 'src/interval.ts', symbol: 'merge' },
    offlineFixable: true,
    fix: 'wrong-function',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { merge } from '../src/interval.ts';\n\ntest('apart stays apart, touching joins', () => {\n  assert.deepEqual(merge([{ start: 1, end: 2 }, { start: 3, end: 4 }]), [{ start: 1, end: 2 }, { start: 3, end: 4 }]);\n  assert.deepEqual(merge([{ start: 3, end: 4 }, { start: 1, end: 3 }]), [{ start: 1, end: 4 }]);\n});\n",
      },
    ],
  },
  {
    id: 'ts-sched/merge-contained',
    project: 'ts-sched',
    kind: 'extra-clause',
    title: 'merge: intervals inside another',
    description: 'An interval inside another disappears into it; adds a test for that case.',
    change: [
      {
        file: 'src/interval.ts',
        replace: [['    if (last && iv.start <= last.end) last.end', '    if (last && iv.start <= last.end && iv.end >= last.end) last.end']],
      },
      {
        file: 'test/interval.test.ts',
        append:
          "\ntest('merge swallows an interval inside another', () => {\n  assert.deepEqual(merge([{ start: 1, end: 10 }, { start: 2, end: 3 }]), [{ start: 1, end: 10 }]);\n});\n",
      },
    ],
    failingTests: [ts('merge swallows an interval inside another')],
    truth: { file: 'src/interval.ts', symbol: 'merge' },
    offlineFixable: true,
    fix: 'remove-clause',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { merge } from '../src/interval.ts';\n\ntest('an overlap that ends later extends', () => {\n  assert.deepEqual(merge([{ start: 1, end: 5 }, { start: 2, end: 8 }]), [{ start: 1, end: 8 }]);\n  assert.deepEqual(merge([{ start: 1, end: 5 }, { start: 2, end: 4 }, { start: 3, end: 9 }]), [{ start: 1, end: 9 }]);\n});\n",
      },
    ],
  },
  {
    id: 'py-grades/clamp-either-order',
    project: 'py-grades',
    kind: 'wrong-builtin',
    title: 'clamp: bounds in either order',
    description: 'Callers pass (high, low) sometimes; clamp sorts its bounds first.',
    change: [
      {
        file: 'grades/stats.py',
        replace: [['def clamp(value, low, high):\n', 'def clamp(value, low, high):\n    low, high = min(low, high), min(low, high)\n']],
      },
      { file: 'tests/test_stats.py', append: '\n\ndef test_clamp_bounds_in_either_order():\n    assert clamp(5, 10, 0) == 5\n' },
    ],
    failingTests: [stats('test_clamp'), stats('test_clamp_bounds_in_either_order'), letters('test_letter_cutoffs'), letters('test_describe')],
    truth: { file: 'grades/stats.py', symbol: 'clamp' },
    offlineFixable: true,
    fix: 'builtin-function',
    heldOut: [
      {
        file: 'tests/test_heldout.py',
        content: 'from grades.stats import clamp\n\n\ndef test_clamp_reversed_edges():\n    assert clamp(15, 10, 0) == 10\n    assert clamp(-3, 10, 0) == 0\n',
      },
    ],
  },
  {
    id: 'py-grades/median-low',
    project: 'py-grades',
    kind: 'off-by-one',
    title: 'median: the low median',
    description: 'Grade boundaries use the lower of the two middle marks; median(low=True) gives it.',
    change: [
      {
        file: 'grades/stats.py',
        replace: [
          ['def median(values):\n', 'def median(values, low=False):\n'],
          ['    if n % 2 == 1:\n        return ordered[mid]\n', '    if n % 2 == 1:\n        return ordered[mid]\n    if low:\n        return ordered[mid]\n'],
        ],
      },
      { file: 'tests/test_stats.py', append: '\n\ndef test_low_median():\n    assert median([4, 1, 3, 2], low=True) == 2\n' },
    ],
    failingTests: [stats('test_low_median')],
    truth: { file: 'grades/stats.py', symbol: 'median' },
    offlineFixable: true,
    fix: 'index-off-by-one',
    heldOut: [
      {
        file: 'tests/test_heldout.py',
        content:
          'from grades.stats import median\n\n\ndef test_low_median_of_six():\n    assert median([6, 5, 4, 3, 2, 1], low=True) == 3\n    assert median([4, 1, 3, 2]) == 2.5\n',
      },
    ],
  },
  {
    id: 'py-inventory/reserved-available',
    project: 'py-inventory',
    kind: 'wrong-field',
    title: 'Stock: reservations',
    description: 'Checkout reserves units; available() is what is left for others.',
    change: [
      {
        file: 'inventory/stock.py',
        replace: [
          ['        self.levels = {}\n', '        self.levels = {}\n        self.reserved = {}\n'],
          [
            '    def low_stock(self, threshold=5):',
            '    def reserve(self, sku, qty):\n        self.reserved[sku] = self.reserved.get(sku, 0) + qty\n\n    def available(self, sku):\n        return self.levels.get(sku, 0) - self.levels.get(sku, 0)\n\n    def low_stock(self, threshold=5):',
          ],
        ],
      },
      {
        file: 'tests/test_stock.py',
        append: '\n\ndef test_available_leaves_out_reservations():\n    s = make(a=5)\n    s.reserve("a", 2)\n    assert s.available("a") == 3\n',
      },
    ],
    failingTests: [stock('test_available_leaves_out_reservations')],
    truth: { file: 'inventory/stock.py', symbol: 'Stock.available' },
    offlineFixable: true,
    fix: 'wrong-field',
    heldOut: [
      {
        file: 'tests/test_heldout.py',
        content:
          'from inventory.stock import Stock\n\n\ndef test_available_without_reservations():\n    s = Stock()\n    s.add("a", 4)\n    assert s.available("a") == 4\n    assert s.available("b") == 0\n',
      },
    ],
  },
  {
    id: 'py-inventory/version-on-add',
    project: 'py-inventory',
    kind: 'missing-statement',
    title: 'Stock: a version number for caches',
    description: 'The storefront caches stock levels; every change bumps Stock.version.',
    change: [
      {
        file: 'inventory/stock.py',
        replace: [
          ['        self.levels = {}\n', '        self.levels = {}\n        self.version = 0\n'],
          ['        self.levels[sku] = have - qty\n', '        self.levels[sku] = have - qty\n        self.version += 1\n'],
        ],
      },
      {
        file: 'tests/test_stock.py',
        append:
          '\n\ndef test_every_change_bumps_the_version():\n    s = Stock()\n    s.add("a", 3)\n    assert s.version == 1\n    s.remove("a", 1)\n    assert s.version == 2\n',
      },
    ],
    failingTests: [stock('test_every_change_bumps_the_version')],
    truth: { file: 'inventory/stock.py', symbol: 'Stock.add' },
    offlineFixable: true,
    fix: 'copy-statement',
    heldOut: [
      {
        file: 'tests/test_heldout.py',
        content: 'from inventory.stock import Stock\n\n\ndef test_a_new_stock_is_version_zero():\n    assert Stock().version == 0\n',
      },
    ],
  },
  {
    id: 'py-text/title-none',
    project: 'py-text',
    kind: 'missing-guard',
    title: 'title_case: no title',
    description: 'Imported records may have no title at all; title_case(None) is the empty string.',
    change: [
      {
        file: 'textkit/fmt.py',
        replace: [['def title_case(text):\n', 'def title_case(text):\n    """Title Case, small words lower-case; no title (None) is empty."""\n']],
      },
      { file: 'tests/test_fmt.py', append: '\n\ndef test_title_case_of_nothing():\n    assert title_case(None) == ""\n' },
    ],
    failingTests: [fmt('test_title_case_of_nothing')],
    truth: { file: 'textkit/fmt.py', symbol: 'title_case' },
    offlineFixable: true,
    fix: 'entry-guard',
    heldOut: [
      {
        file: 'tests/test_heldout.py',
        content:
          'from textkit.fmt import title_case\n\n\ndef test_titles_still_work():\n    assert title_case("of mice and men") == "Of Mice and Men"\n    assert title_case("") == ""\n',
      },
    ],
  },
  {
    id: 'py-text/join-none',
    project: 'py-text',
    kind: 'missing-guard',
    title: 'join_names: missing names',
    description: 'Optional form fields come back as None; join_names skips them like blanks.',
    change: [
      {
        file: 'textkit/fmt.py',
        replace: [
          [
            'def join_names(names, sep=", "):\n',
            'def join_names(names, sep=", "):\n    """The names joined by sep; blank and missing (None) names are skipped."""\n',
          ],
        ],
      },
      { file: 'tests/test_fmt.py', append: '\n\ndef test_join_names_skips_missing():\n    assert join_names(["ann", None, "bo"]) == "ann, bo"\n' },
    ],
    failingTests: [fmt('test_join_names_skips_missing')],
    truth: { file: 'textkit/fmt.py', symbol: 'join_names' },
    offlineFixable: true,
    fix: 'guard-clause',
    heldOut: [
      {
        file: 'tests/test_heldout.py',
        content:
          'from textkit.fmt import join_names\n\n\ndef test_only_missing_names():\n    assert join_names([None, None]) == ""\n    assert join_names(["ann", "bo"], " & ") == "ann & bo"\n',
      },
    ],
  },
  {
    id: 'py-text/duration-spaces',
    project: 'py-text',
    kind: 'wrong-membership',
    title: 'parse_duration: spaces between parts',
    description: 'People type "1h 30m"; spaces are allowed between the parts.',
    change: [
      {
        file: 'textkit/parse.py',
        replace: [['        elif ch in UNITS:\n', '        elif ch == " ":\n            continue\n        elif ch not in UNITS:\n']],
      },
      { file: 'tests/test_parse.py', append: '\n\ndef test_parse_duration_with_spaces():\n    assert parse_duration("1h 30m") == 5400\n' },
    ],
    failingTests: [parse('test_parse_duration'), parse('test_parse_duration_with_spaces')],
    truth: { file: 'textkit/parse.py', symbol: 'parse_duration' },
    offlineFixable: true,
    fix: 'other-operator',
    heldOut: [
      {
        file: 'tests/test_heldout.py',
        content:
          'import pytest\n\nfrom textkit.parse import parse_duration\n\n\ndef test_more_durations():\n    assert parse_duration("2h") == 7200\n    assert parse_duration(" 5m ") == 300\n    with pytest.raises(ValueError):\n        parse_duration("1d")\n',
      },
    ],
  },
];
