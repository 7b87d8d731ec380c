import 'server-only';
import { inflateRawSync } from 'node:zlib';

// Reads the entries of a zip archive (GitHub Actions artifacts are served as
// zips) from memory: the central directory, then each wanted entry's data,
// stored or deflated. Bounded: an entry whose inflated size would pass
// maxEntryBytes is refused before and while inflating (a zip bomb declares a
// small size and inflates to gigabytes; zlib's maxOutputLength stops it).

export class ZipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipError';
  }
}

export interface ZipEntry {
  name: string;
  /** the inflated size the archive declares */
  size: number;
  read(): Buffer;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

function findEndOfCentralDirectory(zip: Buffer): number {
  // the record is 22 bytes plus a comment of at most 65535
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === EOCD_SIGNATURE) return at;
  }
  throw new ZipError('not a zip archive (no end of central directory)');
}

export function readZip(zip: Buffer, { maxEntryBytes }: { maxEntryBytes: number }): ZipEntry[] {
  if (zip.length < 22) throw new ZipError('not a zip archive (too short)');
  const eocd = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_SIGNATURE) throw new ZipError('corrupt central directory');
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    entries.push({
      name,
      size,
      read() {
        if (flags & 0x1) throw new ZipError(`${name} is encrypted`);
        if (size > maxEntryBytes) throw new ZipError(`${name} is ${size} bytes inflated; the limit is ${maxEntryBytes}`);
        if (localOffset + 30 > zip.length || zip.readUInt32LE(localOffset) !== LOCAL_SIGNATURE) throw new ZipError(`corrupt local header for ${name}`);
        const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
        const data = zip.subarray(start, start + compressedSize);
        if (data.length !== compressedSize) throw new ZipError(`${name} is truncated`);
        if (method === 0) return Buffer.from(data);
        if (method !== 8) throw new ZipError(`${name} uses compression method ${method}; only stored and deflated entries are read`);
        try {
          return inflateRawSync(data, { maxOutputLength: maxEntryBytes });
        } catch (err) {
          throw new ZipError(`${name} does not inflate within ${maxEntryBytes} bytes: ${(err as Error).message}`);
        }
      },
    });
  }
  return entries;
}

/** A path glob as a regular expression: `**` any folders, `*` within one segment, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // "**/" matches zero or more folders; a trailing "**" anything
      if (glob[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}
