import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DemoChangeSpec, DemoRepoSpec, FileTree } from './types';
import { flowfixJson, type DemoRepoSettings } from './settings';

// checkout-ts: a small TypeScript checkout library tested with `node --test`.
// Every test passes on main; each demo change breaks some of them for a
// different reason.
//
// Node 20 cannot run TypeScript by itself, so the commands load flowfix's own
// tsx (and type-check with flowfix's own TypeScript and @types/node): the demo
// repository needs no install and no network. tsx emits source maps, so stack
// frames in failures point at the .ts files and their real lines. The paths
// are absolute, which ties the built repository to this flowfix checkout; the
// build stays deterministic for a given checkout.
//
// node's JUnit reporter writes classname="test" and nests describe() blocks as
// <testsuite>; lib/junit/parse.ts turns that into "test::<describe> > <test>"
// (test/integration/demo checks these ids against real runs).

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

const fromFlowfix = (specifier: string) => fileURLToPath(import.meta.resolve(specifier));
const TSX_LOADER = fromFlowfix('tsx');
const TSC = fromFlowfix('typescript/bin/tsc');
const TYPE_ROOTS = path.dirname(path.dirname(fromFlowfix('@types/node/package.json')));

// node 20's --test does not expand globs itself: /bin/sh does (flowfix runs
// commands through it, and testCommand below goes through it too).
const NODE_TEST =
  `node --import ${shellWord(TSX_LOADER)} --test --test-reporter=spec --test-reporter-destination=stdout ` +
  '--test-reporter=junit --test-reporter-destination=reports/junit.xml test/*.test.ts';
// A type check only (noEmit): about a second, and it is what the compile gate's
// build step runs. The broken changes are logic bugs; they all type-check.
const TYPE_CHECK = `node ${shellWord(TSC)} --noEmit -p . --typeRoots ${shellWord(TYPE_ROOTS)}`;

// The suite takes about a second, so the target-test command simply runs all
// of it (results are filtered to the targets from the JUnit report); node 20's
// --test-name-pattern does not match "suite > test" paths anyway.
export const checkoutSettings: DemoRepoSettings = {
  language: 'typescript',
  build: TYPE_CHECK,
  test: NODE_TEST,
  regression: NODE_TEST,
  junitReport: 'reports/junit.xml',
  timeLimits: { testSeconds: 120, regressionSeconds: 300, buildSeconds: 120 },
};

const id = (suite: string, name: string) => `test::${suite} > ${name}`;

/** `text` with `find` replaced; throws unless `find` occurs exactly once (a silent no-op would ship an unbroken change). */
function edit(text: string, find: string, replace: string): string {
  const count = text.split(find).length - 1;
  if (count !== 1) throw new Error(`checkout-ts fixture: ${JSON.stringify(find.slice(0, 60))} occurs ${count} times`);
  return text.replace(find, () => replace);
}

const alice = { name: 'Alice Moreau', email: 'alice.moreau@example.com' };
const bram = { name: 'Bram Visser', email: 'bram.visser@example.com' };
const chen = { name: 'Chen Wei', email: 'chen.wei@example.com' };
const dana = { name: 'Dana Okafor', email: 'dana.okafor@example.com' };
const dependabot = { name: 'dependabot[bot]', email: '49699333+dependabot[bot]@users.noreply.github.com' };

// ───────────────────────── main ─────────────────────────

const moneyTs = `// Amounts are integer cents everywhere; only rounding sees fractions.

export type Currency = 'USD' | 'EUR' | 'GBP';

const SYMBOLS: Record<Currency, string> = { USD: '$', EUR: '€', GBP: '£' };

/**
 * Rounds a fractional number of cents to whole cents, halves away from zero.
 */
export function roundCents(cents: number): number {
  return Math.sign(cents) * Math.round(Math.abs(cents));
}

/**
 * Formats cents as a price, e.g. 123450 → "$1,234.50".
 */
export function formatPrice(cents: number, currency: Currency = 'USD'): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = String(Math.floor(abs / 100)).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ',');
  const fraction = String(abs % 100).padStart(2, '0');
  return sign + SYMBOLS[currency] + whole + '.' + fraction;
}
`;

