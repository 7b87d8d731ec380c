import http from 'node:http';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page, type Response } from '@playwright/test';
import { signInAs } from './helpers';

// The browser is the client here: every page is served with a nonce-based
// Content-Security-Policy that Next's scripts, Monaco and its worker satisfy
// (Chromium reports no violation anywhere), and a page on a sibling origin
// cannot use a signed-in person's cookie to change anything.

/** Every CSP violation Chromium reports on the page, as text. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeBinding('__flowfixCspViolation', (_source, v: string) => {
    violations.push(v);
  });
  // init scripts run through the DevTools protocol, outside the page's CSP
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __flowfixCspViolation: (v: string) => void }).__flowfixCspViolation;
      void report(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} ${e.sample} on ${location.pathname}`);
    });
  });
  page.on('console', (m) => {
    if (/content.security.policy/i.test(m.text())) violations.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => {
    if (/content.security.policy|EvalError/i.test(String(err))) violations.push(`page error: ${String(err)}`);
  });
  return violations;
}

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name, values]),
  );
}

/** The page's security headers, and the nonce every server-rendered script carries. */
async function assertDocumentHeaders(res: Response): Promise<string> {
  const headers = await res.allHeaders();
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(headers['permissions-policy']).toContain('camera=()');
  expect(headers['permissions-policy']).toContain('microphone=()');
  const csp = headers['content-security-policy'];
  expect(csp, `CSP on ${res.url()}`).toBeTruthy();
  const d = directives(csp);
  const script = d.get('script-src') ?? [];
  const nonce = script.find((v) => v.startsWith("'nonce-"))?.slice(7, -1);
  expect(nonce, script.join(' ')).toBeTruthy();
  expect(script).toContain("'strict-dynamic'");
  expect(script).not.toContain("'unsafe-inline'");
  expect(script).not.toContain("'unsafe-eval'");
  expect(d.get('object-src')).toEqual(["'none'"]);
  expect(d.get('frame-ancestors')).toEqual(["'none'"]);
  expect(d.get('base-uri')).toEqual(["'self'"]);
  // no third-party origin and no wildcard anywhere in the policy
  for (const [name, values] of d) {
    for (const v of values) expect(/^(https?:|\*|wss?:)/.test(v), `${name} ${v}`).toBe(false);
  }
  // every script tag in the server's HTML (Next's chunks and its inline
  // flight data) carries this request's nonce
  const html = await res.text();
  const tags = html.match(/<script\b[^>]*>/g) ?? [];
  expect(tags.length).toBeGreaterThan(0);
  for (const tag of tags) expect(tag, tag).toContain(`nonce="${nonce}"`);
  return nonce!;
}

async function visit(page: Page, url: string, statuses: number[] = [200]): Promise<{ res: Response; nonce: string }> {
  const res = (await page.goto(url))!;
  expect(statuses, `${url} answered ${res.status()}`).toContain(res.status());
  return { res, nonce: await assertDocumentHeaders(res) };
}

test('every page has the CSP, Permissions-Policy and frame headers, and Chromium reports no CSP violation', async ({ page }) => {
  test.setTimeout(180_000);
  const violations = await watchCsp(page);

  // anonymous: the sign-in page, and signing in through it
  const first = await visit(page, '/signin');
  await expect(page.getByTestId('signin-submit')).toBeVisible();
  const second = await visit(page, '/signin');
  expect(second.nonce).not.toBe(first.nonce);
  await signInAs(page, 'admin');

  await visit(page, '/changes');
  await expect(page.getByTestId('triage-row').first()).toBeVisible();

  await visit(page, '/review');
  // the demo history keeps the queue full whatever other specs decided
  await page.getByTestId('queue-include-history').check();
  const item = page.getByTestId('queue-item').first();
  await expect(item).toBeVisible();
  const fixId = (await item.getAttribute('data-fix-id'))!;
  await item.click();
  const href = (await page.getByTestId('queue-open').getAttribute('href'))!;

  // the change page with the fix's Monaco diff open: Monaco's code, styles,
  // font and worker all load under the policy
  await visit(page, href);
  await expect(page.getByTestId('fix-card')).toBeVisible();
  await page.getByTestId('fix-toggle-diff').click();
  await expect(page.locator('.monaco-diff-editor')).toBeVisible();
  await expect(page.locator('.monaco-diff-editor .line-insert, .monaco-diff-editor .char-insert').first()).toBeVisible();

  const fix = (await (await page.request.get(`/api/fixes/${fixId}`)).json()) as { runId: string };
  await visit(page, `/runs/${fix.runId}`);
  await expect(page.getByTestId('run-status')).toBeVisible();

  for (const tab of ['users', 'tokens', 'repositories']) {
    await visit(page, `/admin?tab=${tab}`);
    await expect(page.getByTestId(`admin-panel-${tab}`)).toBeVisible();
  }
  await expect(page.getByTestId('repo-row').first()).toBeVisible();

  await visit(page, '/settings/tokens');
  await expect(page.getByTestId('personal-token-form')).toBeVisible();

  // the forbidden page, as someone without the admin role
  await page.context().clearCookies();
  await signInAs(page, 'reviewer');
  // (shown at /forbidden after a redirect, or with status 403 at the address asked for)
  await visit(page, '/admin', [200, 403]);
  await expect(page.getByRole('heading', { name: 'Not allowed' })).toBeVisible();

  expect(violations).toEqual([]);
});

