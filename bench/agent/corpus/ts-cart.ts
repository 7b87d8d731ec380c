import type { CorpusBug, CorpusProject } from './types';

// A shopping cart in TypeScript: money helpers, line totals, discounts, shipping.

export const tsCart: CorpusProject = {
  name: 'ts-cart',
  language: 'typescript',
  files: {
    'package.json': '{ "name": "ts-cart", "private": true, "type": "module" }\n',
    'src/money.ts': `export function roundCents(value: number): number {
  return Math.round(value);
}

export function formatMoney(cents: number, symbol = '$'): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const frac = abs % 100;
  return sign + symbol + whole + '.' + (frac < 10 ? '0' + frac : String(frac));
}

export function splitEvenly(cents: number, parts: number): number[] {
  const base = Math.floor(cents / parts);
  const remainder = cents - base * parts;
  const out: number[] = [];
  for (let i = 0; i < parts; i++) out.push(i < remainder ? base + 1 : base);
  return out;
}
`,
    'src/cart.ts': `import { roundCents } from './money.ts';

export interface Item {
  sku: string;
  priceCents: number;
  qty: number;
}

export function lineTotal(item: Item): number {
  return item.priceCents * item.qty;
}

export function subtotal(items: Item[]): number {
  let sum = 0;
  for (const item of items) sum += lineTotal(item);
  return sum;
}

export function itemCount(items: Item[]): number {
  return items.reduce((n, item) => n + item.qty, 0);
}

export function applyDiscount(cents: number, percent: number): number {
  if (percent <= 0) return cents;
  if (percent >= 100) return 0;
  return cents - roundCents((cents * percent) / 100);
}

export function shippingCents(subtotalCents: number, threshold = 5000): number {
  return subtotalCents >= threshold ? 0 : 499;
}

export function total(items: Item[], discountPercent = 0): number {
  const sub = applyDiscount(subtotal(items), discountPercent);
  return sub + shippingCents(sub);
}
`,
    'test/cart.test.ts': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDiscount, itemCount, lineTotal, shippingCents, subtotal, total } from '../src/cart.ts';

const items = [
  { sku: 'pen', priceCents: 250, qty: 3 },
  { sku: 'pad', priceCents: 1200, qty: 1 },
];

test('lineTotal multiplies price by quantity', () => {
  assert.equal(lineTotal(items[0]), 750);
});

test('subtotal adds every line', () => {
  assert.equal(subtotal(items), 1950);
});

test('itemCount counts quantities', () => {
  assert.equal(itemCount(items), 4);
});

test('applyDiscount takes a percentage off', () => {
  assert.equal(applyDiscount(1000, 10), 900);
  assert.equal(applyDiscount(999, 50), 499);
});

test('applyDiscount ignores zero and caps at 100', () => {
  assert.equal(applyDiscount(1000, 0), 1000);
  assert.equal(applyDiscount(1000, 100), 0);
  assert.equal(applyDiscount(1000, 150), 0);
});

test('shipping is free from the threshold', () => {
  assert.equal(shippingCents(5000), 0);
  assert.equal(shippingCents(4999), 499);
});

test('total adds shipping after discount', () => {
  assert.equal(total([{ sku: 'a', priceCents: 2000, qty: 2 }]), 4499);
  assert.equal(total([{ sku: 'a', priceCents: 3000, qty: 2 }], 10), 5400);
});
`,
    'test/money.test.ts': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMoney, roundCents, splitEvenly } from '../src/money.ts';

test('formatMoney pads cents', () => {
  assert.equal(formatMoney(1205), '$12.05');
  assert.equal(formatMoney(-50), '-$0.50');
  assert.equal(formatMoney(100, '€'), '€1.00');
});

test('splitEvenly spreads the remainder', () => {
  assert.deepEqual(splitEvenly(100, 3), [34, 33, 33]);
  assert.deepEqual(splitEvenly(10, 5), [2, 2, 2, 2, 2]);
});

test('roundCents rounds half up', () => {
  assert.equal(roundCents(2.5), 3);
});
`,
  },
};

const id = (name: string) => `test::${name}`;

