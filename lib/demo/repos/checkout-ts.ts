import type { DemoChangeSpec, DemoRepoSpec, FileTree } from './types';
import { flowfixJson, type DemoRepoSettings } from './settings';

// checkout-ts: a small JavaScript (ESM + JSDoc) checkout library tested with
// `node --test`. Every test passes on main; each demo change breaks some of
// them for a different reason.
//
// node's JUnit reporter writes classname="test" and nests describe() blocks as
// <testsuite>; lib/junit/parse.ts turns that into "test::<describe> > <test>"
// (test/integration/demo checks these ids against real runs).

const NODE_TEST = 'node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=reports/junit.xml';

// The suite takes about a second, so the target-test command simply runs all
// of it (results are filtered to the targets from the JUnit report); node 20's
// --test-name-pattern does not match "suite > test" paths anyway.
export const checkoutSettings: DemoRepoSettings = {
  language: 'javascript',
  test: NODE_TEST,
  regression: NODE_TEST,
  junitReport: 'reports/junit.xml',
  timeLimits: { testSeconds: 120, regressionSeconds: 300 },
};

const id = (suite: string, name: string) => `test::${suite} > ${name}`;

const alice = { name: 'Alice Moreau', email: 'alice.moreau@example.com' };
const bram = { name: 'Bram Visser', email: 'bram.visser@example.com' };
const chen = { name: 'Chen Wei', email: 'chen.wei@example.com' };
const dana = { name: 'Dana Okafor', email: 'dana.okafor@example.com' };
const dependabot = { name: 'dependabot[bot]', email: '49699333+dependabot[bot]@users.noreply.github.com' };

// ───────────────────────── main ─────────────────────────

const moneyJs = `// Amounts are integer cents everywhere; only rounding sees fractions.

const SYMBOLS = { USD: '$', EUR: '€', GBP: '£' };

/**
 * Rounds a fractional number of cents to whole cents, halves away from zero.
 * @param {number} cents
 * @returns {number}
 */
export function roundCents(cents) {
  return Math.sign(cents) * Math.round(Math.abs(cents));
}

/**
 * Formats cents as a price, e.g. 123450 → "$1,234.50".
 * @param {number} cents
 * @param {keyof typeof SYMBOLS} [currency]
 * @returns {string}
 */
export function formatPrice(cents, currency = 'USD') {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = String(Math.floor(abs / 100)).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ',');
  const fraction = String(abs % 100).padStart(2, '0');
  return sign + (SYMBOLS[currency] ?? currency + ' ') + whole + '.' + fraction;
}
`;

const taxJs = `import { rateFor } from '../vendor/tax-rates/index.js';

/**
 * The sales-tax rate of a region as a fraction (0.2 for 20%).
 * @param {string} region
 * @returns {number}
 */
export function taxRateFor(region) {
  return rateFor(region);
}
`;

const taxRatesV2 = `// tax-rates 2.3.0 (vendored): regional sales-tax rates as fractions.
export const version = '2.3.0';

const RATES = {
  'US-CA': 0.0725,
  'US-NY': 0.04,
  'US-OR': 0,
  'GB': 0.2,
  'DE': 0.19,
  'FR': 0.2,
};

/**
 * @param {string} region
 * @returns {number}
 */
export function rateFor(region) {
  if (!(region in RATES)) throw new RangeError('unknown tax region: ' + region);
  return RATES[region];
}
`;

const taxRatesV3 = `// tax-rates 3.0.0 (vendored): regional sales-tax rates.
// BREAKING: rates are now percentages (20 for 20%) to match the EU VAT feed.
export const version = '3.0.0';

const RATES = {
  'US-CA': 7.25,
  'US-NY': 4,
  'US-OR': 0,
  'GB': 20,
  'DE': 19,
  'FR': 20,
  'IE': 23,
  'NL': 21,
};

/**
 * @param {string} region
 * @returns {number}
 */
export function rateFor(region) {
  if (!(region in RATES)) throw new RangeError('unknown tax region: ' + region);
  return RATES[region];
}
`;

const cartJs = `import { roundCents } from './money.js';
import { taxRateFor } from './tax.js';

/**
 * @typedef {{ sku: string, unitPriceCents: number, quantity: number }} CartItem
 */

/** @param {CartItem} item */
export function lineTotal(item) {
  return item.unitPriceCents * item.quantity;
}

/** @param {CartItem[]} items */
export function subtotal(items) {
  return items.reduce((sum, item) => sum + lineTotal(item), 0);
}

/** @param {CartItem[]} items */
export function itemCount(items) {
  return items.reduce((count, item) => count + item.quantity, 0);
}

/**
 * Discount first, then tax on what is left.
 * @param {{ items: CartItem[], region: string, discountPercent?: number }} cart
 */
export function cartTotal({ items, region, discountPercent = 0 }) {
  const sub = subtotal(items);
  const discount = roundCents((sub * discountPercent) / 100);
  const taxable = sub - discount;
  const tax = roundCents(taxable * taxRateFor(region));
  return { subtotal: sub, discount, tax, total: taxable + tax };
}
`;

