import type { CorpusBug, CorpusProject } from './types';

// A stock ledger and price rules in Python, tested with pytest.

export const pyInventory: CorpusProject = {
  name: 'py-inventory',
  language: 'python',
  files: {
    'inventory/__init__.py': '',
    'inventory/stock.py': `class OutOfStock(Exception):
    pass


class Stock:
    def __init__(self):
        self.levels = {}

    def add(self, sku, qty):
        if qty <= 0:
            raise ValueError("quantity must be positive")
        self.levels[sku] = self.levels.get(sku, 0) + qty

    def remove(self, sku, qty):
        have = self.levels.get(sku, 0)
        if qty > have:
            raise OutOfStock(sku)
        self.levels[sku] = have - qty

    def low_stock(self, threshold=5):
        return sorted(sku for sku, n in self.levels.items() if n < threshold)

    def total_units(self):
        return sum(self.levels.values())
`,
    'inventory/pricing.py': `def unit_price(base, qty):
    if qty >= 100:
        return round(base * 0.8, 2)
    if qty >= 10:
        return round(base * 0.9, 2)
    return base


def order_total(base, qty, tax_rate=0.2):
    net = unit_price(base, qty) * qty
    return round(net * (1 + tax_rate), 2)


def is_free_shipping(total, member):
    return member or total >= 50
`,
    'tests/test_stock.py': `import pytest

from inventory.stock import OutOfStock, Stock


def make(**levels):
    s = Stock()
    for sku, n in levels.items():
        s.add(sku, n)
    return s


def test_add_accumulates():
    s = make(a=2)
    s.add("a", 3)
    assert s.levels["a"] == 5


def test_add_rejects_zero():
    with pytest.raises(ValueError):
        Stock().add("a", 0)


def test_remove_decrements():
    s = make(a=5)
    s.remove("a", 2)
    assert s.levels["a"] == 3
    s.remove("a", 3)
    assert s.levels["a"] == 0


def test_remove_too_many_raises():
    s = make(a=1)
    with pytest.raises(OutOfStock):
        s.remove("a", 2)


def test_low_stock_lists_skus_below_threshold():
    s = make(a=1, b=5, c=10)
    assert s.low_stock() == ["a"]
    assert s.low_stock(6) == ["a", "b"]


def test_total_units():
    assert make(a=1, b=2).total_units() == 3
`,
    'tests/test_pricing.py': `from inventory.pricing import is_free_shipping, order_total, unit_price


def test_unit_price_tiers():
    assert unit_price(10, 1) == 10
    assert unit_price(10, 10) == 9.0
    assert unit_price(10, 99) == 9.0
    assert unit_price(10, 100) == 8.0


def test_order_total_adds_tax():
    assert order_total(10, 2) == 24.0
    assert order_total(10, 10, 0) == 90.0


def test_free_shipping():
    assert is_free_shipping(10, True)
    assert is_free_shipping(50, False)
    assert not is_free_shipping(49.99, False)
`,
  },
};

const stock = (name: string) => `tests.test_stock::${name}`;
const pricing = (name: string) => `tests.test_pricing::${name}`;