const taxTs = `import { rateFor } from '../vendor/tax-rates/index.js';

/** The sales-tax rate of a region as a fraction (0.2 for 20%). */
export function taxRateFor(region: string): number {
  return rateFor(region);
}
`;

const taxRatesV2 = `// tax-rates 2.3.0 (vendored): regional sales-tax rates as fractions.
export const version = '2.3.0';

const RATES: Record<string, number> = {
  'US-CA': 0.0725,
  'US-NY': 0.04,
  'US-OR': 0,
  'GB': 0.2,
  'DE': 0.19,
  'FR': 0.2,
};

export function rateFor(region: string): number {
  if (!(region in RATES)) throw new RangeError('unknown tax region: ' + region);
  return RATES[region];
}
`;

const taxRatesV3 = `// tax-rates 3.0.0 (vendored): regional sales-tax rates.
// BREAKING: rates are now percentages (20 for 20%) to match the EU VAT feed.
export const version = '3.0.0';

const RATES: Record<string, number> = {
  'US-CA': 7.25,
  'US-NY': 4,
  'US-OR': 0,
  'GB': 20,
  'DE': 19,
  'FR': 20,
  'IE': 23,
  'NL': 21,
};

export function rateFor(region: string): number {
  if (!(region in RATES)) throw new RangeError('unknown tax region: ' + region);
  return RATES[region];
}
`;

const cartTs = `import { roundCents } from './money.js';
import { taxRateFor } from './tax.js';

export interface CartItem {
  sku: string;
  unitPriceCents: number;
  quantity: number;
}

export interface Cart {
  items: CartItem[];
  region: string;
  discountPercent?: number;
}

export interface CartTotal {
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
}

export function lineTotal(item: CartItem): number {
  return item.unitPriceCents * item.quantity;
}

export function subtotal(items: CartItem[]): number {
  return items.reduce((sum, item) => sum + lineTotal(item), 0);
}

export function itemCount(items: CartItem[]): number {
  return items.reduce((count, item) => count + item.quantity, 0);
}

/** Discount first, then tax on what is left. */
export function cartTotal({ items, region, discountPercent = 0 }: Cart): CartTotal {
  const sub = subtotal(items);
  const discount = roundCents((sub * discountPercent) / 100);
  const taxable = sub - discount;
  const tax = roundCents(taxable * taxRateFor(region));
  return { subtotal: sub, discount, tax, total: taxable + tax };
}
`;

const discountsTs = `export interface Customer {
  isMember: boolean;
  orderCount: number;
}

export interface BulkTier {
  minQuantity: number;
  percent: number;
}

// Highest tier first: the first tier an order reaches wins.
export const BULK_TIERS: readonly BulkTier[] = [
  { minQuantity: 50, percent: 15 },
  { minQuantity: 10, percent: 10 },
];

export const WELCOME_PERCENT = 5;

export function bulkDiscountPercent(quantity: number): number {
  for (const tier of BULK_TIERS) {
    if (quantity >= tier.minQuantity) return tier.percent;
  }
  return 0;
}

/** Members and first-time buyers get the welcome discount. */
export function welcomeDiscountApplies(customer: Customer): boolean {
  return customer.isMember || customer.orderCount === 0;
}

/** Discounts do not stack: the best one applies. */
export function bestDiscountPercent({ customer, quantity }: { customer: Customer; quantity: number }): number {
  const welcome = welcomeDiscountApplies(customer) ? WELCOME_PERCENT : 0;
  return Math.max(bulkDiscountPercent(quantity), welcome);
}
`;

const windowsTs = `const DAY_MS = 24 * 60 * 60 * 1000;

/** ISO dates (YYYY-MM-DD), both days included. */
export interface DateWindow {
  start: string;
  end: string;
}

export function isWithinWindow(day: string, window: DateWindow): boolean {
  return day >= window.start && day <= window.end;
}

export function daysInWindow(window: DateWindow): number {
  return Math.round((Date.parse(window.end) - Date.parse(window.start)) / DAY_MS) + 1;
}

/** The next \`count\` delivery days from \`start\` (an ISO date), skipping Sundays. */
export function deliveryDays(start: string, count: number): string[] {
  const days: string[] = [];
  for (let t = Date.parse(start); days.length < count; t += DAY_MS) {
    const date = new Date(t);
    if (date.getUTCDay() !== 0) days.push(date.toISOString().slice(0, 10));
  }
  return days;
}
`;

