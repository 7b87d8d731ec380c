import { readRunEvent, type PublicRunEvent } from '../../common/run-events';

// The public projection of a run event: what a browser may see. Events are
// written by the agent, which promises never to put secrets in them; this is
// the second line of defence, applied to every event on its way out (SSE, the
// run page). Then the projected payload is read through the run-event
// contract, so the browser gets typed events. Pure functions with no server
// imports.

// Keys whose values never leave the server, whatever they hold. Exact names
// (case-insensitive, `-`/`_` ignored) so counters such as promptTokens stay.
const SECRET_KEYS = new Set([
  'apikey',
  'key',
  'secret',
  'clientsecret',
  'password',
  'passwd',
  'passwordhash',
  'authorization',
  'auth',
  'cookie',
  'setcookie',
  'headers',
  'env',
  'environment',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'bearer',
  'privatekey',
  'credentials',
  'databaseurl',
  'connectionstring',
  'systemprompt',
]);

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

export const REDACTED = '[redacted]';

// Shapes of credentials that may turn up in logs and tool output.
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, REDACTED],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bffx_[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/g, REDACTED],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]{8,}=*/gi, `$1 ${REDACTED}`],
  // credentials inside URLs: scheme://user:password@host
  [/\b([a-z][a-z0-9+.-]*:\/\/[^:\s/@]+:)[^@\s/]+@/gi, `$1${REDACTED}@`],
  // NAME=value for variables that hold secrets (env dumps in logs)
  [/\b([A-Z0-9_]*(?:SECRET|PASSWORD|API_KEY|APIKEY|TOKEN|PRIVATE_KEY|DATABASE_URL)[A-Z0-9_]*)=("[^"]*"|'[^']*'|\S+)/g, `$1=${REDACTED}`],
];

/** Longest string sent in one event; the agent already clips observations far below this. */
export const MAX_STRING_CHARS = 64 * 1024;
const MAX_ARRAY_ITEMS = 500;
const MAX_DEPTH = 8;

export interface ProjectionOptions {
  /** exact values to redact wherever they appear (the process's secrets) */
  secretValues?: readonly string[];
}

function redactString(text: string, secretValues: readonly string[]): string {
  let out = text;
  for (const value of secretValues) {
    if (out.includes(value)) out = out.split(value).join(REDACTED);
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  if (out.length > MAX_STRING_CHARS) {
    out = `${out.slice(0, MAX_STRING_CHARS)}\n… [${out.length - MAX_STRING_CHARS} more characters not sent]`;
  }
  return out;
}

function projectValue(value: unknown, depth: number, secretValues: readonly string[]): unknown {
  if (typeof value === 'string') return redactString(value, secretValues);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ARRAY_ITEMS).map((v) => projectValue(v, depth + 1, secretValues));
    if (value.length > MAX_ARRAY_ITEMS) items.push(`[${value.length - MAX_ARRAY_ITEMS} more items not sent]`);
    return items;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (SECRET_KEYS.has(normaliseKey(key))) continue;
      out[key] = projectValue(v, depth + 1, secretValues);
    }
    return out;
  }
  // undefined, functions, bigints: not JSON a browser needs
  return undefined;
}

/** Strips secret-named keys and redacts secret-looking or known secret values, recursively. */
export function publicPayload(payload: unknown, { secretValues = [] }: ProjectionOptions = {}): Record<string, unknown> {
  // short values would redact ordinary words ("test", "dev")
  const values = secretValues.filter((v) => typeof v === 'string' && v.length >= 8);
  const projected = projectValue(payload, 0, values);
  if (projected && typeof projected === 'object' && !Array.isArray(projected)) return projected as Record<string, unknown>;
  return projected === undefined ? {} : { value: projected };
}

export function toPublicEvent(row: { seq: number; type: string; payload: unknown; createdAt: Date }, options: ProjectionOptions = {}): PublicRunEvent {
  return readRunEvent({ seq: row.seq, type: row.type, at: row.createdAt.toISOString(), payload: publicPayload(row.payload, options) });
}