export const pyInventoryBugs: CorpusBug[] = [
  {
    id: 'py-inventory/remove-all',
    project: 'py-inventory',
    kind: 'off-by-one',
    title: 'Stock: keep a history of removals',
    description: 'Audit wants every removal recorded.',
    change: [
      {
        file: 'inventory/stock.py',
        replace: [
          ['        self.levels = {}\n', '        self.levels = {}\n        self.history = []\n'],
          [
            '        if qty > have:\n            raise OutOfStock(sku)\n        self.levels[sku] = have - qty',
            '        if qty >= have:\n            raise OutOfStock(sku)\n        self.levels[sku] = have - qty\n        self.history.append((sku, qty))',
          ],
        ],
      },
    ],
    failingTests: [stock('test_remove_decrements')],
    truth: { file: 'inventory/stock.py', symbol: 'Stock.remove' },
    offlineFixable: true,
    fix: 'relational-operator',
  },
  {
    id: 'py-inventory/low-stock-direction',
    project: 'py-inventory',
    kind: 'wrong-operator',
    title: 'low_stock: readable generator',
    description: 'Spell the filter out as a loop-style comprehension with a named level.',
    change: [
      {
        file: 'inventory/stock.py',
        replace: [
          [
            '        return sorted(sku for sku, n in self.levels.items() if n < threshold)',
            '        low = [sku for sku, level in self.levels.items() if level > threshold]\n        return sorted(low)',
          ],
        ],
      },
    ],
    failingTests: [stock('test_low_stock_lists_skus_below_threshold')],
    truth: { file: 'inventory/stock.py', symbol: 'Stock.low_stock' },
    offlineFixable: true,
    fix: 'relational-operator',
  },
  {
    id: 'py-inventory/member-minimum',
    project: 'py-inventory',
    kind: 'wrong-logical',
    title: 'Free shipping: members need a 20 minimum',
    description: 'Members get free shipping from 20; everyone else from 50.',
    change: [
      { file: 'inventory/pricing.py', replace: [['    return member or total >= 50', '    return (member or total >= 20) or total >= 50']] },
      {
        file: 'tests/test_pricing.py',
        replace: [['    assert is_free_shipping(10, True)\n', '    assert not is_free_shipping(10, True)\n    assert is_free_shipping(25, True)\n']],
      },
    ],
    failingTests: [pricing('test_free_shipping')],
    truth: { file: 'inventory/pricing.py', symbol: 'is_free_shipping' },
    offlineFixable: true,
    fix: 'logical-operator',
  },
  {
    id: 'py-inventory/tax-sign',
    project: 'py-inventory',
    kind: 'wrong-arithmetic',
    title: 'order_total: shipping fee',
    description: 'Adds an optional shipping fee, taxed like the goods.',
    change: [
      {
        file: 'inventory/pricing.py',
        replace: [
          [
            'def order_total(base, qty, tax_rate=0.2):\n    net = unit_price(base, qty) * qty\n    return round(net * (1 + tax_rate), 2)',
            'def order_total(base, qty, tax_rate=0.2, shipping=0):\n    net = unit_price(base, qty) * qty + shipping\n    return round(net * (1 - tax_rate), 2)',
          ],
        ],
      },
    ],
    failingTests: [pricing('test_order_total_adds_tax')],
    truth: { file: 'inventory/pricing.py', symbol: 'order_total' },
    offlineFixable: true,
    fix: 'arithmetic-operator',
  },
  {
    id: 'py-inventory/add-negated',
    project: 'py-inventory',
    kind: 'negated-condition',
    title: 'Stock: add_many for deliveries',
    description: 'A delivery note adds several skus at once.',
    change: [
      {
        file: 'inventory/stock.py',
        replace: [
          [
            '        if qty <= 0:\n            raise ValueError("quantity must be positive")',
            '        if not qty <= 0:\n            raise ValueError("quantity must be positive")',
          ],
          [
            '    def remove(self, sku, qty):',
            '    def add_many(self, delivery):\n        for sku, qty in delivery.items():\n            self.add(sku, qty)\n\n    def remove(self, sku, qty):',
          ],
        ],
      },
    ],
    failingTests: [
      stock('test_add_accumulates'),
      stock('test_add_rejects_zero'),
      stock('test_remove_decrements'),
      stock('test_remove_too_many_raises'),
      stock('test_low_stock_lists_skus_below_threshold'),
      stock('test_total_units'),
    ],
    truth: { file: 'inventory/stock.py', symbol: 'Stock.add' },
    offlineFixable: true,
    fix: 'remove-negation',
  },
  {
    id: 'py-inventory/tier-literal',
    project: 'py-inventory',
    kind: 'wrong-literal',
    title: 'unit_price: a 50-unit tier',
    description: 'Adds a 15% tier from 50 units.',
    change: [
      {
        file: 'inventory/pricing.py',
        replace: [
          [
            '    if qty >= 10:\n        return round(base * 0.9, 2)',
            '    if qty >= 50:\n        return round(base * 0.85, 2)\n    if qty >= 11:\n        return round(base * 0.9, 2)',
          ],
        ],
      },
      {
        file: 'tests/test_pricing.py',
        replace: [['    assert unit_price(10, 99) == 9.0\n', '    assert unit_price(10, 49) == 9.0\n    assert unit_price(10, 99) == 8.5\n']],
      },
    ],
    failingTests: [pricing('test_order_total_adds_tax'), pricing('test_unit_price_tiers')],
    truth: { file: 'inventory/pricing.py', symbol: 'unit_price' },
    offlineFixable: true,
    fix: 'boundary-literal',
  },
  {
    id: 'py-inventory/round-swapped',
    project: 'py-inventory',
    kind: 'swapped-args',
    title: 'order_total: one rounding helper',
    description: 'Money rounding goes through _round_money so it can change in one place.',
    change: [
      {
        file: 'inventory/pricing.py',
        replace: [
          [
            'def order_total(base, qty, tax_rate=0.2):',
            'def _round_money(value, places=2):\n    return round(value, places)\n\n\ndef order_total(base, qty, tax_rate=0.2):',
          ],
          ['    return round(net * (1 + tax_rate), 2)', '    return _round_money(2, net * (1 + tax_rate))'],
        ],
      },
    ],
    failingTests: [pricing('test_order_total_adds_tax')],
    truth: { file: 'inventory/pricing.py', symbol: 'order_total' },
    offlineFixable: true,
    fix: 'swap-arguments',
  },
  {
    id: 'py-inventory/tax-rate-stale',
    project: 'py-inventory',
    kind: 'stale-expectation',
    title: 'Tax rate update',
    description: 'The default tax rate is now 25% after the regional change.',
    change: [{ file: 'inventory/pricing.py', replace: [['def order_total(base, qty, tax_rate=0.2):', 'def order_total(base, qty, tax_rate=0.25):']] }],
    failingTests: [pricing('test_order_total_adds_tax')],
    truth: { file: 'tests/test_pricing.py', symbol: 'test_order_total_adds_tax' },
    offlineFixable: true,
    fix: 'stale-expectation',
  },
  {
    id: 'py-inventory/has-inverted',
    project: 'py-inventory',
    kind: 'wrong-return',
    title: 'Stock.has',
    description: 'Checkout asks whether enough units are on hand before reserving.',
    change: [
      {
        file: 'inventory/stock.py',
        replace: [
          [
            '    def low_stock(self, threshold=5):',
            '    def has(self, sku, qty=1):\n        if self.levels.get(sku, 0) >= qty:\n            return False\n        return True\n\n    def low_stock(self, threshold=5):',
          ],
        ],
      },
      {
        file: 'tests/test_stock.py',
        append: '\n\ndef test_has():\n    s = make(a=2)\n    assert s.has("a", 2)\n    assert not s.has("a", 3)\n    assert not s.has("b")\n',
      },
    ],
    failingTests: [stock('test_has')],
    truth: { file: 'inventory/stock.py', symbol: 'Stock.has' },
    offlineFixable: true,
    fix: 'negate-condition',
  },
  {
    id: 'py-inventory/discontinued-missing',
    project: 'py-inventory',
    kind: 'missing-logic',
    title: 'Stock: discontinued skus',
    description: 'Discontinued skus must not show up in the low-stock report.',
    change: [
      {
        file: 'inventory/stock.py',
        replace: [
          ['        self.levels = {}\n', '        self.levels = {}\n        self.discontinued = set()\n'],
          [
            '    def low_stock(self, threshold=5):',
            '    def discontinue(self, sku):\n        self.discontinued.add(sku)\n\n    def low_stock(self, threshold=5):',
          ],
        ],
      },
      {
        file: 'tests/test_stock.py',
        append: '\n\ndef test_low_stock_skips_discontinued():\n    s = make(a=1, b=2)\n    s.discontinue("a")\n    assert s.low_stock() == ["b"]\n',
      },
    ],
    failingTests: [stock('test_low_stock_skips_discontinued')],
    truth: { file: 'inventory/stock.py', symbol: 'Stock.low_stock' },
    offlineFixable: false,
    fix: null,
  },
];
