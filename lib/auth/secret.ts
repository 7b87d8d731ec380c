import { getEnv } from '../env';

// Production refuses to start without NEXTAUTH_SECRET (lib/env.ts). In
// development and tests a fixed secret keeps `next dev` usable out of the box;
// `npm run demo` generates a real one into .data/.
const DEV_ONLY_SECRET = 'flowfix-development-secret-not-for-production';

export function getAuthSecret(): string {
  return getEnv().NEXTAUTH_SECRET ?? DEV_ONLY_SECRET;
}

export function useSecureCookies(): boolean {
  return getEnv().NEXTAUTH_URL?.startsWith('https://') ?? false;
}
