import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ZodError } from 'zod';
import {
  ChangeListQuerySchema,
  DEFAULT_PAGE_SIZE,
  filtersFromSearchParams,
  parseDuration,
  searchParamsToObject,
  toChangeListSearchParams,
} from '../../../common/change-query';

const parse = (q: string) => ChangeListQuerySchema.parse(searchParamsToObject(new URLSearchParams(q)));

describe('ChangeListQuerySchema', () => {
  test('defaults: everything, history included, default page size', () => {
    const v = parse('');
    assert.equal(v.status, undefined);
    assert.equal(v.history, 'include');
    assert.equal(v.limit, DEFAULT_PAGE_SIZE);
    assert.equal(v.q, undefined);
  });

  test('status is a comma list or repeated, case-insensitive, de-duplicated', () => {
    assert.deepEqual(parse('status=fix_ready,NO_FIX').status, ['FIX_READY', 'NO_FIX']);
    assert.deepEqual(parse('status=SKIPPED&status=skipped&status=STALE').status, ['SKIPPED', 'STALE']);
    assert.equal(parse('status=').status, undefined);
  });

  test('kind is human or bot in any case', () => {
    assert.equal(parse('kind=bot').kind, 'BOT');
    assert.equal(parse('kind=HUMAN').kind, 'HUMAN');
  });

  test('text is trimmed, and blank text means no filter', () => {
    assert.equal(parse('q=%20%20off-by-one%20').q, 'off-by-one');
    assert.equal(parse('q=%20%20').q, undefined);
    assert.equal(parse('repo=').repo, undefined);
  });

  test('invalid input is a ZodError (the route turns it into 422)', () => {
    for (const bad of [
      'status=BROKEN',
      'kind=robot',
      'history=never',
      'limit=0',
      'limit=101',
      'limit=ten',
      'minAge=3w',
      'maxAge=-1h',
      'minAge=7d&maxAge=1d',
      `q=${'x'.repeat(201)}`,
      'unknownParam=1',
    ]) {
      assert.throws(() => parse(bad), ZodError, bad);
    }
  });

  test('durations in minutes, hours and days', () => {
    assert.equal(parseDuration('90m'), 90 * 60_000);
    assert.equal(parseDuration('24h'), 86_400_000);
    assert.equal(parseDuration('7d'), 7 * 86_400_000);
    assert.equal(parseDuration('7w'), undefined);
    assert.equal(parse('minAge=1h&maxAge=7d').maxAge, '7d');
  });
});

describe('filters in the page URL', () => {
  test('round-trip through the query string, omitting defaults', () => {
    const filters = {
      status: ['FIX_READY' as const, 'NO_FIX' as const],
      repo: 'payments',
      kind: 'BOT' as const,
      history: 'exclude' as const,
      author: 'renovate[bot]',
      reason: 'dropped:stale',
      q: 'off-by-one',
      minAge: '1h',
      maxAge: '7d',
    };
    const qs = toChangeListSearchParams(filters);
    assert.equal(qs.get('status'), 'FIX_READY,NO_FIX');
    assert.deepEqual(filtersFromSearchParams(qs), filters);
    assert.equal(toChangeListSearchParams({ history: 'include' }).toString(), '');
  });

  test('the cursor and page size travel only when given', () => {
    const qs = toChangeListSearchParams({ history: 'include' }, { cursor: 'abc', limit: 20 });
    assert.equal(qs.toString(), 'cursor=abc&limit=20');
  });

  test('a bad parameter in a shared link is dropped, the rest kept', () => {
    const f = filtersFromSearchParams(new URLSearchParams('status=NOPE&repo=web&kind=bot&utm_source=mail'));
    assert.equal(f.status, undefined);
    assert.equal(f.repo, 'web');
    assert.equal(f.kind, 'BOT');
  });
});
