import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCursor, encodeCursor } from '../../../lib/http/cursor';
import { AppError } from '../../../lib/errors';

function assertInvalid(encoded: string): void {
  assert.throws(
    () => decodeCursor(encoded),
    (err: unknown) => err instanceof AppError && err.code === 'validation' && err.status === 422,
    `expected ${JSON.stringify(encoded)} to be rejected`,
  );
}

describe('keyset cursor codec', () => {
  test('round-trips the sort key exactly (millisecond precision)', () => {
    const cursor = { at: new Date('2026-03-04T05:06:07.089Z'), id: 'clx9abc_DEF-123' };
    const encoded = encodeCursor(cursor);
    assert.match(encoded, /^[A-Za-z0-9_-]+$/, 'base64url, safe in a query string');
    assert.deepEqual(decodeCursor(encoded), cursor);
  });

  test('is opaque: the id and time are not readable as plain text', () => {
    const encoded = encodeCursor({ at: new Date(0), id: 'changeid' });
    assert.ok(!encoded.includes('changeid'));
  });

  test('rejects garbage, tampering and oversize input with a 422', () => {
    const good = encodeCursor({ at: new Date('2026-01-01T00:00:00Z'), id: 'abc' });
    assertInvalid('');
    assertInvalid('not a cursor!');
    assertInvalid('%%%');
    assertInvalid(Buffer.from('v2.1.abc').toString('base64url'));
    assertInvalid(Buffer.from('v1.notanumber.abc').toString('base64url'));
    assertInvalid(Buffer.from("v1.1.abc' OR 1=1 --").toString('base64url'));
    assertInvalid(Buffer.from('v1.1.').toString('base64url'));
    assertInvalid(Buffer.from('v1.0001.abc').toString('base64url'));
    assertInvalid(Buffer.from('v1.99999999999999999.abc').toString('base64url'));
    assertInvalid(`${good}A`);
    assertInvalid('A'.repeat(500));
  });

  // the last check (re-encoding) would refuse these too, but only after decoding whatever was sent
  test('refuses an empty, oversize or non-base64url cursor before decoding it', () => {
    const from = mock.method(Buffer, 'from');
    try {
      for (const encoded of ['', 'A'.repeat(201), 'A'.repeat(100_000), 'not a cursor!', `${'A'.repeat(40)}+/`]) {
        assertInvalid(encoded);
        assert.equal(from.mock.callCount(), 0, `${JSON.stringify(encoded.slice(0, 40))} was decoded`);
      }
      // the counter counts: within the limit a cursor is decoded (then refused, not one of ours)
      assertInvalid('A'.repeat(200));
      assert.ok(from.mock.callCount() > 0);
    } finally {
      from.mock.restore();
    }
  });

  test('refuses to encode what it could not decode', () => {
    assert.throws(() => encodeCursor({ at: new Date(Number.NaN), id: 'abc' }));
    assert.throws(() => encodeCursor({ at: new Date(0), id: 'has space' }));
  });
});
