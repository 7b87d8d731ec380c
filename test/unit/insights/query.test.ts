import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InsightsQuerySchema, insightsQueryFromSearchParams, parseInsightsQuery, ratio, resolvePeriod, toInsightsSearchParams } from '@/common/insights-query';

const NOW = new Date('2026-11-30T12:00:00.000Z');

describe('the Insights filter in the URL', () => {
  test('defaults: the last 30 days, weekly', () => {
    const q = parseInsightsQuery(new URLSearchParams(''));
    assert.equal(q.period, '30d');
    assert.equal(q.bucket, 'week');
    assert.equal(toInsightsSearchParams(q).toString(), '');
  });

  test('round-trips every field, in any case', () => {
    const q = parseInsightsQuery(
      new URLSearchParams('period=custom&from=2026-11-01&to=2026-11-15&repo=ledger-py&policy=llm&model=gpt-4.1&trigger=manual&author=Bot&bucket=day'),
    );
    assert.deepEqual(q, {
      period: 'custom',
      from: '2026-11-01',
      to: '2026-11-15',
      repo: 'ledger-py',
      policy: 'llm',
      model: 'gpt-4.1',
      trigger: 'MANUAL',
      author: 'BOT',
      bucket: 'day',
    });
    assert.deepEqual(parseInsightsQuery(toInsightsSearchParams(q)), q);
  });

  test('the API refuses a broken filter; the page drops it', () => {
    assert.throws(() => parseInsightsQuery(new URLSearchParams('period=custom&from=2026-11-15&to=2026-11-01')));
    assert.throws(() => parseInsightsQuery(new URLSearchParams('period=custom')));
    assert.throws(() => parseInsightsQuery(new URLSearchParams('period=5d')));
    assert.throws(() => parseInsightsQuery(new URLSearchParams('from=2026-02-30&period=custom&to=2026-03-01')));
    const lenient = insightsQueryFromSearchParams(new URLSearchParams('period=custom&from=nope&to=2026-11-01&repo=web'));
    assert.equal(lenient.period, '30d');
    assert.equal(lenient.repo, 'web');
  });
});

describe('periods are UTC', () => {
  test('a preset is the last N whole UTC days: today up to now and the N − 1 before', () => {
    assert.deepEqual(resolvePeriod(InsightsQuerySchema.parse({ period: '7d' }), NOW), {
      from: new Date('2026-11-24T00:00:00.000Z'),
      to: NOW,
    });
    // the same days as the custom period the filter bar offers for it
    assert.deepEqual(
      resolvePeriod(InsightsQuerySchema.parse({ period: '30d' }), NOW).from,
      resolvePeriod(InsightsQuerySchema.parse({ period: 'custom', from: '2026-11-01', to: '2026-11-30' }), NOW).from,
    );
    assert.deepEqual(resolvePeriod(InsightsQuerySchema.parse({ period: 'all' }), NOW), { from: null, to: NOW });
  });

  test('a custom period covers whole UTC days, the last one included', () => {
    assert.deepEqual(resolvePeriod(InsightsQuerySchema.parse({ period: 'custom', from: '2026-11-01', to: '2026-11-01' }), NOW), {
      from: new Date('2026-11-01T00:00:00.000Z'),
      to: new Date('2026-11-02T00:00:00.000Z'),
    });
  });
});

test('a ratio with nothing to divide by is null, not 0 or NaN', () => {
  assert.equal(ratio(0, 0), null);
  assert.equal(ratio(0, 4), 0);
  assert.equal(ratio(3, 4), 0.75);
});
