import 'server-only';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { getEnv } from '../env';
import { AppError } from '../errors';

// Secrets at rest: the code hosts' App private keys, webhook secrets and
// tokens are stored only as ciphertexts. AES-256-GCM with a fresh 96-bit
// nonce per value, and the purpose of the value (which column of which host)
// as additional authenticated data, so a ciphertext copied into another
// column or row does not decrypt. The stored form names its format version
// and its key id:
//
//   ffs1:<key id>:<nonce, base64url>:<ciphertext ‖ 16-byte tag, base64url>
//
// so the key can be rotated: FLOWFIX_SECRETS_KEY (with FLOWFIX_SECRETS_KEY_ID)
// encrypts, and FLOWFIX_SECRETS_OLD_KEYS still decrypt what older keys wrote.

const VERSION = 'ffs1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretKey {
  id: string;
  key: Buffer;
}

export interface SecretBox {
  readonly keyId: string;
  encrypt(plaintext: string, purpose: string): string;
  decrypt(stored: string, purpose: string): string;
}

export class SecretDecryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretDecryptError';
  }
}

export function createSecretBox({ current, old = [] }: { current: SecretKey; old?: SecretKey[] }): SecretBox {
  for (const k of [current, ...old]) {
    if (k.key.length !== 32) throw new Error(`secret key ${k.id} is ${k.key.length} bytes; AES-256 needs 32`);
  }
  const keys = new Map([...old, current].map((k) => [k.id, k.key]));
  return {
    keyId: current.id,
    encrypt(plaintext, purpose) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, nonce);
      cipher.setAAD(Buffer.from(purpose, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, current.id, nonce.toString('base64url'), body.toString('base64url')].join(':');
    },
    decrypt(stored, purpose) {
      const parts = stored.split(':');
      if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretDecryptError('not a flowfix secret (unknown format)');
      const [, keyId, nonceText, bodyText] = parts;
      const key = keys.get(keyId);
      if (!key) throw new SecretDecryptError(`the secret was encrypted with key "${keyId}", which is not configured (FLOWFIX_SECRETS_OLD_KEYS)`);
      const nonce = Buffer.from(nonceText, 'base64url');
      const body = Buffer.from(bodyText, 'base64url');
      if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) throw new SecretDecryptError('the secret is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, nonce);
      decipher.setAAD(Buffer.from(purpose, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretDecryptError('the secret does not decrypt with its key (tampered, or stored for another purpose)');
      }
    },
  };
}

/** The process's box, from FLOWFIX_SECRETS_KEY; a 409 naming the variable when it is not set. */
export function secretBox(): SecretBox {
  const env = getEnv();
  if (!env.FLOWFIX_SECRETS_KEY) {
    throw new AppError(
      'conflict',
      'FLOWFIX_SECRETS_KEY is not set: code-host secrets cannot be stored or read. Set it to 32 random bytes in base64 (openssl rand -base64 32) and restart.',
    );
  }
  const old = (env.FLOWFIX_SECRETS_OLD_KEYS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':');
      return { id: pair.slice(0, at), key: Buffer.from(pair.slice(at + 1), 'base64') };
    });
  return createSecretBox({ current: { id: env.FLOWFIX_SECRETS_KEY_ID, key: Buffer.from(env.FLOWFIX_SECRETS_KEY, 'base64') }, old });
}
