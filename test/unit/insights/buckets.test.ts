import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketOfDay, fillBuckets } from '@/lib/insights/buckets';

const zero = () => 0;
const rows = (entries: Array<[string, number]>) => new Map(entries);

describe('fillBuckets', () => {
  test('every week of the period, Monday-based, zero where the data has none', () => {
    // 2026-11-01 is a Sunday (week of 10-26); 2026-11-30 a Monday
    const out = fillBuckets({
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-12-01T00:00:00Z'),
      bucket: 'week',
      rows: rows([
        ['2026-11-09', 2],
        ['2026-11-23', 5],
      ]),
      zero,
    });
    assert.deepEqual(out, [
      { bucket: '2026-10-26', row: 0 },
      { bucket: '2026-11-02', row: 0 },
      { bucket: '2026-11-09', row: 2 },
      { bucket: '2026-11-16', row: 0 },
      { bucket: '2026-11-23', row: 5 },
      { bucket: '2026-11-30', row: 0 },
    ]);
  });

  test('every day, the period ending now includes today', () => {
    const out = fillBuckets({
      from: new Date('2026-11-28T00:00:00Z'),
      to: new Date('2026-11-30T12:00:00Z'),
      bucket: 'day',
      rows: rows([['2026-11-30', 1]]),
      zero,
    });
    assert.deepEqual(
      out.map((b) => [b.bucket, b.row]),
      [
        ['2026-11-28', 0],
        ['2026-11-29', 0],
        ['2026-11-30', 1],
      ],
    );
  });

  test('a period ending at midnight stops at the day before; rows outside are left out', () => {
    const out = fillBuckets({
      from: new Date('2026-11-28T00:00:00Z'),
      to: new Date('2026-11-30T00:00:00Z'),
      bucket: 'day',
      rows: rows([
        ['2026-11-27', 9],
        ['2026-11-30', 9],
      ]),
      zero,
    });
    assert.deepEqual(
      out.map((b) => b.bucket),
      ['2026-11-28', '2026-11-29'],
    );
  });

  test('all time starts at the earliest row; no rows and no period: no buckets', () => {
    const out = fillBuckets({
      from: null,
      to: new Date('2026-11-18T08:00:00Z'),
      bucket: 'week',
      rows: rows([
        ['2026-11-09', 1],
        ['2026-10-26', 3],
      ]),
      zero,
    });
    assert.deepEqual(
      out.map((b) => [b.bucket, b.row]),
      [
        ['2026-10-26', 3],
        ['2026-11-02', 0],
        ['2026-11-09', 1],
        ['2026-11-16', 0],
      ],
    );
    assert.deepEqual(fillBuckets({ from: null, to: new Date(), bucket: 'day', rows: new Map(), zero }), []);
    assert.deepEqual(fillBuckets({ from: new Date('2026-11-02T00:00:00Z'), to: new Date('2026-11-02T00:00:00Z'), bucket: 'day', rows: new Map(), zero }), []);
  });

  test('the zero row is made per bucket', () => {
    const out = fillBuckets({
      from: new Date('2026-11-02T00:00:00Z'),
      to: new Date('2026-11-04T00:00:00Z'),
      bucket: 'day',
      rows: new Map(),
      zero: (b) => ({ b, n: 0 }),
    });
    assert.deepEqual(
      out.map((x) => x.row),
      [
        { b: '2026-11-02', n: 0 },
        { b: '2026-11-03', n: 0 },
      ],
    );
  });
});

test('bucketOfDay: a week starts on Monday', () => {
  assert.equal(bucketOfDay('2026-11-01', 'week'), '2026-10-26');
  assert.equal(bucketOfDay('2026-11-02', 'week'), '2026-11-02');
  assert.equal(bucketOfDay('2026-11-08', 'week'), '2026-11-02');
  assert.equal(bucketOfDay('2026-11-08', 'day'), '2026-11-08');
});
