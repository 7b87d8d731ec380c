// Text that CI uploads is untrusted and often dirty: logs with invalid UTF-8
// from crashed processes, NUL bytes, JSON with lone surrogate escapes. We
// store it rather than refuse it, so it is repaired here:
// - invalid UTF-8 becomes U+FFFD (decoding never fails an upload);
// - NUL is removed because PostgreSQL `text` cannot hold it at all;
// - lone surrogates become U+FFFD because they have no UTF-8 encoding.

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/** Decodes bytes as UTF-8, replacing invalid sequences with U+FFFD; a leading BOM is dropped. */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Removes NUL and replaces lone surrogates: the result can be stored in PostgreSQL text. */
export function cleanText(text: string): string {
  return text.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\uFFFD');
}

/** cleanText applied to every string (keys too) of a parsed JSON value. */
export function deepCleanStrings(value: unknown): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (Array.isArray(value)) return value.map(deepCleanStrings);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanText(k), deepCleanStrings(v)]));
  }
  return value;
}

function marker(cutBytes: number): string {
  return `\n[… flowfix cut ${cutBytes} bytes of this log …]\n`;
}

/** Byte length of the longest prefix of `buf` up to `n` bytes that ends on a character boundary. */
function prefixOnBoundary(buf: Buffer, n: number): number {
  let end = Math.min(n, buf.length);
  // step back over continuation bytes (10xxxxxx) so we never split a character
  while (end > 0 && end < buf.length && (buf[end] & 0xc0) === 0x80) end--;
  return end;
}

function suffixStartOnBoundary(buf: Buffer, n: number): number {
  let start = Math.max(0, buf.length - n);
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return start;
}

/**
 * Cuts a log to at most `maxBytes` UTF-8 bytes, keeping its head (where the
 * set-up and the first error usually are) and its tail (where the summary
 * and the crash usually are), with a marker in between saying how many bytes
 * were cut. `truncatedBytes` counts only the removed bytes of the original.
 */
export function truncateHeadTail({ text, maxBytes }: { text: string; maxBytes: number }): {
  text: string;
  truncatedBytes: number;
} {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return { text, truncatedBytes: 0 };
  // the marker's own length depends on the number in it: size it for the worst case
  const budget = Math.max(0, maxBytes - Buffer.byteLength(marker(buf.length)));
  const headEnd = prefixOnBoundary(buf, Math.ceil(budget / 2));
  const tailStart = suffixStartOnBoundary(buf, budget - headEnd);
  const cut = tailStart - headEnd;
  return {
    text: buf.subarray(0, headEnd).toString('utf8') + marker(cut) + buf.subarray(tailStart).toString('utf8'),
    truncatedBytes: cut,
  };
}
