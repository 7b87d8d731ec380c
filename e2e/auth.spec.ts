import { expect, test } from '@playwright/test';
import { signInAs, type DemoRole } from './helpers';

test('a signed-out visitor is sent to sign-in and comes back after', async ({ page }) => {
  await page.goto('/changes?status=NEW');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
  await page.getByTestId('signin-email').fill('reviewer@demo.flowfix');
  await page.getByTestId('signin-password').fill('reviewer-demo');
  await page.getByTestId('signin-submit').click();
  await expect(page).toHaveURL(/\/changes\?status=NEW/);
});

test('the API refuses anonymous callers', async ({ request }) => {
  const res = await request.get('/api/changes');
  expect(res.status()).toBe(401);
});

test('a wrong password shows an error and does not sign in', async ({ page }) => {
  await page.goto('/signin');
  await page.getByTestId('signin-email').fill('admin@demo.flowfix');
  await page.getByTestId('signin-password').fill('not-the-password');
  await page.getByTestId('signin-submit').click();
  await expect(page.getByTestId('signin-error')).toBeVisible();
  await expect(page).toHaveURL(/\/signin/);
});

test('the demo users are listed on the sign-in page in demo mode', async ({ page }) => {
  await page.goto('/signin');
  await expect(page.getByTestId('demo-users')).toContainText('reviewer@demo.flowfix');
});

test('the app icon is served to anyone and every page links it', async ({ page, request }) => {
  const icon = await request.get('/icon.svg', { maxRedirects: 0 });
  expect(icon.status()).toBe(200);
  expect(icon.headers()['content-type']).toContain('image/svg+xml');
  await page.goto('/signin');
  await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', '/icon.svg');
});

const BROWSING_ROLES: DemoRole[] = ['reviewer', 'manager', 'admin'];
for (const role of BROWSING_ROLES) {
  test(`${role} signs in and sees the triage list; admin link only for admins`, async ({ page }) => {
    await signInAs(page, role);
    await page.goto('/changes');
    await expect(page.getByTestId('triage-row').first()).toBeVisible();
    await expect(page.getByTestId('current-user')).toContainText(role);
    const adminLink = page.getByRole('link', { name: 'Admin' });
    if (role === 'admin') {
      await expect(adminLink).toBeVisible();
    } else {
      await expect(adminLink).toHaveCount(0);
      await page.goto('/admin');
      await expect(page.getByRole('heading', { name: 'Not allowed' })).toBeVisible();
    }
  });
}

test('signing in lands each role on its own start page', async ({ page }) => {
  for (const [role, home] of [
    ['reviewer', /\/review$/],
    ['admin', /\/changes$/],
    ['manager', /\/insights$/],
    ['grader', /\/grading$/],
  ] as const) {
    await page.context().clearCookies();
    await signInAs(page, role);
    await expect(page).toHaveURL(home);
  }
});

test('a grader who holds no other role grades blind: no changes, runs or reviewers’ decisions anywhere', async ({ page }) => {
  await signInAs(page, 'grader');
  await expect(page).toHaveURL(/\/grading$/);
  const nav = page.getByRole('navigation');
  await expect(nav.getByRole('link', { name: 'Grading' })).toBeVisible();
  for (const name of ['Changes', 'Review', 'Runs', 'Insights', 'Admin']) await expect(nav.getByRole('link', { name })).toHaveCount(0);
  for (const url of ['/changes', '/review', '/runs']) {
    await page.goto(url);
    await expect(page.getByRole('heading', { name: 'Not allowed' })).toBeVisible();
    await expect(page.getByTestId('triage-row')).toHaveCount(0);
  }
  for (const url of ['/api/changes', '/api/review-queue', '/api/runs']) expect((await page.request.get(url)).status(), url).toBe(403);
});

test('an admin who creates a user is told who was created and with which roles; the user can sign in', async ({ page, browser }) => {
  await signInAs(page, 'admin');
  await page.goto('/admin?tab=users');
  await page.getByTestId('user-new').click();
  const email = `new-${Date.now()}@example.test`;
  await page.getByTestId('user-email').fill(email);
  await page.getByTestId('user-name').fill('Nora New');
  await page.getByTestId('user-password').fill('nora-password-1');
  await page.getByTestId('user-create-role-reviewer').check();
  await page.getByTestId('user-create-role-grader').check();
  await page.getByTestId('user-create-submit').click();
  const created = page.getByTestId('user-created');
  await expect(created).toBeVisible();
  await expect(created).toContainText('Nora New');
  await expect(created).toContainText(email);
  await expect(created).toContainText('reviewer, grader');
  await expect(page.getByTestId('user-create-form')).toHaveCount(0);
  await expect(page.locator(`[data-testid="user-row"][data-email="${email}"]`)).toBeVisible();
  await page.getByTestId('user-created-dismiss').click();
  await expect(created).toHaveCount(0);

  const other = await browser.newContext();
  const newcomer = await other.newPage();
  await newcomer.goto('/signin');
  await newcomer.getByTestId('signin-email').fill(email);
  await newcomer.getByTestId('signin-password').fill('nora-password-1');
  await newcomer.getByTestId('signin-submit').click();
  // a reviewer (and grader) lands on Review
  await expect(newcomer).toHaveURL(/\/review$/);
  await other.close();
});
