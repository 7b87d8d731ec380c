import { expect, test } from '@playwright/test';
import { signInAs } from './helpers';

test.beforeEach(async ({ page }) => {
  await signInAs(page, 'reviewer');
});

test('filters by status and keeps the filter in the URL', async ({ page }) => {
  await page.goto('/changes');
  await expect(page.getByTestId('triage-row').first()).toBeVisible();
  await page.getByTestId('triage-status-filter').getByRole('button', { name: 'Skipped' }).click();
  await expect(page).toHaveURL(/status=SKIPPED/);
  const rows = page.getByTestId('triage-row');
  await expect(rows.first()).toHaveAttribute('data-status', 'SKIPPED');
  await expect(rows.first()).toBeVisible();
  const statuses = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
  expect(statuses.length).toBeGreaterThan(0);
  expect(new Set(statuses)).toEqual(new Set(['SKIPPED']));
  // the filter survives a reload: it lives in the URL
  await page.reload();
  await expect(page.getByTestId('triage-status-filter').getByRole('button', { name: 'Skipped' })).toHaveAttribute('aria-pressed', 'true');
});

test('filters by repository', async ({ page }) => {
  await page.goto('/changes');
  await page.getByTestId('triage-repo-filter').selectOption({ label: 'ledger-py' });
  const rows = page.getByTestId('triage-row');
  await expect(rows.first()).toBeVisible();
  await expect.poll(async () => new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-repository'))))).toEqual(new Set(['ledger-py']));
});

test('searches by title', async ({ page }) => {
  await page.goto('/changes');
  await page.getByTestId('triage-search').fill('page count');
  await expect(page).toHaveURL(/q=page(\+|%20)count/);
  const rows = page.getByTestId('triage-row');
  await expect(rows.first()).toBeVisible();
  for (const text of await rows.allInnerTexts()) expect(text.toLowerCase()).toContain('page count');
});

test('a search with no match shows the empty state', async ({ page }) => {
  await page.goto('/changes?q=zzzz-no-such-change-zzzz');
  await expect(page.getByTestId('triage-empty')).toBeVisible();
});

test('pages through the list with the cursor without repeating rows', async ({ page }) => {
  await page.goto('/changes');
  const rows = page.getByTestId('triage-row');
  await expect(rows.first()).toBeVisible();
  const before = await rows.count();
  await page.getByTestId('triage-load-more').click();
  await expect.poll(() => rows.count()).toBeGreaterThan(before);
  const ids = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-change-id')));
  expect(new Set(ids).size).toBe(ids.length);
});