test('the policy is enforced: markup injected into a page cannot run script, and Chromium reports it', async ({ page }) => {
  const violations = await watchCsp(page);
  await signInAs(page, 'reviewer');
  // what a stored XSS would do: markup in our own HTML, served with our headers
  await page.route('**/changes', async (route) => {
    const res = await route.fetch();
    const html = (await res.text()).replace(
      '</body>',
      '<script>window.__injectedRan = "inline"</script><img src="data:," onerror="window.__injectedRan = \'handler\'"></body>',
    );
    await route.fulfill({ response: res, body: html });
  });
  await page.goto('/changes');
  await expect(page.getByTestId('triage-row').first()).toBeVisible();
  await expect.poll(() => violations.filter((v) => v.startsWith('script-src-elem')).length).toBeGreaterThan(0);
  await expect.poll(() => violations.filter((v) => v.startsWith('script-src-attr')).length).toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as unknown as { __injectedRan?: string }).__injectedRan ?? null)).toBeNull();
  // and nothing else on the page was blocked
  expect(violations.filter((v) => !/inline|__injectedRan/.test(v))).toEqual([]);
});

test('a page on a sibling origin cannot use a signed-in cookie: forged form posts are refused and change nothing', async ({ page, baseURL }) => {
  // The attacker's page: same host, another port, so "same-site" — the
  // browser sends the SameSite=Lax session cookie with its top-level POST.
  // text/plain forms can carry a body that parses as JSON.
  const target = new URL(baseURL!);
  const email = `csrf-${Date.now()}@attacker.test`;
  const forms: Record<string, string> = {
    '/create-admin': `<form method="POST" action="${target.origin}/api/admin/users" enctype="text/plain">
      <input type="hidden" name='{"email":"${email}","name":"Forged","password":"forged-password-1","roles":["ADMIN"],"pad":"' value='"}'>
    </form>`,
    '/sign-out': `<form method="POST" action="${target.origin}/api/auth/signout"><input type="hidden" name="csrfToken" value="x"></form>`,
  };
  const attacker = http.createServer((req, res) => {
    const form = forms[req.url ?? ''];
    res.writeHead(form ? 200 : 404, { 'content-type': 'text/html' });
    res.end(form ? `<!doctype html><body>${form}<script>document.forms[0].submit()</script></body>` : 'not found');
  });
  await new Promise<void>((resolve) => attacker.listen(0, target.hostname, resolve));
  const attackerOrigin = `http://${target.hostname}:${(attacker.address() as AddressInfo).port}`;
  try {
    await signInAs(page, 'admin');

    const created = page.waitForResponse((r) => r.url() === `${target.origin}/api/admin/users` && r.request().method() === 'POST');
    await page.goto(`${attackerOrigin}/create-admin`);
    const res = await created;
    // 403 from the origin check, not 401: the cookie did arrive
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain('Cross-origin request refused');
    const users = (await (await page.request.get('/api/admin/users')).json()) as { users: Array<{ email: string }> };
    expect(users.users.map((u) => u.email)).not.toContain(email);

    const signOut = page.waitForResponse((r) => r.url().startsWith(`${target.origin}/api/auth/signout`) && r.request().method() === 'POST');
    await page.goto(`${attackerOrigin}/sign-out`);
    expect((await signOut).status()).toBe(403);
    // still signed in
    await page.goto('/changes');
    await expect(page.getByTestId('current-user')).toBeVisible();

    // the same change from our own page works (the browser's own fetch, same origin, JSON)
    const ok = await page.evaluate(async (mail) => {
      const r = await fetch('/api/admin/users', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: mail, name: 'Own page', password: 'own-page-password-1', roles: [] }),
      });
      return r.status;
    }, `own-${email}`);
    expect(ok).toBe(201);
  } finally {
    await new Promise((resolve) => attacker.close(resolve));
  }
});

/** The local addresses that listen on `port` over TCP, read from the kernel's socket tables (Linux). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    let table: string;
    try {
      table = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of table.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [addr, p] = local.split(':');
      if (p !== hexPort) continue;
      found.push(
        v6
          ? /^0+$/.test(addr)
            ? '::'
            : /^0{24}01000000$/.test(addr)
              ? '::1'
              : addr
          : addr
              .match(/../g)!
              .reverse()
              .map((b) => parseInt(b, 16))
              .join('.'),
      );
    }
  }
  return found;
}

test('the demo server listens on loopback only: its sign-in page shows the demo passwords', async ({ baseURL }) => {
  const port = Number(new URL(baseURL!).port);
  const addresses = listeningAddresses(port);
  expect(addresses, `listening sockets on port ${port}`).not.toHaveLength(0);
  expect(
    addresses.every((a) => a === '127.0.0.1' || a === '::1'),
    `listens on ${addresses.join(', ')}`,
  ).toBe(true);
});