const inventoryTs = `/** sku → units on hand */
export type Stock = Record<string, number>;

/** Returns the stock after reserving \`quantity\` units of \`sku\`; the input is not changed. */
export function reserve(stock: Stock, sku: string, quantity: number): Stock {
  const onHand = stock[sku] ?? 0;
  if (!Number.isInteger(quantity) || quantity <= 0) throw new RangeError('quantity must be a positive integer');
  if (quantity > onHand) throw new Error('only ' + onHand + ' of ' + sku + ' left');
  return { ...stock, [sku]: onHand - quantity };
}

/** SKUs at or below the threshold, sorted. */
export function lowStock(stock: Stock, threshold = 5): string[] {
  return Object.keys(stock)
    .filter((sku) => stock[sku] <= threshold)
    .sort();
}
`;

const shippingTs = `/** Splits an order into parcels of at most \`maxPerParcel\` units, fullest first. */
export function splitIntoParcels(quantity: number, maxPerParcel: number): number[] {
  if (maxPerParcel <= 0) throw new RangeError('maxPerParcel must be positive');
  const parcels: number[] = [];
  for (let left = quantity; left > 0; left -= maxPerParcel) {
    parcels.push(Math.min(left, maxPerParcel));
  }
  return parcels;
}
`;

const moneyTest = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatPrice, roundCents } from '../src/money.js';

describe('money', () => {
  test('rounds half a cent up', () => {
    assert.equal(roundCents(12.5), 13);
  });

  test('rounds fractions to the nearest cent', () => {
    assert.equal(roundCents(12.4), 12);
    assert.equal(roundCents(12.6), 13);
  });

  test('rounds negative halves away from zero', () => {
    assert.equal(roundCents(-12.5), -13);
  });

  test('formats dollars with a thousands separator', () => {
    assert.equal(formatPrice(123450), '$1,234.50');
  });

  test('formats small and negative amounts', () => {
    assert.equal(formatPrice(5), '$0.05');
    assert.equal(formatPrice(-250, 'EUR'), '-€2.50');
  });
});
`;

const cartTest = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cartTotal, itemCount, subtotal } from '../src/cart.js';

const items = [
  { sku: 'mug', unitPriceCents: 1999, quantity: 2 },
  { sku: 'tea', unitPriceCents: 500, quantity: 1 },
];

describe('cart totals', () => {
  test('sums line totals', () => {
    assert.equal(subtotal(items), 4498);
  });

  test('counts items', () => {
    assert.equal(itemCount(items), 3);
  });

  test('adds tax after the discount', () => {
    assert.deepEqual(cartTotal({ items, region: 'GB', discountPercent: 10 }), {
      subtotal: 4498,
      discount: 450,
      tax: 810,
      total: 4858,
    });
  });

  test('charges no tax in tax-free regions', () => {
    assert.equal(cartTotal({ items, region: 'US-OR' }).total, 4498);
  });
});
`;

const taxTest = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { taxRateFor } from '../src/tax.js';

describe('tax', () => {
  test('looks up the regional rate', () => {
    assert.equal(taxRateFor('DE'), 0.19);
    assert.equal(taxRateFor('US-CA'), 0.0725);
  });

  test('rejects unknown regions', () => {
    assert.throws(() => taxRateFor('XX'), RangeError);
  });
});
`;

const discountsTest = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bestDiscountPercent, bulkDiscountPercent, welcomeDiscountApplies } from '../src/discounts.js';

describe('bulk discount', () => {
  test('starts at ten items', () => {
    assert.equal(bulkDiscountPercent(9), 0);
    assert.equal(bulkDiscountPercent(10), 10);
  });

  test('uses the highest tier reached', () => {
    assert.equal(bulkDiscountPercent(50), 15);
    assert.equal(bulkDiscountPercent(200), 15);
  });
});

describe('welcome discount', () => {
  test('applies to members', () => {
    assert.equal(welcomeDiscountApplies({ isMember: true, orderCount: 7 }), true);
  });

  test('applies to a first order', () => {
    assert.equal(welcomeDiscountApplies({ isMember: false, orderCount: 0 }), true);
  });

  test('does not apply to returning guests', () => {
    assert.equal(welcomeDiscountApplies({ isMember: false, orderCount: 3 }), false);
  });

  test('does not stack with the bulk discount', () => {
    assert.equal(bestDiscountPercent({ customer: { isMember: true, orderCount: 0 }, quantity: 12 }), 10);
  });
});
`;