const discountsJs = `// Highest tier first: the first tier an order reaches wins.
export const BULK_TIERS = [
  { minQuantity: 50, percent: 15 },
  { minQuantity: 10, percent: 10 },
];

export const WELCOME_PERCENT = 5;

/** @param {number} quantity */
export function bulkDiscountPercent(quantity) {
  for (const tier of BULK_TIERS) {
    if (quantity >= tier.minQuantity) return tier.percent;
  }
  return 0;
}

/**
 * Members and first-time buyers get the welcome discount.
 * @param {{ isMember: boolean, orderCount: number }} customer
 */
export function welcomeDiscountApplies(customer) {
  return customer.isMember || customer.orderCount === 0;
}

/**
 * Discounts do not stack: the best one applies.
 * @param {{ customer: { isMember: boolean, orderCount: number }, quantity: number }} order
 */
export function bestDiscountPercent({ customer, quantity }) {
  const welcome = welcomeDiscountApplies(customer) ? WELCOME_PERCENT : 0;
  return Math.max(bulkDiscountPercent(quantity), welcome);
}
`;

const windowsJs = `const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * @typedef {{ start: string, end: string }} DateWindow  ISO dates, both days included
 */

/**
 * @param {string} day  ISO date (YYYY-MM-DD)
 * @param {DateWindow} window
 */
export function isWithinWindow(day, window) {
  return day >= window.start && day <= window.end;
}

/** @param {DateWindow} window */
export function daysInWindow(window) {
  return Math.round((Date.parse(window.end) - Date.parse(window.start)) / DAY_MS) + 1;
}

/**
 * The next \`count\` delivery days from \`start\`, skipping Sundays.
 * @param {string} start  ISO date
 * @param {number} count
 */
export function deliveryDays(start, count) {
  const days = [];
  for (let t = Date.parse(start); days.length < count; t += DAY_MS) {
    const date = new Date(t);
    if (date.getUTCDay() !== 0) days.push(date.toISOString().slice(0, 10));
  }
  return days;
}
`;

const inventoryJs = `/**
 * @typedef {Record<string, number>} Stock  sku → units on hand
 */

/**
 * Returns the stock after reserving \`quantity\` units of \`sku\`; the input is not changed.
 * @param {Stock} stock
 * @param {string} sku
 * @param {number} quantity
 * @returns {Stock}
 */
export function reserve(stock, sku, quantity) {
  const onHand = stock[sku] ?? 0;
  if (!Number.isInteger(quantity) || quantity <= 0) throw new RangeError('quantity must be a positive integer');
  if (quantity > onHand) throw new Error('only ' + onHand + ' of ' + sku + ' left');
  return { ...stock, [sku]: onHand - quantity };
}

/**
 * SKUs at or below the threshold, sorted.
 * @param {Stock} stock
 * @param {number} [threshold]
 */
export function lowStock(stock, threshold = 5) {
  return Object.keys(stock)
    .filter((sku) => stock[sku] <= threshold)
    .sort();
}
`;

