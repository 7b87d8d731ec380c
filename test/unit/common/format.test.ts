import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAge, formatAgo, formatCost, formatCostExact, formatDuration, formatPercent, formatTokens, formatUtcDay, shortSha } from '@/common/format';

describe('display formatters', () => {
  test('cost: under a cent is "<$0.01" everywhere, with the exact figure for the title', () => {
    assert.equal(formatCost(0), '$0');
    assert.equal(formatCost(0.0043), '<$0.01');
    assert.equal(formatCostExact(0.0043), '$0.0043');
    assert.equal(formatCost(0.01), '$0.01');
    assert.equal(formatCost(1.3712), '$1.37');
    assert.equal(formatCostExact(1.3712), '$1.3712');
  });

  test('durations from milliseconds to hours; unknown is a dash', () => {
    assert.deepEqual([850, 4_230, 42_000, 185_000, 120_000, 7_800_000].map(formatDuration), ['850 ms', '4.2 s', '42 s', '3 min 5 s', '2 min', '2 h 10 min']);
    assert.equal(formatDuration(null), '—');
    assert.equal(formatDuration(undefined), '—');
    assert.equal(formatDuration(Number.NaN), '—');
  });

  test('percentages: no data is a dash, never NaN% or 0%', () => {
    assert.deepEqual(
      [0.3784, 1, 0, 2 / 3].map((s) => formatPercent(s)),
      ['37.8%', '100%', '0%', '66.7%'],
    );
    assert.equal(formatPercent(null), '—');
    assert.equal(formatPercent(Number.NaN), '—');
    // a statistic undefined on its data says so (grading)
    assert.equal(formatPercent(null, 1, 'n/a'), 'n/a');
    assert.equal(formatPercent(0.125, 0), '13%');
  });

  test("a UTC day stays that day whatever the reader's zone", () => {
    assert.match(formatUtcDay('2026-11-23T00:00:00.000Z'), /23/);
  });

  test('token counts', () => {
    assert.deepEqual([950, 1_234, 340_000, 1_250_000].map(formatTokens), ['950', '1.2k', '340k', '1.25M']);
  });

  test('relative ages, from a duration or a timestamp', () => {
    const minute = 60_000;
    assert.deepEqual([10_000, 5 * minute, 3 * 60 * minute, 2 * 1440 * minute, 120 * 1440 * minute, 400 * 1440 * minute].map(formatAge), [
      'just now',
      '5 min ago',
      '3 h ago',
      '2 d ago',
      '4 mo ago',
      '1 y ago',
    ]);
    const now = Date.parse('2026-12-01T12:00:00Z');
    assert.equal(formatAgo('2026-12-01T09:00:00Z', now), '3 h ago');
    assert.equal(formatAgo(null, now), 'never');
    // a clock a little ahead of the server's is not "in the future"
    assert.equal(formatAgo('2026-12-01T12:00:05Z', now), 'just now');
  });

  test('short revisions', () => {
    assert.equal(shortSha('0123456789abcdef'), '0123456789');
    assert.equal(shortSha(null), '—');
  });
});