const windowsTest = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { daysInWindow, deliveryDays, isWithinWindow } from '../src/windows.js';

const spring = { start: '2026-03-01', end: '2026-03-31' };

describe('promo windows', () => {
  test('includes the first day of the window', () => {
    assert.equal(isWithinWindow('2026-03-01', spring), true);
  });

  test('includes the last day of the window', () => {
    assert.equal(isWithinWindow('2026-03-31', spring), true);
  });

  test('excludes days outside the window', () => {
    assert.equal(isWithinWindow('2026-02-28', spring), false);
    assert.equal(isWithinWindow('2026-04-01', spring), false);
  });

  test('counts both the first and the last day', () => {
    assert.equal(daysInWindow(spring), 31);
  });
});

describe('delivery days', () => {
  test('skips Sundays', () => {
    assert.deepEqual(deliveryDays('2026-11-27', 3), ['2026-11-27', '2026-11-28', '2026-11-30']);
  });
});
`;

const inventoryTest = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lowStock, reserve } from '../src/inventory.js';

describe('inventory', () => {
  test('reserves units without changing the input', () => {
    const stock = { mug: 4, tea: 10 };
    assert.deepEqual(reserve(stock, 'mug', 3), { mug: 1, tea: 10 });
    assert.deepEqual(stock, { mug: 4, tea: 10 });
  });

  test('refuses to reserve more than is on hand', () => {
    assert.throws(() => reserve({ mug: 2 }, 'mug', 3), /only 2 of mug left/);
  });

  test('lists low stock at or below the threshold', () => {
    assert.deepEqual(lowStock({ tea: 5, mug: 1, pot: 6 }), ['mug', 'tea']);
  });
});
`;

const shippingTest = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { splitIntoParcels } from '../src/shipping.js';

describe('parcels', () => {
  test('fills parcels up to the limit', () => {
    assert.deepEqual(splitIntoParcels(25, 10), [10, 10, 5]);
  });

  test('ships nothing for an empty order', () => {
    assert.deepEqual(splitIntoParcels(0, 10), []);
  });
});
`;

const packageJson =
  JSON.stringify(
    {
      name: 'checkout-ts',
      version: '1.4.0',
      private: true,
      type: 'module',
      description: 'Cart pricing, discounts, tax, inventory and delivery windows for the web shop.',
      scripts: { test: NODE_TEST, typecheck: TYPE_CHECK },
      dependencies: {},
    },
    null,
    2,
  ) + '\n';

const tsconfigJson =
  JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['src', 'test', 'vendor'],
    },
    null,
    2,
  ) + '\n';

const TAX_RATES_PACKAGE = (version: string) =>
  `{\n  "name": "tax-rates",\n  "version": "${version}",\n  "type": "module"\n}\n`;

const mainFiles: FileTree = {
  'package.json': packageJson,
  'tsconfig.json': tsconfigJson,
  '.flowfix.json': flowfixJson(checkoutSettings),
  '.gitignore': 'node_modules/\nreports/*\n!reports/.gitkeep\n',
  'reports/.gitkeep': '',
  'README.md':
    '# checkout-ts\n\nCart pricing, discounts, tax, inventory and delivery windows.\n\n' +
    'TypeScript modules (ESM, strict); no runtime dependencies. The tests run on `node --test` with the tsx loader, ' +
    'and `npm run typecheck` runs `tsc --noEmit`.\n\n' +
    '```sh\nnpm test            # node --test, JUnit report in reports/junit.xml\nnpm run typecheck   # tsc --noEmit -p .\n```\n',
  'src/money.ts': moneyTs,
  'src/tax.ts': taxTs,
  'src/cart.ts': cartTs,
  'src/discounts.ts': discountsTs,
  'src/windows.ts': windowsTs,
  'src/inventory.ts': inventoryTs,
  'src/shipping.ts': shippingTs,
  'vendor/tax-rates/index.ts': taxRatesV2,
  'vendor/tax-rates/package.json': TAX_RATES_PACKAGE('2.3.0'),
  'test/money.test.ts': moneyTest,
  'test/cart.test.ts': cartTest,
  'test/tax.test.ts': taxTest,
  'test/discounts.test.ts': discountsTest,
  'test/windows.test.ts': windowsTest,
  'test/inventory.test.ts': inventoryTest,
  'test/shipping.test.ts': shippingTest,
};

