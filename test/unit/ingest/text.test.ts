import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanText, decodeUtf8, deepCleanStrings, truncateHeadTail } from '@/lib/ingest/text';
import { capChars } from '@/common/text';

describe('decodeUtf8', () => {
  test('replaces invalid UTF-8 sequences with U+FFFD instead of failing', () => {
    const bytes = new Uint8Array([0x6f, 0x6b, 0xff, 0xfe, 0x20, 0xc3, 0x28, 0x21]);
    assert.equal(decodeUtf8(bytes), 'ok\uFFFD\uFFFD \uFFFD(!');
  });

  test('drops a leading byte-order mark', () => {
    assert.equal(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])), 'a');
  });
});

describe('cleanText', () => {
  test('removes NUL characters, which PostgreSQL text cannot store', () => {
    assert.equal(cleanText('a\u0000b\u0000'), 'ab');
  });

  test('replaces lone surrogates (from JSON \\ud800 escapes) with U+FFFD', () => {
    assert.equal(cleanText('x\uD800y\uDC00z'), 'x\uFFFDy\uFFFDz');
    assert.equal(cleanText('emoji \uD83D\uDE00 kept'), 'emoji \uD83D\uDE00 kept');
  });
});

describe('deepCleanStrings', () => {
  test('cleans every string inside objects and arrays, keys included', () => {
    const out = deepCleanStrings({ 'k\u0000ey': ['a\u0000', { b: 'c\uD800' }], n: 3, t: true, z: null });
    assert.deepEqual(out, { key: ['a', { b: 'c\uFFFD' }], n: 3, t: true, z: null });
  });
});

describe('truncateHeadTail', () => {
  test('leaves text within the limit untouched', () => {
    assert.deepEqual(truncateHeadTail({ text: 'short log', maxBytes: 100 }), { text: 'short log', truncatedBytes: 0 });
  });

  test('keeps the head and the tail and says how many bytes were cut', () => {
    const text = 'HEAD-' + 'x'.repeat(10_000) + '-TAIL';
    const out = truncateHeadTail({ text, maxBytes: 1000 });
    assert.ok(out.text.startsWith('HEAD-'));
    assert.ok(out.text.endsWith('-TAIL'));
    assert.ok(Buffer.byteLength(out.text) <= 1000, `got ${Buffer.byteLength(out.text)} bytes`);
    const kept = Buffer.byteLength(out.text) - Buffer.byteLength(out.text.match(/\n\[… flowfix cut \d+ bytes of this log …\]\n/)![0]);
    assert.equal(out.truncatedBytes, Buffer.byteLength(text) - kept);
    assert.match(out.text, new RegExp(`flowfix cut ${out.truncatedBytes} bytes`));
  });

  test('never splits a multi-byte character', () => {
    const text = 'é'.repeat(5000);
    const out = truncateHeadTail({ text, maxBytes: 501 });
    assert.ok(!out.text.includes('\uFFFD'));
    assert.ok(Buffer.byteLength(out.text) <= 501);
    assert.equal(Buffer.byteLength(text) - out.truncatedBytes + Buffer.byteLength(out.text.match(/\n\[.*\]\n/)![0]), Buffer.byteLength(out.text));
  });
});

describe('capChars', () => {
  test('cuts long text keeping head and tail with a note', () => {
    const out = capChars('a'.repeat(50) + 'b'.repeat(50), 40);
    assert.ok(out.length <= 40 + 60);
    assert.ok(out.startsWith('aaa'));
    assert.ok(out.endsWith('bbb'));
    assert.match(out, /60 characters cut/);
    assert.equal(capChars('fine', 40), 'fine');
  });
});
