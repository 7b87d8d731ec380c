import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '@/lib/errors';
import { readIngestUpload, readLimitedBody } from '@/lib/ingest/body';

const META = {
  repository: 'shop',
  baseRev: 'base1',
  headRev: 'head1',
  change: { externalId: '1', title: 't', author: 'a', branch: 'b' },
};

function post(body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request('http://x/api/v1/failures', { method: 'POST', body, headers });
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AppError, String(err));
  return err;
}

describe('readLimitedBody', () => {
  test('returns the bytes of a body within the limit', async () => {
    const bytes = await readLimitedBody({ req: post('hello'), maxBytes: 5 });
    assert.equal(Buffer.from(bytes).toString(), 'hello');
  });

  test('refuses one byte over the limit even with no Content-Length', async () => {
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('hello!'));
        c.close();
      },
    });
    const req = new Request('http://x/', { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    const err = await refusal(readLimitedBody({ req, maxBytes: 5 }));
    assert.equal(err.status, 413);
  });

  test('a lying Content-Length does not get past the limit', async () => {
    // undici recomputes Content-Length for string bodies, so lie with a stream
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(10));
        c.close();
      },
    });
    const req = new Request('http://x/', { method: 'POST', body: stream, duplex: 'half', headers: { 'content-length': '1' } } as RequestInit);
    assert.equal((await refusal(readLimitedBody({ req, maxBytes: 5 }))).status, 413);
  });
});

describe('readIngestUpload', () => {
  test('JSON: junit as a string or a list, log and tests kept', async () => {
    const req = post(JSON.stringify({ ...META, junit: ['<a/>', '<b/>'], log: 'L' }), { 'content-type': 'application/json; charset=utf-8' });
    const upload = await readIngestUpload({ req, maxBytes: 1e6 });
    assert.deepEqual(upload.junitReports, ['<a/>', '<b/>']);
    assert.equal(upload.log, 'L');
    assert.equal(upload.metadata.origin, 'ci');
    assert.equal(upload.metadata.change.description, '');
  });

  test('multipart: metadata as a plain field, junit and log as text fields or files', async () => {
    const form = new FormData();
    form.set('metadata', JSON.stringify(META));
    form.append('junit', '<x/>');
    form.append('junit', new Blob([new Uint8Array([0x3c, 0x79, 0x2f, 0x3e])]), 'y.xml');
    form.set('log', new Blob(['lo\u0000g']), 'ci.log');
    const upload = await readIngestUpload({ req: post(form), maxBytes: 1e6 });
    assert.equal(upload.junitReports[0], '<x/>');
    assert.deepEqual([...(upload.junitReports[1] as Uint8Array)], [0x3c, 0x79, 0x2f, 0x3e]);
    assert.equal(upload.log, 'log');
  });

  test('a multipart body whose boundary does not match → 400', async () => {
    const req = post('--other\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{}\r\n--other--\r\n', {
      'content-type': 'multipart/form-data; boundary=expected',
    });
    const err = await refusal(readIngestUpload({ req, maxBytes: 1e6 }));
    assert.equal(err.status, 400);
  });

  test('no or another content type → 415, before the body is read', async () => {
    const req = post('x', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal((await refusal(readIngestUpload({ req, maxBytes: 1e6 }))).status, 415);
    assert.equal(req.bodyUsed, false);
    assert.equal((await refusal(readIngestUpload({ req: new Request('http://x/', { method: 'POST' }), maxBytes: 1e6 }))).status, 415);
  });
});
