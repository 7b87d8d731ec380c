import { expect, test } from '@playwright/test';
import { signInAs } from './helpers';

test.beforeEach(async ({ page }) => {
  await signInAs(page, 'reviewer');
});

test('filters by status and keeps the filter in the URL', async ({ page }) => {
  await page.goto('/changes');
  await expect(page.getByTestId('triage-row').first()).toBeVisible();
  await page.goto('/changes?status=SKIPPED');
  const rows = page.getByTestId('triage-row');
  await expect(rows.first()).toBeVisible();
  const statuses = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
  expect(statuses.length).toBeGreaterThan(0);
  expect(new Set(statuses)).toEqual(new Set(['SKIPPED']));
});

test('searches by title', async ({ page }) => {
  await page.goto('/changes');
  await page.getByTestId('triage-search').fill('off-by-one');
  await expect(page).toHaveURL(/q=off-by-one/);
  const rows = page.getByTestId('triage-row');
  await expect(rows.first()).toBeVisible();
  for (const text of await rows.allInnerTexts()) expect(text.toLowerCase()).toContain('off-by-one');
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
