// The Content-Security-Policy of every page, with a fresh nonce per request
// (proxy.ts makes it and hands it to Next in the request's own CSP header,
// where Next finds it and puts it on every script it renders; so pages are
// rendered per request, see app/layout.tsx).
//
// - scripts: only ours, by nonce; 'strict-dynamic' lets those load Next's
//   chunks and Monaco's lazily imported code. No 'unsafe-inline', no origin
//   but our own: an injected <script> or onerror= attribute does not run.
// - styles: 'unsafe-inline' because Monaco writes <style> elements and
//   style="" attributes at run time (it has no nonce hook for them), and
//   React's style props need it too. Styles cannot run code.
// - workers: Monaco's editor worker is a file bundled from the local
//   package and served from our origin (components/diff/monaco-setup.ts).
// - fonts: Monaco's codicon font is a bundled file, data: for the fallback.
// - 'unsafe-eval' in development only: React's dev build and Fast Refresh
//   evaluate code; the production build never does.

export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
}

export function contentSecurityPolicy(nonce: string, { development = false }: { development?: boolean } = {}): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", `'nonce-${nonce}'`, "'strict-dynamic'", ...(development ? ["'unsafe-eval'"] : [])],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'", 'data:'],
    'worker-src': ["'self'"],
    'connect-src': ["'self'", ...(development ? ['ws:'] : [])],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

/** The nonce of a policy made by contentSecurityPolicy (the page's own inline script carries it), or undefined. */
export function nonceFromPolicy(csp: string | null | undefined): string | undefined {
  return /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp ?? '')?.[1];
}
