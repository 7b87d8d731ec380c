// The right fixes of the bench/agent bugs, written down where undoing the
// change's rewritten lines (bench/oracle/run.ts rightFiles) is not the fix:
// the change rewrote a line on purpose beside the faulty one (a new
// parameter, a restructured line), the fault is in code the change only
// added, a test expectation went stale after a deliberate change, or logic
// is missing. Each is [file, text at the head (occurs once), its right text];
// every one is the smallest edit that makes the change do what its title and
// description say.

type Fix = Array<[file: string, find: string, replace: string]>;

export const CORPUS_FIXES: Record<string, Fix> = {
  'ts-cart/shipping-threshold': [['src/cart.ts', 'const free = subtotalCents > threshold;', 'const free = subtotalCents >= threshold;']],
  'ts-cart/clamp-args': [['src/cart.ts', 'clamp(0, percent, 100)', 'clamp(percent, 0, 100)']],
  'ts-cart/decimal-separator': [['src/money.ts', "whole + ',' +", "whole + '.' +"]],
  'ts-cart/flat-shipping-stale': [
    ['test/cart.test.ts', 'assert.equal(shippingCents(4999), 499);', 'assert.equal(shippingCents(4999), 599);'],
    ['test/cart.test.ts', 'priceCents: 2000, qty: 2 }]), 4499);', 'priceCents: 2000, qty: 2 }]), 4599);'],
  ],
  'ts-cart/bulk-discount-missing': [
    ['src/cart.ts', 'applyDiscount(subtotal(items), discountPercent);', 'applyDiscount(subtotal(items), discountPercent || bulkDiscountPercent(items));'],
  ],
  'ts-cart/round-half': [['src/money.ts', 'Math.sign(value) * Math.floor(Math.abs(value))', 'Math.sign(value) * Math.round(Math.abs(value))']],
  'ts-text/slug-length': [['src/slug.ts', 'if (next.length >= maxLength) break;', 'if (next.length > maxLength) break;']],
  'ts-text/greeting-noon': [['src/greet.ts', "hour <= 12 ? 'morning'", "hour < 12 ? 'morning'"]],
  'ts-text/initials-particles': [['src/truncate.ts', 'part.length > 0 || !PARTICLES', 'part.length > 0 && !PARTICLES']],
  'ts-text/join-swapped': [['src/greet.ts', "return joinWith(names, ' and ', ', ');", "return joinWith(names, ', ', ' and ');"]],
  'ts-text/wrap-empty': [['src/wrap.ts', "if (text.trim() === '') return [''];", "if (text.trim() === '') return [];"]],
  'ts-text/greeting-stale': [
    ['test/greet.test.ts', "'Good morning, Ann!'", "'Have a good morning, Ann!'"],
    ['test/greet.test.ts', "'Good afternoon, Ann!'", "'Have a good afternoon, Ann!'"],
    ['test/greet.test.ts', "'Good evening, Ann!'", "'Have a good evening, Ann!'"],
  ],
  'ts-text/slug-accents-missing': [
    [
      'src/slug.ts',
      '  const words = title\n    .toLowerCase()',
      "  const words = title\n    .normalize('NFD')\n    .replace(/[\\u0300-\\u036f]/g, '')\n    .toLowerCase()",
    ],
  ],
  'ts-text/wrap-gap': [['src/wrap.ts', 'line.length + gap.length + line.length', 'line.length + gap.length + word.length']],
  'ts-text/list-last-index': [['src/greet.ts', "' and ' + names[last];", "' and ' + names[last - 1];"]],
  'ts-text/list-unique-sorted': [['src/greet.ts', '  unique.sort();\n', '']],
  'ts-text/greeting-title': [['src/greet.ts', "' ' + title + name", "title + ' ' + name"]],
  'ts-sched/merge-negated': [['src/interval.ts', 'if (last && !(iv.start <= last.end))', 'if (last && iv.start <= last.end)']],
  'ts-sched/labels-swapped': [['src/paginate.ts', 'pageWindow(last, current)', 'pageWindow(current, last)']],
  'ts-sched/weekend-literal': [['src/calendar.ts', 'return n === 0 || n === 7;', 'return n === 0 || n === 6;']],
  'ts-sched/zero-size-missing': [
    [
      'src/paginate.ts',
      "  if (size <= 0) throw new RangeError('size must be positive');",
      "  if (size === 0) return 1;\n  if (size < 0) throw new RangeError('size must be positive');",
    ],
  ],
  'ts-sched/overlap-inclusive': [['src/interval.ts', 'b.start < a.start', 'b.start < a.end']],
  'py-inventory/low-stock-direction': [['inventory/stock.py', 'if level > threshold]', 'if level < threshold]']],
  'py-inventory/member-minimum': [['inventory/pricing.py', '(member or total >= 20) or total >= 50', '(member and total >= 20) or total >= 50']],
  'py-inventory/tax-sign': [['inventory/pricing.py', 'net * (1 - tax_rate)', 'net * (1 + tax_rate)']],
  'py-inventory/tier-literal': [['inventory/pricing.py', '    if qty >= 11:', '    if qty >= 10:']],
  'py-inventory/round-swapped': [['inventory/pricing.py', '_round_money(2, net * (1 + tax_rate))', '_round_money(net * (1 + tax_rate), 2)']],
  'py-inventory/tax-rate-stale': [['tests/test_pricing.py', 'assert order_total(10, 2) == 24.0', 'assert order_total(10, 2) == 25.0']],
  'py-inventory/has-inverted': [['inventory/stock.py', '            return False\n        return True', '            return True\n        return False']],
  'py-inventory/discontinued-missing': [['inventory/stock.py', 'if n < threshold)', 'if n < threshold and sku not in self.discontinued)']],
  'py-inventory/reserved-available': [
    ['inventory/stock.py', 'self.levels.get(sku, 0) - self.levels.get(sku, 0)', 'self.levels.get(sku, 0) - self.reserved.get(sku, 0)'],
  ],
  'py-inventory/version-on-add': [
    [
      'inventory/stock.py',
      '        self.levels[sku] = self.levels.get(sku, 0) + qty\n',
      '        self.levels[sku] = self.levels.get(sku, 0) + qty\n        self.version += 1\n',
    ],
  ],
  'py-grades/cutoff-strict': [['grades/letters.py', 'if score > cutoff:', 'if score >= cutoff:']],
  'py-grades/percent-swapped': [['grades/stats.py', 'scale(value, 100, total)', 'scale(value, total, 100)']],
  'py-grades/describe-stale': [['tests/test_letters.py', 'assert describe("Ann", 85) == "Ann: B (85)"', 'assert describe("Ann", 85) == "Ann: B (85%)"']],
  'py-grades/retake-logic': [['grades/letters.py', 'if retake or attended:', 'if retake and attended:']],
  'py-grades/median-none-missing': [['grades/stats.py', '    ordered = sorted(values)', '    ordered = sorted(v for v in values if v is not None)']],
  'py-grades/clamp-either-order': [['grades/stats.py', 'low, high = min(low, high), min(low, high)', 'low, high = min(low, high), max(low, high)']],
  'py-grades/median-low': [['grades/stats.py', '    if low:\n        return ordered[mid]\n', '    if low:\n        return ordered[mid - 1]\n']],
  'py-text/pad-width': [['textkit/fmt.py', '(fill * missing)[: missing - 1]', '(fill * missing)[:missing]']],
  'py-text/title-negated': [['textkit/fmt.py', 'if not (i > 0 and word in SMALL_WORDS and keep_small):', 'if i > 0 and word in SMALL_WORDS and keep_small:']],
  'py-text/kv-separator': [['textkit/parse.py', 'line.replace(",", ";").split(":")', 'line.replace(",", ";").split(";")']],
  'py-text/join-separator': [['textkit/fmt.py', 'sep=" ,"', 'sep=", "']],
  'py-text/days-arith': [['textkit/parse.py', 'int(number) + UNITS[ch]', 'int(number) * UNITS[ch]']],
  'py-text/join-stale': [['tests/test_fmt.py', 'assert join_names([" ann", "", "bo "]) == "ann, bo"', 'assert join_names([" ann", "", "bo "]) == "ann & bo"']],
  'py-text/decimal-duration-missing': [
    ['textkit/parse.py', '        if ch.isdigit():', '        if ch.isdigit() or ch == ".":'],
    ['textkit/parse.py', 'total += int(number) * UNITS[ch]', 'total += round(float(number) * UNITS[ch])'],
  ],
  'py-text/title-none': [['textkit/fmt.py', '    words = text.lower().split()', '    if text is None:\n        return ""\n    words = text.lower().split()']],
  'py-text/join-none': [['textkit/fmt.py', 'if n.strip())', 'if n and n.strip())']],
};
