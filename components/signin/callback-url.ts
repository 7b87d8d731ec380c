// Where to go after signing in. Only a same-origin relative path is accepted:
// an absolute URL (or a protocol-relative "//host", or "/\host" that browsers
// read as one) from the query string would make the sign-in page an open
// redirect.

// the home page, which sends each user to the first page their roles open
export const DEFAULT_AFTER_SIGNIN = '/';

const BASE = 'http://flowfix.invalid';

export function safeCallbackUrl(raw: string | string[] | null | undefined): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return DEFAULT_AFTER_SIGNIN;
  // control characters and backslashes are never part of a path we issue
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return DEFAULT_AFTER_SIGNIN;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return DEFAULT_AFTER_SIGNIN;
  }
  if (url.origin !== BASE) return DEFAULT_AFTER_SIGNIN;
  // never bounce back to the sign-in page or into next-auth's own endpoints
  if (url.pathname === '/signin' || url.pathname.startsWith('/api/auth')) return DEFAULT_AFTER_SIGNIN;
  return `${url.pathname}${url.search}${url.hash}`;
}