// ───────────────────────── changes ─────────────────────────

const offByOne: DemoChangeSpec = {
  kind: 'off_by_one',
  externalId: 'PR-412',
  branch: 'pr/412-promo-window-timestamps',
  title: 'Compare promo windows on timestamps',
  description:
    'Promo windows arrive from the CMS as ISO strings and we were comparing them as strings, ' +
    'which breaks as soon as marketing sends a time of day. Parse both sides to epoch milliseconds ' +
    'and compare numbers instead.',
  author: alice,
  authorKind: 'HUMAN',
  date: '2026-11-23T09:14:00Z',
  files: {
    'src/windows.ts': edit(
      windowsTs,
      'export function isWithinWindow(day: string, window: DateWindow): boolean {\n  return day >= window.start && day <= window.end;\n}',
      'export function isWithinWindow(day: string, window: DateWindow): boolean {\n  const t = Date.parse(day);\n' +
        '  return t >= Date.parse(window.start) && t < Date.parse(window.end);\n}',
    ),
  },
  failingTests: [id('promo windows', 'includes the last day of the window')],
};

const wrongOperator: DemoChangeSpec = {
  kind: 'wrong_operator',
  externalId: 'PR-415',
  branch: 'pr/415-discount-rules',
  title: 'Name the discount eligibility rules',
  description:
    'Pulls the membership and first-order checks into named predicates so the upcoming ' +
    'loyalty tiers can reuse them. No behaviour change intended.',
  author: bram,
  authorKind: 'HUMAN',
  date: '2026-11-24T14:02:00Z',
  files: {
    'src/discounts.ts': edit(
      discountsTs,
      `export function welcomeDiscountApplies(customer: Customer): boolean {
  return customer.isMember || customer.orderCount === 0;
}`,
      `export function welcomeDiscountApplies(customer: Customer): boolean {
  return isMember(customer) && isFirstOrder(customer);
}

export function isMember(customer: Pick<Customer, 'isMember'>): boolean {
  return customer.isMember === true;
}

export function isFirstOrder(customer: Pick<Customer, 'orderCount'>): boolean {
  return customer.orderCount === 0;
}`,
    ),
  },
  failingTests: [id('welcome discount', 'applies to members'), id('welcome discount', 'applies to a first order')],
};

const staleExpectation: DemoChangeSpec = {
  kind: 'stale_expectation',
  externalId: 'PR-418',
  branch: 'pr/418-bankers-rounding',
  title: "Round half cents to even (banker's rounding)",
  description:
    "Finance reconciles against the ledger, which rounds half cents to the nearest even cent. " +
    'Switch roundCents to round-half-to-even so cart totals and the ledger agree to the cent. ' +
    'This deliberately changes how exact halves round; see FIN-88.',
  author: chen,
  authorKind: 'HUMAN',
  date: '2026-11-25T10:47:00Z',
  files: {
    'src/money.ts': edit(
      moneyTs,
      `/**
 * Rounds a fractional number of cents to whole cents, halves away from zero.
 */
export function roundCents(cents: number): number {
  return Math.sign(cents) * Math.round(Math.abs(cents));
}`,
      `/**
 * Rounds a fractional number of cents to whole cents, halves to the even
 * neighbour (banker's rounding) so totals agree with the ledger (FIN-88).
 */
export function roundCents(cents: number): number {
  const floor = Math.floor(cents);
  const fraction = cents - floor;
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}`,
    ),
  },
  failingTests: [id('money', 'rounds half a cent up'), id('money', 'rounds negative halves away from zero')],
};

