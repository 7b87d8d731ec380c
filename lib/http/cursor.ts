import { AppError } from '../errors';

// The keyset cursor of every paged list (the triage list, the review queue):
// the sort key (a time, then the id as tie-breaker) of the last row a page
// returned, encoded as base64url so callers treat it as opaque; a version
// prefix lets the encoding change later without misreading old links.

export interface KeysetPosition {
  at: Date;
  id: string;
}

const VERSION = 'v1';
// cuid()s and the ids other writers use: letters, digits, '-' and '_'
const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const PAYLOAD_PATTERN = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{1,128})$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
// a cursor is far shorter than this; refuse to decode anything larger
const MAX_ENCODED_LENGTH = 200;

export function encodeCursor({ at, id }: KeysetPosition): string {
  const ms = at.getTime();
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`encodeCursor: invalid time ${String(at)}`);
  if (!ID_PATTERN.test(id)) throw new Error(`encodeCursor: invalid id ${JSON.stringify(id)}`);
  return Buffer.from(`${VERSION}.${ms}.${id}`, 'utf8').toString('base64url');
}

function invalidCursor(): AppError {
  return new AppError('validation', 'Invalid cursor: start again from the first page', {
    details: [{ path: 'cursor', message: 'not a cursor this server issued' }],
  });
}

/** Decodes a cursor from a request; anything malformed is a 422. */
export function decodeCursor(encoded: string): KeysetPosition {
  if (encoded.length === 0 || encoded.length > MAX_ENCODED_LENGTH || !BASE64URL.test(encoded)) throw invalidCursor();
  const text = Buffer.from(encoded, 'base64url').toString('utf8');
  const m = PAYLOAD_PATTERN.exec(text);
  if (!m) throw invalidCursor();
  const at = new Date(Number(m[1]));
  if (Number.isNaN(at.getTime())) throw invalidCursor();
  const cursor = { at, id: m[2]! };
  // one cursor per position: reject look-alikes (leading zeros, stray bits)
  if (encodeCursor(cursor) !== encoded) throw invalidCursor();
  return cursor;
}
