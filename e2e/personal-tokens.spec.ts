import { execFile } from 'node:child_process';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { signInAs } from './helpers';

// Personal tokens end to end: made on their page under the user's menu, then
// used by the real CLI (bin/flowfix.mjs in a child process) and plain HTTP
// against the real server, through proxy.ts and the route wrapper, with no
// cookie. Revoking on the page locks the CLI out at once.

const BIN = path.resolve('bin/flowfix.mjs');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // the CLI talks only to the server: a database it could reach would hide a bug
  const env = { ...process.env, DATABASE_URL: 'postgresql://nowhere.invalid/x' };
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, cwd: process.cwd() }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function createToken(page: Page, { name, scope }: { name: string; scope: 'read' | 'decide' }): Promise<string> {
  await page.getByTestId('personal-token-name').fill(name);
  await page.getByTestId(`personal-token-scope-${scope}`).check();
  await page.getByTestId('personal-token-expiry').selectOption('30');
  await page.getByTestId('personal-token-create').click();
  const value = page.getByTestId('personal-token-value');
  await expect(value).toHaveValue(/^ffp_/);
  const token = await value.inputValue();
  await page.getByTestId('personal-token-done').click();
  await expect(page.getByTestId('personal-token-issued')).toHaveCount(0);
  return token;
}

test('a reviewer makes tokens on their page and the real CLI uses them against the real server', async ({ page, baseURL, playwright }) => {
  test.setTimeout(120_000);
  await signInAs(page, 'reviewer');
  await page.goto('/review');
  const item = page.getByTestId('queue-item').first();
  await expect(item).toBeVisible();
  const fixId = (await item.getAttribute('data-fix-id'))!;

  // the page is under the user's menu
  await page.getByTestId('user-tokens-link').click();
  await expect(page).toHaveURL(/\/settings\/tokens$/);
  const decideToken = await createToken(page, { name: 'e2e laptop', scope: 'decide' });
  const readToken = await createToken(page, { name: 'e2e read only', scope: 'read' });
  const row = page.locator('[data-testid="personal-token-row"][data-name="e2e laptop"]');
  await expect(row.getByTestId('personal-token-scope')).toHaveText('read + decide');
  await expect(row.getByTestId('personal-token-status')).toHaveText('active');
  await expect(row.getByTestId('personal-token-last-used')).toHaveText('never');
  const readRow = page.locator('[data-testid="personal-token-row"][data-name="e2e read only"]');
  await expect(readRow.getByTestId('personal-token-scope')).toHaveText('read');
  // the token itself is never listed again
  expect(await page.content()).not.toContain(decideToken);

  // `flowfix fix show` with the token, through proxy.ts and the route wrapper
  const show = await cli(['fix', 'show', fixId, '--server', baseURL!, '--token', decideToken]);
  expect(show.code, show.stderr).toBe(0);
  expect(show.stdout).toMatch(new RegExp(`^Fix ${fixId} — `));
  expect(show.stdout).toContain('Root cause');
  expect(show.stdout).toMatch(/diff --git a\//);
  const showJson = await cli(['fix', 'show', fixId, '--json', '--server', baseURL!, '--token', readToken]);
  expect(showJson.code, showJson.stderr).toBe(0);
  expect((JSON.parse(showJson.stdout) as { id: string }).id).toBe(fixId);

  // the same routes over plain HTTP, no cookie: a fresh request context
  const api = await playwright.request.newContext({ baseURL });
  try {
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const patch = await api.get(`/api/fixes/${fixId}/patch`, { headers: bearer(readToken) });
    expect(patch.status()).toBe(200);
    expect(patch.headers()['content-type']).toContain('text/x-diff');
    expect(await patch.text()).toMatch(/^diff --git a\//);
    const preview = await api.post(`/api/fixes/${fixId}/preview`, { headers: bearer(readToken), data: {} });
    expect(preview.status()).toBe(200);

    // scope: a read token may not decide; a decide token is let through to the
    // handler (which finds no such fix, so nothing changes)
    const readReject = await api.post('/api/fixes/no-such-fix/reject', { headers: bearer(readToken), data: { reason: 'OTHER', text: 'x' } });
    expect(readReject.status()).toBe(403);
    expect(((await readReject.json()) as { error: { message: string } }).error.message).toBe('This personal token has the "read" scope; this needs "decide"');
    const decideReject = await api.post('/api/fixes/no-such-fix/reject', { headers: bearer(decideToken), data: { reason: 'OTHER', text: 'x' } });
    expect(decideReject.status()).toBe(404);

    // a token is not a session: the routes that manage tokens refuse it
    expect((await api.get('/api/me/tokens', { headers: bearer(decideToken) })).status()).toBe(401);
    expect((await api.post('/api/me/tokens', { headers: bearer(decideToken), data: { name: 'minted' } })).status()).toBe(401);
    // and without any token, the proxy still keeps anonymous callers out
    expect((await api.get(`/api/fixes/${fixId}/patch`)).status()).toBe(401);
  } finally {
    await api.dispose();
  }

  // the list shows the use; revoking locks the CLI out
  await page.reload();
  await expect(row.getByTestId('personal-token-last-used')).toHaveText(/just now|min ago/);
  await row.getByTestId('personal-token-revoke').click();
  await expect(row.getByTestId('personal-token-status')).toHaveText('revoked');
  const revoked = await cli(['fix', 'show', fixId, '--server', baseURL!, '--token', decideToken]);
  expect(revoked.code).toBe(1);
  expect(revoked.stderr).toMatch(/HTTP 401\): This personal token has been revoked/);
});