const flakyShippingTest = edit(
  shippingTest,
  `  test('ships nothing for an empty order', () => {`,
  `  test('splits a random order into two equal parcels', () => {
    const quantity = 2 + Math.floor(Math.random() * 40);
    const parcels = splitIntoParcels(quantity, Math.ceil(quantity / 2));
    assert.equal(parcels.length, 2);
    assert.equal(parcels[0], parcels[1], 'parcels for ' + quantity + ' units: ' + parcels.join(' + '));
  });

  test('ships nothing for an empty order', () => {`,
);

const flaky: DemoChangeSpec = {
  kind: 'flaky',
  externalId: 'PR-421',
  branch: 'pr/421-randomized-parcel-tests',
  title: 'Cover parcel splitting with randomized order sizes',
  description:
    'Hand-picked quantities only ever exercised round numbers. Adds a randomized test so ' +
    'parcel splitting is checked against order sizes we did not think of.',
  author: dana,
  authorKind: 'HUMAN',
  date: '2026-11-26T16:20:00Z',
  files: { 'test/shipping.test.ts': flakyShippingTest },
  failingTests: [id('parcels', 'splits a random order into two equal parcels')],
  flaky: true,
};

const bot: DemoChangeSpec = {
  kind: 'bot',
  externalId: 'PR-423',
  branch: 'dependabot/npm_and_yarn/tax-rates-3.0.0',
  title: 'Bump tax-rates from 2.3.0 to 3.0.0',
  description:
    'Bumps tax-rates from 2.3.0 to 3.0.0.\n\n' +
    'Release notes\n' +
    '3.0.0: Rates are now returned as percentages to match the EU VAT feed (BREAKING). Adds IE and NL.\n\n' +
    'Dependabot will resolve any conflicts with this PR as long as you do not alter it yourself.',
  author: dependabot,
  authorKind: 'BOT',
  date: '2026-11-27T06:03:00Z',
  files: {
    'vendor/tax-rates/index.ts': taxRatesV3,
    'vendor/tax-rates/package.json': TAX_RATES_PACKAGE('3.0.0'),
  },
  failingTests: [id('tax', 'looks up the regional rate'), id('cart totals', 'adds tax after the discount')],
};

// The oversized change: one locale module per market (52) plus the index, the
// formatter and its test: 55 files, above the default too-many-files filter
// (50, common/settings.ts).
const LOCALES: Array<[string, string, string, string]> = [
  ['en-US', '$', ',', '.'], ['en-GB', '£', ',', '.'], ['en-IE', '€', ',', '.'], ['en-CA', '$', ',', '.'],
  ['en-AU', '$', ',', '.'], ['en-NZ', '$', ',', '.'], ['en-SG', '$', ',', '.'], ['en-IN', '₹', ',', '.'],
  ['en-ZA', 'R', ' ', '.'], ['de-DE', '€', '.', ','], ['de-AT', '€', ' ', ','], ['de-CH', 'CHF', "'", '.'],
  ['de-LU', '€', '.', ','], ['fr-FR', '€', ' ', ','], ['fr-BE', '€', ' ', ','], ['fr-CH', 'CHF', ' ', ','],
  ['fr-CA', '$', ' ', ','], ['fr-LU', '€', '.', ','], ['nl-NL', '€', '.', ','], ['nl-BE', '€', '.', ','],
  ['es-ES', '€', '.', ','], ['es-MX', '$', ',', '.'], ['es-AR', '$', '.', ','], ['es-CL', '$', '.', ','],
  ['es-CO', '$', '.', ','], ['it-IT', '€', '.', ','], ['it-CH', 'CHF', "'", '.'], ['pt-PT', '€', ' ', ','],
  ['pt-BR', 'R$', '.', ','], ['pl-PL', 'zł', ' ', ','], ['cs-CZ', 'Kč', ' ', ','], ['sk-SK', '€', ' ', ','],
  ['hu-HU', 'Ft', ' ', ','], ['ro-RO', 'lei', '.', ','], ['bg-BG', 'лв.', ' ', ','], ['hr-HR', '€', '.', ','],
  ['sl-SI', '€', '.', ','], ['el-GR', '€', '.', ','], ['sv-SE', 'kr', ' ', ','], ['da-DK', 'kr.', '.', ','],
  ['nb-NO', 'kr', ' ', ','], ['fi-FI', '€', ' ', ','], ['et-EE', '€', ' ', ','], ['lv-LV', '€', ' ', ','],
  ['lt-LT', '€', ' ', ','], ['ja-JP', '¥', ',', '.'], ['ko-KR', '₩', ',', '.'], ['zh-CN', '¥', ',', '.'],
  ['zh-TW', 'NT$', ',', '.'], ['zh-HK', 'HK$', ',', '.'], ['tr-TR', '₺', '.', ','], ['he-IL', '₪', ',', '.'],
];

