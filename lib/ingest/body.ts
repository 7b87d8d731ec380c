import { AppError } from '../errors';
import { IngestMetadataSchema, type IngestMetadata } from './schema';
import { cleanText, decodeUtf8, deepCleanStrings } from './text';

// Reading an upload from CI. The size limit is enforced on the bytes as they
// stream in: Content-Length is only used to refuse early, never trusted to be
// present or honest (chunked uploads have none). Multipart parsing happens
// only after the whole body is known to be within the limit.

export interface IngestUpload {
  metadata: IngestMetadata;
  /** raw JUnit reports (bytes from file parts, strings from JSON) */
  junitReports: Array<string | Uint8Array>;
  /** the CI log, decoded and cleaned, not yet truncated */
  log?: string;
}

function tooLarge(maxBytes: number, seen: string): AppError {
  return new AppError('payload_too_large', `Upload is ${seen}; the limit is ${maxBytes} bytes (FLOWFIX_MAX_UPLOAD_BYTES)`, {
    details: { maxBytes },
  });
}

/** Reads a request body into memory, failing with 413 as soon as it exceeds `maxBytes`. */
export async function readLimitedBody({ req, maxBytes }: { req: Request; maxBytes: number }): Promise<Uint8Array<ArrayBuffer>> {
  const declared = req.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    throw tooLarge(maxBytes, `${declared} bytes`);
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // stop the client mid-stream instead of buffering the rest
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes, `more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_request', `${what} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}

function validateMetadata(raw: unknown): IngestMetadata {
  // zod errors become 422 through toHttpError
  return IngestMetadataSchema.parse(deepCleanStrings(raw));
}

function mediaType(req: Request): string {
  return (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

async function partBytes(part: FormDataEntryValue): Promise<Uint8Array | string> {
  return typeof part === 'string' ? part : new Uint8Array(await part.arrayBuffer());
}

async function partText(part: FormDataEntryValue): Promise<string> {
  return typeof part === 'string' ? part : decodeUtf8(new Uint8Array(await part.arrayBuffer()));
}

async function readMultipart({ req, bytes }: { req: Request; bytes: Uint8Array<ArrayBuffer> }): Promise<IngestUpload> {
  let form: FormData;
  try {
    // re-wrap the already size-checked bytes: the original body stream is consumed
    form = await new Request('http://flowfix.invalid/', {
      method: 'POST',
      headers: { 'content-type': req.headers.get('content-type') ?? '' },
      body: bytes,
    }).formData();
  } catch (err) {
    throw new AppError('bad_request', 'The multipart body could not be parsed', { cause: err });
  }
  const metadataPart = form.get('metadata');
  if (metadataPart === null) {
    throw new AppError('bad_request', 'The multipart body needs a `metadata` part holding the change as JSON');
  }
  const metadata = validateMetadata(parseJsonText(await partText(metadataPart), 'The `metadata` part'));
  const junitReports: Array<string | Uint8Array> = [...toArray(metadata.junit)];
  for (const part of form.getAll('junit')) junitReports.push(await partBytes(part));
  const logPart = form.get('log');
  const log = logPart === null ? metadata.log : cleanText(await partText(logPart));
  return { metadata, junitReports, log };
}

function toArray(junit: string | string[] | undefined): string[] {
  if (junit === undefined) return [];
  return Array.isArray(junit) ? junit : [junit];
}

/** Reads and validates an ingestion request: JSON or multipart/form-data. */
export async function readIngestUpload({ req, maxBytes }: { req: Request; maxBytes: number }): Promise<IngestUpload> {
  const type = mediaType(req);
  if (type !== 'application/json' && type !== 'multipart/form-data') {
    throw new AppError('unsupported_media_type', `Content-Type ${type || '(none)'} is not supported; send application/json or multipart/form-data`);
  }
  const bytes = await readLimitedBody({ req, maxBytes });
  if (type === 'multipart/form-data') return readMultipart({ req, bytes });
  const metadata = validateMetadata(parseJsonText(decodeUtf8(bytes), 'The request body'));
  return { metadata, junitReports: toArray(metadata.junit), log: metadata.log };
}