const shippingJs = `/**
 * Splits an order into parcels of at most \`maxPerParcel\` units, fullest first.
 * @param {number} quantity
 * @param {number} maxPerParcel
 * @returns {number[]}
 */
export function splitIntoParcels(quantity, maxPerParcel) {
  if (maxPerParcel <= 0) throw new RangeError('maxPerParcel must be positive');
  const parcels = [];
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
      scripts: { test: NODE_TEST },
      dependencies: {},
    },
    null,
    2,
  ) + '\n';

const mainFiles: FileTree = {
  'package.json': packageJson,
  '.flowfix.json': flowfixJson(checkoutSettings),
  '.gitignore': 'node_modules/\nreports/*\n!reports/.gitkeep\n',
  'reports/.gitkeep': '',
  'README.md':
    '# checkout-ts\n\nCart pricing, discounts, tax, inventory and delivery windows.\n\n' +
    'Plain JavaScript modules (ESM) with JSDoc types; no dependencies.\n\n```sh\nnpm test   # node --test, JUnit report in reports/junit.xml\n```\n',
  'src/money.js': moneyJs,
  'src/tax.js': taxJs,
  'src/cart.js': cartJs,
  'src/discounts.js': discountsJs,
  'src/windows.js': windowsJs,
  'src/inventory.js': inventoryJs,
  'src/shipping.js': shippingJs,
  'vendor/tax-rates/index.js': taxRatesV2,
  'vendor/tax-rates/package.json': '{\n  "name": "tax-rates",\n  "version": "2.3.0",\n  "type": "module"\n}\n',
  'test/money.test.js': moneyTest,
  'test/cart.test.js': cartTest,
  'test/tax.test.js': taxTest,
  'test/discounts.test.js': discountsTest,
  'test/windows.test.js': windowsTest,
  'test/inventory.test.js': inventoryTest,
  'test/shipping.test.js': shippingTest,
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
    'src/windows.js': windowsJs.replace(
      'export function isWithinWindow(day, window) {\n  return day >= window.start && day <= window.end;\n}',
      'export function isWithinWindow(day, window) {\n  const t = Date.parse(day);\n' +
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
    'src/discounts.js': discountsJs.replace(
      `export function welcomeDiscountApplies(customer) {
  return customer.isMember || customer.orderCount === 0;
}`,
      `export function welcomeDiscountApplies(customer) {
  return isMember(customer) && isFirstOrder(customer);
}

/** @param {{ isMember: boolean }} customer */
export function isMember(customer) {
  return customer.isMember === true;
}

/** @param {{ orderCount: number }} customer */
export function isFirstOrder(customer) {
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
    'src/money.js': moneyJs.replace(
      `/**
 * Rounds a fractional number of cents to whole cents, halves away from zero.
 * @param {number} cents
 * @returns {number}
 */
export function roundCents(cents) {
  return Math.sign(cents) * Math.round(Math.abs(cents));
}`,
      `/**
 * Rounds a fractional number of cents to whole cents, halves to the even
 * neighbour (banker's rounding) so totals agree with the ledger (FIN-88).
 * @param {number} cents
 * @returns {number}
 */
export function roundCents(cents) {
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

const flakyShippingTest = shippingTest.replace(
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
  files: { 'test/shipping.test.js': flakyShippingTest },
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
    'vendor/tax-rates/index.js': taxRatesV3,
    'vendor/tax-rates/package.json': '{\n  "name": "tax-rates",\n  "version": "3.0.0",\n  "type": "module"\n}\n',
  },
  failingTests: [id('tax', 'looks up the regional rate'), id('cart totals', 'adds tax after the discount')],
};

// The oversized change: one locale module per market (52) plus the index, the
// formatter and its test: 55 files, above the default too-many-files filter
// (50, lib/repositories/settings.ts).
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
  return `${imports}\n\n/** Locale code → price format. */\nexport const LOCALES = {\n${LOCALES.map(
    ([code], i) => `  '${code}': ${names[i]},`,
  ).join('\n')}\n};\n`;
}

const oversizedMoneyJs = moneyJs
  .replace(`const SYMBOLS = { USD: '$', EUR: '€', GBP: '£' };\n`, `import { LOCALES } from './locales/index.js';\n`)
  .replace(
    /\/\*\*\n \* Formats cents as a price[\s\S]*$/,
    `/**
 * Formats cents as a price in a locale, e.g. 123450 → "$1,234.50" (en-US).
 * @param {number} cents
 * @param {string} [locale]
 * @returns {string}
 */
export function formatPrice(cents, locale = 'en-US') {
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
  'src/money.js': oversizedMoneyJs,
  'src/locales/index.js': localeIndex(),
  'test/money.test.js': moneyTest.replace(
    `    assert.equal(formatPrice(-250, 'EUR'), '-€2.50');`,
    `    assert.equal(formatPrice(-250, 'de-DE'), '-€2,50');`,
  ),
};
for (const locale of LOCALES) oversizedFiles[`src/locales/${locale[0]}.js`] = localeFile(locale);

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
  language: 'javascript',
  description: 'Web shop checkout: cart pricing, discounts, tax, inventory, delivery windows (node --test).',
  main: {
    author: alice,
    date: '2026-11-16T08:30:00Z',
    message: 'checkout-ts 1.4.0: cart pricing, discounts, tax, inventory and delivery windows',
    files: mainFiles,
  },
  junitPath: 'reports/junit.xml',
  settings: checkoutSettings,
  testCommand: ['node', ...NODE_TEST.split(' ').slice(1)],
  changes: [offByOne, wrongOperator, staleExpectation, flaky, bot, oversized],
};