export const tsCartBugs: CorpusBug[] = [
  {
    id: 'ts-cart/shipping-threshold',
    project: 'ts-cart',
    kind: 'off-by-one',
    title: 'Shipping: show how far a cart is from free shipping',
    description: 'Adds freeShippingGap and tidies the threshold check.',
    change: [
      {
        file: 'src/cart.ts',
        replace: [
          [
            '  return subtotalCents >= threshold ? 0 : 499;\n}\n',
            '  const free = subtotalCents > threshold;\n  return free ? 0 : 499;\n}\n\nexport function freeShippingGap(subtotalCents: number, threshold = 5000): number {\n  return Math.max(0, threshold - subtotalCents);\n}\n',
          ],
        ],
      },
      {
        file: 'test/cart.test.ts',
        append:
          "\ntest('freeShippingGap is what is left to spend', async () => {\n  const { freeShippingGap } = await import('../src/cart.ts');\n  assert.equal(freeShippingGap(4000), 1000);\n  assert.equal(freeShippingGap(6000), 0);\n});\n",
      },
    ],
    failingTests: [id('shipping is free from the threshold')],
    truth: { file: 'src/cart.ts', symbol: 'shippingCents' },
    offlineFixable: true,
    fix: 'relational-operator',
  },
  {
    id: 'ts-cart/split-remainder',
    project: 'ts-cart',
    kind: 'wrong-arithmetic',
    title: 'splitEvenly: refuse zero parts',
    description: 'Dividing by zero parts returned NaNs; throw a RangeError instead.',
    change: [
      {
        file: 'src/money.ts',
        replace: [
          [
            '  const base = Math.floor(cents / parts);\n  const remainder = cents - base * parts;',
            "  if (parts <= 0) throw new RangeError('parts must be positive');\n  const base = Math.floor(cents / parts);\n  const remainder = cents + base * parts;",
          ],
        ],
      },
    ],
    failingTests: [id('splitEvenly spreads the remainder')],
    truth: { file: 'src/money.ts', symbol: 'splitEvenly' },
    offlineFixable: true,
    fix: 'arithmetic-operator',
  },
  {
    id: 'ts-cart/clamp-args',
    project: 'ts-cart',
    kind: 'swapped-args',
    title: 'Discounts: clamp the percentage with a shared helper',
    description: 'Adds clamp() to money.ts and uses it in applyDiscount instead of two ifs.',
    change: [
      {
        file: 'src/money.ts',
        append: '\nexport function clamp(value: number, lo: number, hi: number): number {\n  return Math.max(lo, Math.min(value, hi));\n}\n',
      },
      {
        file: 'src/cart.ts',
        replace: [
          ["import { roundCents } from './money.ts';", "import { clamp, roundCents } from './money.ts';"],
          [
            '  if (percent <= 0) return cents;\n  if (percent >= 100) return 0;\n  return cents - roundCents((cents * percent) / 100);',
            '  const p = clamp(0, percent, 100);\n  return cents - roundCents((cents * p) / 100);',
          ],
        ],
      },
    ],
    failingTests: [id('applyDiscount ignores zero and caps at 100')],
    truth: { file: 'src/cart.ts', symbol: 'applyDiscount' },
    offlineFixable: true,
    fix: 'swap-arguments',
  },
  {
    id: 'ts-cart/decimal-separator',
    project: 'ts-cart',
    kind: 'wrong-literal',
    title: 'formatMoney: symbol after the amount',
    description: 'Adds a `suffix` option for currencies written after the number.',
    change: [
      {
        file: 'src/money.ts',
        replace: [
          [
            "export function formatMoney(cents: number, symbol = '$'): string {",
            "export function formatMoney(cents: number, symbol = '$', suffix = false): string {",
          ],
          [
            "  return sign + symbol + whole + '.' + (frac < 10 ? '0' + frac : String(frac));",
            "  const amount = whole + ',' + (frac < 10 ? '0' + frac : String(frac));\n  return suffix ? sign + amount + ' ' + symbol : sign + symbol + amount;",
          ],
        ],
      },
    ],
    failingTests: [id('formatMoney pads cents')],
    truth: { file: 'src/money.ts', symbol: 'formatMoney' },
    offlineFixable: true,
    fix: 'evidence-literal',
  },
  {
    id: 'ts-cart/flat-shipping-stale',
    project: 'ts-cart',
    kind: 'stale-expectation',
    title: 'Flat shipping is now 5.99',
    description: 'Carrier prices went up: flat shipping under the threshold is now 599 cents.',
    change: [{ file: 'src/cart.ts', replace: [['  return subtotalCents >= threshold ? 0 : 499;', '  return subtotalCents >= threshold ? 0 : 599;']] }],
    failingTests: [id('shipping is free from the threshold'), id('total adds shipping after discount')],
    truth: { file: 'test/cart.test.ts', symbol: 'shipping is free from the threshold' },
    offlineFixable: true,
    fix: 'stale-expectation',
  },
  {
    id: 'ts-cart/bulk-discount-missing',
    project: 'ts-cart',
    kind: 'missing-logic',
    title: 'Bulk discount: 10% off from 10 items',
    description: 'Adds bulkDiscountPercent and a test for the cart total with ten items.',
    change: [
      {
        file: 'src/cart.ts',
        append: '\nexport function bulkDiscountPercent(items: Item[]): number {\n  return itemCount(items) >= 10 ? 10 : 0;\n}\n',
      },
      {
        file: 'test/cart.test.ts',
        append: "\ntest('total applies the bulk discount', () => {\n  assert.equal(total([{ sku: 'a', priceCents: 600, qty: 10 }]), 5400);\n});\n",
      },
    ],
    failingTests: [id('total applies the bulk discount')],
    truth: { file: 'src/cart.ts', symbol: 'total' },
    offlineFixable: false,
    fix: null,
  },
];
