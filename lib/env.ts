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

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    // postgresql://… → that server; pglite:///abs/path or pglite://memory → embedded;
    // unset → embedded PGlite in $FLOWFIX_DATA_DIR/pglite
    DATABASE_URL: z
      .string()
      .regex(/^(postgres(ql)?|pglite):\/\//, 'must start with postgresql:// or pglite://')
      .optional(),
    FLOWFIX_DATA_DIR: z.string().default('.data'),
    NEXTAUTH_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    NEXTAUTH_URL: z.string().url().optional(),
    // demo mode shows the demo users' passwords on the sign-in page
    FLOWFIX_DEMO: bool,
    // optional OIDC provider for real deployments
    OIDC_ISSUER: z.string().url().optional(),
    OIDC_CLIENT_ID: z.string().optional(),
    OIDC_CLIENT_SECRET: z.string().optional(),
    OIDC_NAME: z.string().default('Single sign-on'),
    // hosted model (OpenAI-compatible); the key never leaves the server process
    FLOWFIX_MODEL_BASE_URL: z.string().url().optional(),
    FLOWFIX_MODEL_API_KEY: z.string().optional(),
    FLOWFIX_MODEL: z.string().optional(),
    // ingestion limits
    FLOWFIX_MAX_UPLOAD_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(20 * 1024 * 1024),
    FLOWFIX_MAX_LOG_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(256 * 1024),
    FLOWFIX_WORKER_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(1),
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
      }),
    // replaced by FLOWFIX_TRUSTED_PROXIES: a count cannot tell a proxy from a client
    FLOWFIX_TRUSTED_PROXY_HOPS: z
      .string()
      .optional()
      .refine((v) => v === undefined || v.trim() === '' || v.trim() === '0', {
        message: 'is no longer read: list your proxies’ addresses in FLOWFIX_TRUSTED_PROXIES instead (e.g. 127.0.0.1 for a proxy on this host)',
      }),
    // the key that encrypts code-host secrets at rest (lib/hosts/secrets.ts):
    // 32 random bytes in base64 (`openssl rand -base64 32`); its id is stored
    // with every ciphertext. FLOWFIX_SECRETS_OLD_KEYS: earlier keys as
    // id:base64 pairs, comma-separated, still able to decrypt after a rotation
    FLOWFIX_SECRETS_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes in base64 (openssl rand -base64 32)')
      .optional(),
    FLOWFIX_SECRETS_KEY_ID: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - only')
      .default('k1'),
    FLOWFIX_SECRETS_OLD_KEYS: z
      .string()
      .regex(/^([A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=]+)(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=]+)*$/, 'id:base64 pairs, comma-separated')
      .optional(),
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
