import 'server-only';
import net from 'node:net';
import { z } from 'zod';

// The one place that reads process.env. Everything else calls getEnv().
// Validation is lazy (first call) so `next build` does not need runtime
// secrets, but the server, the worker and the CLI call it at start-up and fail
// with a message naming each bad variable.

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

// Each variable's .describe() is its row in docs/deploy.md's table, which
// `npm run docs:env` (scripts/env-docs.ts) generates from this schema.
export const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development').describe('`production` makes `NEXTAUTH_SECRET` required'),
    // postgresql://… → that server; pglite:///abs/path or pglite://memory → embedded;
    // unset → embedded PGlite in $FLOWFIX_DATA_DIR/pglite
    DATABASE_URL: z
      .string()
      .regex(/^(postgres(ql)?|pglite):\/\//, 'must start with postgresql:// or pglite://')
      .optional()
      .describe(
        '`postgresql://…` for a PostgreSQL server (needed for separate workers); `pglite:///absolute/folder` or `pglite://memory` for an embedded database elsewhere or in memory; unset: embedded PGlite in `$FLOWFIX_DATA_DIR/pglite`',
      ),
    FLOWFIX_DATA_DIR: z
      .string()
      .default('.data')
      .describe("the data folder: the embedded database, the demo's generated session secret, the repositories' dependency caches (`dependency-cache/`)"),
    NEXTAUTH_SECRET: z
      .string()
      .min(16, 'must be at least 16 characters')
      .optional()
      .describe('the session secret, at least 16 characters; required in production (`NODE_ENV=production`); the demo generates one into `.data/auth-secret`'),
    NEXTAUTH_URL: z
      .string()
      .url()
      .optional()
      .describe('the public URL (unset: `http://localhost:3000`); a state-changing request authorised by the session cookie must come from its origin'),
    // demo mode shows the demo users' passwords on the sign-in page
    FLOWFIX_DEMO: bool.describe("demo mode (`1`, `true`, `yes`): the sign-in page shows the demo users' passwords (`npm run demo` sets it)"),
    // optional OIDC provider for real deployments
    OIDC_ISSUER: z
      .string()
      .url()
      .optional()
      .describe('single sign-on: the OIDC issuer URL; all three `OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET` or none (new users start with no role)'),
    OIDC_CLIENT_ID: z.string().optional().describe('single sign-on: the client id'),
    OIDC_CLIENT_SECRET: z.string().optional().describe('single sign-on: the client secret'),
    OIDC_NAME: z.string().default('Single sign-on').describe("the single sign-on button's name"),
    // hosted model (OpenAI-compatible); the key never leaves the server process
    FLOWFIX_MODEL_BASE_URL: z
      .string()
      .url()
      .optional()
      .describe("the default model endpoint (a repository's model settings may override it); unset: the offline policy repairs"),
    FLOWFIX_MODEL_API_KEY: z
      .string()
      .optional()
      .describe("the model endpoint's key, sent as `Authorization: Bearer` or Azure's `api-key` header; unset: no credential is sent (local servers)"),
    FLOWFIX_MODEL: z.string().optional().describe("the default model (a repository's model settings may override it)"),
    // ingestion limits
    FLOWFIX_MAX_UPLOAD_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(20 * 1024 * 1024)
      .describe('the largest accepted upload (a failure report with its files), in bytes'),
    FLOWFIX_MAX_LOG_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(256 * 1024)
      .describe('the most of a test log kept per failure, in bytes'),
    FLOWFIX_WORKER_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(0)
      .max(64)
      .default(1)
      .describe('runs per worker process, 0 to 64 (0: this process runs none); in embedded mode also whether the server runs the webhook jobs'),
    // the reverse proxies in front of flowfix, as addresses or CIDR ranges,
    // comma-separated (lib/http/client-address.ts): a request from one of them
    // is taken to come from the address it appended to X-Forwarded-For. Unset:
    // none, so the client's address is the connection's own and the header is
    // ignored as the client's word
    FLOWFIX_TRUSTED_PROXIES: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const entries = (v ?? '')
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean);
        for (const entry of entries.filter((e) => !isAddressOrRange(e))) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is neither an IP address nor a CIDR range (e.g. 10.0.0.0/8)` });
        }
        return entries;
      })
      .describe(
        'the reverse proxies in front, as addresses or CIDR ranges, comma-separated (`127.0.0.1` for a proxy on this host); only a connection from one of them is taken to come from the address it appended to `X-Forwarded-For`; unset: none',
      ),
    // replaced by FLOWFIX_TRUSTED_PROXIES: a count cannot tell a proxy from a client
    FLOWFIX_TRUSTED_PROXY_HOPS: z
      .string()
      .optional()
      .refine((v) => v === undefined || v.trim() === '' || v.trim() === '0', {
        message: 'is no longer read: list your proxies’ addresses in FLOWFIX_TRUSTED_PROXIES instead (e.g. 127.0.0.1 for a proxy on this host)',
      })
      .describe('replaced by `FLOWFIX_TRUSTED_PROXIES`; refused when set to anything but empty or `0`'),
    // the key that encrypts code-host secrets at rest (lib/hosts/secrets.ts):
    // 32 random bytes in base64 (`openssl rand -base64 32`); its id is stored
    // with every ciphertext. FLOWFIX_SECRETS_OLD_KEYS: earlier keys as
    // id:base64 pairs, comma-separated, still able to decrypt after a rotation
    FLOWFIX_SECRETS_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes in base64 (openssl rand -base64 32)')
      .optional()
      .describe(
        '32 random bytes in base64 (`openssl rand -base64 32`) that encrypt code-host secrets at rest (AES-256-GCM); unset: no code host can be registered',
      ),
    FLOWFIX_SECRETS_KEY_ID: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - only')
      .default('k1')
      .describe("`FLOWFIX_SECRETS_KEY`'s id (letters, digits, `_`, `-`), stored with each ciphertext"),
    FLOWFIX_SECRETS_OLD_KEYS: z
      .string()
      .regex(/^([A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=]+)(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=]+)*$/, 'id:base64 pairs, comma-separated')
      .optional()
      .describe('earlier keys as `id:base64,…`, so secrets encrypted before a rotation still decrypt'),
  })
  .superRefine((e, ctx) => {
    if (e.NODE_ENV === 'production' && !e.NEXTAUTH_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['NEXTAUTH_SECRET'], message: 'is required in production' });
    }
    const oidc = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].filter(Boolean).length;
    if (oidc > 0 && oidc < 3) {
      ctx.addIssue({
        code: 'custom',
        path: ['OIDC_ISSUER'],
        message: 'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together',
      });
    }
  });

function isAddressOrRange(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}\nSee .env.example.`);
  }
  return result.data;
}

export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/**
 * The origin browsers reach flowfix at (NEXTAUTH_URL, default the local
 * server): the only origin a session cookie may change anything from.
 */
export function publicOrigin(): string {
  return new URL(getEnv().NEXTAUTH_URL ?? 'http://localhost:3000').origin;
}

/** The names of variables that hold secrets: never passed to test commands. */
export const SECRET_ENV_NAMES = [
  'DATABASE_URL',
  'NEXTAUTH_SECRET',
  'OIDC_CLIENT_SECRET',
  'FLOWFIX_MODEL_API_KEY',
  'FLOWFIX_SECRETS_KEY',
  'FLOWFIX_SECRETS_OLD_KEYS',
] as const;

/**
 * The few inherited variables a sandboxed command may see (agent/workspace/exec.ts
 * builds its environment from an allow-list). Reading them here keeps this
 * module the only reader of process.env; secrets are never on the list.
 */
export function readInheritedEnv(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    if ((SECRET_ENV_NAMES as readonly string[]).includes(name)) continue;
    const value = process.env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
