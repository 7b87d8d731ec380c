import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { AppError, toHttpError } from '@/lib/errors';

test('AppError codes map to their HTTP statuses', () => {
  const cases: Array<[ConstructorParameters<typeof AppError>[0], number]> = [
    ['bad_request', 400],
    ['unauthenticated', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['payload_too_large', 413],
    ['validation', 422],
  ];
  for (const [code, status] of cases) {
    const { status: got, body } = toHttpError(new AppError(code, 'msg'));
    assert.equal(got, status, code);
    assert.equal(body.error.code, code);
    assert.equal(body.error.message, 'msg');
  }
});

test('zod errors become 422 with the failing paths', () => {
  const result = z.object({ limit: z.number().max(10) }).safeParse({ limit: 99 });
  assert.equal(result.success, false);
  const { status, body } = toHttpError(result.error);
  assert.equal(status, 422);
  assert.deepEqual(
    (body.error.details as Array<{ path: string }>).map((d) => d.path),
    ['limit'],
  );
});

test('unique-constraint violations become 409', () => {
  assert.equal(toHttpError(Object.assign(new Error('dup'), { code: 'P2002' })).status, 409);
});

test('unexpected errors become a generic 500 that leaks nothing', () => {
  const original = console.error;
  console.error = () => undefined;
  try {
    const { status, body } = toHttpError(new Error('password=hunter2 at db.internal:5432'));
    assert.equal(status, 500);
    assert.equal(body.error.message, 'Internal error');
    assert.ok(!JSON.stringify(body).includes('hunter2'));
  } finally {
    console.error = original;
  }
});