function localeFile([code, symbol, group, decimal]: [string, string, string, string]): string {
  // the copy-paste bug: en-US got de-DE's separators
  const [g, d] = code === 'en-US' ? ['.', ','] : [group, decimal];
  return `/** Price format for ${code}. */\nexport default ${JSON.stringify({ code, symbol, group: g, decimal: d })};\n`;
}

function localeIndex(): string {
  const names = LOCALES.map(([code]) => code.replace('-', '_'));
  const imports = LOCALES.map(([code], i) => `import ${names[i]} from './${code}.js';`).join('\n');
  return `${imports}\n\nexport interface PriceFormat {\n  code: string;\n  symbol: string;\n  group: string;\n  decimal: string;\n}\n\n/** Locale code → price format. */\nexport const LOCALES: Record<string, PriceFormat | undefined> = {\n${LOCALES.map(
    ([code], i) => `  '${code}': ${names[i]},`,
  ).join('\n')}\n};\n`;
}

const oversizedMoneyTs = edit(
  edit(
    moneyTs,
    `export type Currency = 'USD' | 'EUR' | 'GBP';\n\nconst SYMBOLS: Record<Currency, string> = { USD: '$', EUR: '€', GBP: '£' };\n`,
    `import { LOCALES } from './locales/index.js';\n`,
  ),
  moneyTs.slice(moneyTs.indexOf('/**\n * Formats cents as a price')),
  `/**
 * Formats cents as a price in a locale, e.g. 123450 → "$1,234.50" (en-US).
 */
export function formatPrice(cents: number, locale = 'en-US'): string {
  const format = LOCALES[locale];
  if (!format) throw new RangeError('unknown locale: ' + locale);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = String(Math.floor(abs / 100)).replace(/\\B(?=(\\d{3})+(?!\\d))/g, format.group);
  const fraction = String(abs % 100).padStart(2, '0');
  return sign + format.symbol + whole + format.decimal + fraction;
}
`,
);

const oversizedFiles: FileTree = {
  'src/money.ts': oversizedMoneyTs,
  'src/locales/index.ts': localeIndex(),
  'test/money.test.ts': edit(
    moneyTest,
    `    assert.equal(formatPrice(-250, 'EUR'), '-€2.50');`,
    `    assert.equal(formatPrice(-250, 'de-DE'), '-€2,50');`,
  ),
};
for (const locale of LOCALES) oversizedFiles[`src/locales/${locale[0]}.ts`] = localeFile(locale);

const oversized: DemoChangeSpec = {
  kind: 'oversized',
  externalId: 'PR-426',
  branch: 'pr/426-localized-prices',
  title: 'Localized price formatting for 52 markets',
  description:
    'Adds a price format (symbol, grouping and decimal separators) for each market we ship to, ' +
    'and makes formatPrice take a locale instead of a currency. Prepares the EU storefront launch.',
  author: alice,
  authorKind: 'HUMAN',
  date: '2026-11-27T11:35:00Z',
  files: oversizedFiles,
  failingTests: [id('money', 'formats dollars with a thousands separator'), id('money', 'formats small and negative amounts')],
};

export const checkoutTs: DemoRepoSpec = {
  name: 'checkout-ts',
  language: 'typescript',
  description: 'Web shop checkout in TypeScript: cart pricing, discounts, tax, inventory, delivery windows (node --test).',
  main: {
    author: alice,
    date: '2026-11-16T08:30:00Z',
    message: 'checkout-ts 1.4.0: cart pricing, discounts, tax, inventory and delivery windows',
    files: mainFiles,
  },
  junitPath: 'reports/junit.xml',
  settings: checkoutSettings,
  // through /bin/sh like flowfix's own runs: it expands test/*.test.ts
  testCommand: ['/bin/sh', '-c', NODE_TEST],
  changes: [offByOne, wrongOperator, staleExpectation, flaky, bot, oversized],
};
