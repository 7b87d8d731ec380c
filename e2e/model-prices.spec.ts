import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { signInAs } from './helpers';

// The admin's model price table in the real browser: add a model with its
// prices, save, see it kept after a reload and in the audit log; a bad price
// is refused before it is sent; the tab passes axe.

test('an admin edits the model price table', async ({ page }) => {
  await signInAs(page, 'admin');
  await page.goto('/admin?tab=models');
  const panel = page.getByTestId('model-prices-panel');
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('admin-tab-models')).toHaveAttribute('aria-current', 'page');

  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  const rows = page.locator('[data-testid^="price-row-"]');
  const before = await rows.count();
  await page.getByTestId('price-add').click();
  await expect(rows).toHaveCount(before + 1);
  await page.getByTestId(`price-model-${before}`).fill('e2e-coder-7b');
  await page.getByTestId(`price-input-${before}`).fill('-1');
  await page.getByTestId(`price-output-${before}`).fill('0.6');
  await page.getByTestId('price-save').click();
  await expect(page.getByTestId('price-error')).toContainText('e2e-coder-7b: the input price must be a number of dollars, 0 or more.');

  await page.getByTestId(`price-input-${before}`).fill('0.15');
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/admin/model-prices') && r.request().method() === 'PUT');
  await page.getByTestId('price-save').click();
  expect((await saved).status()).toBe(200);
  await expect(page.getByTestId('price-updated')).toContainText('Last saved');
  await expect(page.getByTestId('price-error')).toHaveCount(0);

  await page.reload();
  const row = page.locator('[data-testid^="price-row-"]', { has: page.locator('input[value="e2e-coder-7b"]') });
  await expect(row).toHaveCount(1);
  await expect(row.locator('input').nth(1)).toHaveValue('0.15');
  await expect(row.locator('input').nth(2)).toHaveValue('0.6');

  await page.goto('/admin?tab=audit');
  await expect(page.getByTestId('admin-panel-audit')).toContainText('system.model_prices');
});
