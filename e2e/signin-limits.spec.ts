import fs from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { signInAs } from './helpers';

// Sign-in limits with a browser as the real client: wrong passwords until the
// server refuses, the message on the page, the right password refused too, an
// admin unlocks the account, it signs in; then the audit log shows all of it
// and its export downloads.

const EMAIL = 'grader@demo.flowfix';
const PASSWORD = 'grader-demo';
// each attempt comes from another address, as from a botnet: the account's
// lock alone stops them (the server takes them from X-Forwarded-For, as it
// trusts this host as a proxy: playwright.config.ts); the admin's sign-in from
// 127.0.0.1 is untouched by them
let attempt = 0;
const ATTACKER = /^198\.51\.100\.\d+$/;

async function tryPassword(page: Page, password: string): Promise<string> {
  attempt += 1;
  await page.setExtraHTTPHeaders({ 'x-forwarded-for': `198.51.100.${attempt % 250}` });
  await page.getByTestId('signin-email').fill(EMAIL);
  await page.getByTestId('signin-password').fill(password);
  await page.getByTestId('signin-submit').click();
  const error = page.getByTestId('signin-error');
  await expect(error).toBeVisible();
  const text = (await error.textContent()) ?? '';
  // the form clears the error when it submits again; wait until it is usable
  await expect(page.getByTestId('signin-submit')).toHaveText('Sign in');
  return text;
}

test('wrong passwords until throttled, the message, an admin unlocks, sign-in works; the audit log shows it and exports', async ({ browser }) => {
  const userContext = await browser.newContext();
  const user = await userContext.newPage();
  await user.goto('/signin');

  // each refused attempt counts, so the lock grows until it is minutes long.
  // How many attempts that takes depends on how fast the browser types: the
  // attempts made while a seconds-long lock runs only count, and the lock
  // grows at the first wrong password after it ends. Bound it by time, not by
  // a number of attempts.
  test.setTimeout(240_000);
  const deadline = Date.now() + 150_000;
  let message = '';
  for (let i = 0; Date.now() < deadline && !/try again in \d+ minutes?/.test(message); i++) {
    message = await tryPassword(user, `wrong-${i}`);
  }
  expect(message).toMatch(/^Too many attempts; try again in \d+ minutes?\./);

  // the right password is refused too, without being checked
  expect(await tryPassword(user, PASSWORD)).toMatch(/^Too many attempts; try again in \d+ minutes?\./);
  await expect(user).toHaveURL(/\/signin/);

  const adminContext = await browser.newContext({ acceptDownloads: true });
  const admin = await adminContext.newPage();
  await signInAs(admin, 'admin');
  await admin.goto('/admin?tab=users');
  const row = admin.locator(`[data-testid="user-row"][data-email="${EMAIL}"]`);
  await expect(row.getByTestId('user-locked')).toBeVisible();
  await row.getByTestId('user-unlock').click();
  await expect(row.getByTestId('user-locked')).toHaveCount(0);

  await user.getByTestId('signin-email').fill(EMAIL);
  await user.getByTestId('signin-password').fill(PASSWORD);
  await user.getByTestId('signin-submit').click();
  await expect(user.getByTestId('current-user')).toBeVisible();

  await admin.goto('/admin?tab=audit');
  await admin.getByTestId('audit-filter-action').selectOption('auth.');
  const actions = admin.getByTestId('audit-action');
  await expect(actions.first()).toBeVisible();
  await expect(admin.locator('[data-testid="audit-row"][data-action="auth.lockout"]').first()).toBeVisible();
  await expect(admin.locator('[data-testid="audit-row"][data-action="auth.signin.refused"]').first()).toBeVisible();
  await expect(admin.locator('[data-testid="audit-row"][data-action="auth.unlock"]')).toHaveCount(1);
  await expect(admin.locator('[data-testid="audit-row"][data-action="auth.signin"]').first()).toBeVisible();
  for (const action of await actions.allTextContents()) expect(action.trim()).toMatch(/^auth\./);
  // the unlock's target is the user by name, not an id
  await expect(admin.locator('[data-testid="audit-row"][data-action="auth.unlock"]').getByTestId('audit-target')).toContainText(`<${EMAIL}>`);

  // the filter is in the URL: a reload and going back keep it
  await expect(admin).toHaveURL(/[?&]action=auth\./);
  await admin.reload();
  await expect(admin.getByTestId('audit-filter-action')).toHaveValue('auth.');
  await expect(admin.locator('[data-testid="audit-row"][data-action="auth.unlock"]')).toHaveCount(1);
  await admin.goto('/admin?tab=users');
  await admin.goBack();
  await expect(admin.getByTestId('audit-filter-action')).toHaveValue('auth.');
  await expect(admin.locator('[data-testid="audit-row"][data-action="auth.unlock"]')).toHaveCount(1);
  for (const action of await actions.allTextContents()) expect(action.trim()).toMatch(/^auth\./);

  const [download] = await Promise.all([admin.waitForEvent('download'), admin.getByTestId('audit-export-csv').click()]);
  expect(download.suggestedFilename()).toMatch(/^flowfix-audit-.*\.csv$/);
  const csv = await fs.readFile((await download.path())!, 'utf8');
  const lines = csv.trimEnd().split('\r\n');
  expect(lines[0]).toBe('id,createdAt,actorKind,actorId,actorEmail,action,targetType,targetId,data,targetName');
  // exactly what the filter shows, once every page is loaded
  const more = admin.getByTestId('audit-more');
  while (await more.isVisible()) {
    const before = await admin.getByTestId('audit-row').count();
    await more.click();
    await expect.poll(() => admin.getByTestId('audit-row').count()).toBeGreaterThan(before);
  }
  const shownIds = await admin.getByTestId('audit-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
  expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(shownIds);
  expect(lines.slice(1).every((l) => l.split(',')[5].startsWith('auth.'))).toBe(true);
  expect(csv).toContain('auth.unlock');
  // the server recorded each client's address: the one the proxy forwarded, and the admin's own connection
  const addressOf = (action: string) =>
    lines
      .slice(1)
      .filter((l) => l.split(',')[5] === action)
      .map((l) => /""address"":""([^"]+)""/.exec(l)?.[1] ?? null);
  const refusedFrom = addressOf('auth.signin.refused');
  expect(refusedFrom.length).toBeGreaterThan(0);
  expect(refusedFrom.every((a) => a !== null && ATTACKER.test(a))).toBe(true);
  expect(addressOf('auth.signin')).toContain('127.0.0.1');

  await userContext.close();
  await adminContext.close();
});
