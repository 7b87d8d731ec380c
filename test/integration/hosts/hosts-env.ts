// Imported first by the code-host tests: the secrets key must be in the
// environment before lib/env.ts reads it (once, on first use).
import { randomBytes } from 'node:crypto';

process.env.FLOWFIX_SECRETS_KEY ??= randomBytes(32).toString('base64');
process.env.FLOWFIX_SECRETS_KEY_ID ??= 'test1';
