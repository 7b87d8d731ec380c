import fs from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { signInAs } from './helpers';

// A manager reads Insights on the demo's history: changes the period and the
// repository (the filter lives in the URL), follows a funnel reason to the
// triage list of the changes its bar counted, reads a chart as a table and as
// CSV, sees the funnel on a phone and words instead of codes. A reviewer has
// no Insights.

test('a manager slices the funnel and follows a reason to the triage list', async ({ page }) => {
  await signInAs(page, 'manager');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Insights' }).click();
  await expect(page).toHaveURL(/\/insights$/);
  await expect(page.getByTestId('kpi-posted')).toBeVisible();

  await page.getByTestId('insights-nav').getByRole('link', { name: 'Funnel' }).click();
  await expect(page.getByTestId('chart-funnel')).toBeVisible();
  await page.getByTestId('insights-period').selectOption('all');
  await expect(page).toHaveURL(/period=all/);
  await page.getByTestId('insights-repo').selectOption('ledger-py');
  await expect(page).toHaveURL(/repo=ledger-py/);
  // the filter survives a reload and travels with the section tabs
  await page.reload();
  await expect(page.getByTestId('insights-repo')).toHaveValue('ledger-py');
  await expect(page.getByTestId('insights-nav').getByRole('link', { name: 'Adoption' })).toHaveAttribute('href', /repo=ledger-py/);

  // a reason's link lists exactly the changes its bar counted: the same cohort, by the bar's own SQL
  const reason = page.getByTestId('funnel-skipped-links').getByRole('link').first();
  await expect(reason).toBeVisible();
  const reasonKey = await reason.getAttribute('data-reason');
  const barCount = Number(await reason.getAttribute('data-count'));
  const reasonLabel = (await reason.innerText()).trim();
  expect(reasonLabel).not.toContain('_');
  await reason.click();
  await expect(page).toHaveURL(/\/changes\?/);
  const url = new URL(page.url());
  expect(url.searchParams.get('funnel')).toBe(`skipped:${reasonKey}`);
  expect(url.searchParams.get('firstTo')).toBeTruthy();
  expect(url.searchParams.get('repo')).toBe('ledger-py');
  await expect(page.getByTestId('triage-funnel-filter')).toContainText(reasonLabel);
  await expect(page.getByTestId('triage-count')).toContainText(`of ${barCount} `);
  const rows = page.getByTestId('triage-row');
  await expect(rows.first()).toBeVisible();
  expect(new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-status'))))).toEqual(new Set(['SKIPPED']));
  expect(new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-repository'))))).toEqual(new Set(['ledger-py']));
});

test('on a phone the funnel chart draws every step', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInAs(page, 'manager');
  await page.goto('/insights/funnel?period=all');
  const chart = page.getByTestId('chart-funnel-image');
  await expect(chart).toBeVisible();
  const bars = chart.locator('.recharts-bar-rectangle path');
  await expect(bars).toHaveCount(8);
  const widths = await bars.evaluateAll((els) => els.map((e) => (e as SVGGraphicsElement).getBBox().width));
  expect(
    widths.every((w) => w > 0),
    `bar widths ${widths}`,
  ).toBe(true);
  // the widest bar (changes with failures) takes a good part of the card
  expect(Math.max(...widths)).toBeGreaterThan(120);
  await expect(chart.locator('.recharts-yAxis .recharts-cartesian-axis-tick')).toHaveCount(8);
});

test('Insights shows words, not codes; names its charts; defines its grading terms', async ({ page }) => {
  await signInAs(page, 'manager');
  for (const section of ['', '/funnel', '/adoption', '/latency', '/cost', '/quality']) {
    await page.goto(`/insights${section}?period=all`);
    await expect(page.locator('main .insights-card, main [data-testid="insights-kpis"]').first()).toBeVisible();
    await expect(page.getByText('Loading…')).toHaveCount(0);
    const text = await page.locator('main').innerText();
    // known_flaky, WRONG_FIX, not_reproduced: a code is never shown as it is stored
    expect(text.match(/\b[A-Za-z]+_[A-Za-z_]+\b/g) ?? [], `codes on /insights${section}`).toEqual([]);
    // no chart is a tab stop of its own; each is an image with a name
    await expect(page.locator('main svg[tabindex]')).toHaveCount(0);
  }
  await page.goto('/insights/funnel?period=all');
  await expect(page.getByRole('img', { name: /^From failing change to applied fix\. Changes with failures: \d/ })).toBeVisible();
  await page.goto('/insights/quality?period=all');
  const terms = page.getByTestId('insights-definitions');
  for (const term of ['Plausible', 'Correct', 'Overfitting', 'Precision']) await expect(terms.getByText(term, { exact: true })).toBeVisible();
  await page.goto('/insights/cost?period=all');
  await expect(page.getByTestId('cost-source')).toContainText('Admin → Model prices');
  await expect(page.getByTestId('cost-source')).toContainText('Prices now: gpt-4.1 $2.00 input / $8.00 output per million tokens');
});

test('the model filter offers the models runs used, newest first, and Any model', async ({ page }) => {
  await signInAs(page, 'manager');
  const res = await page.request.get('/api/insights/options');
  expect(res.ok()).toBe(true);
  const { models } = (await res.json()) as { models: string[] };
  expect(models.length, 'the demo history has runs with a model').toBeGreaterThan(0);

  await page.goto('/insights/funnel?period=all');
  const picker = page.getByRole('combobox', { name: 'Model' });
  await expect(picker).toHaveValue('');
  await expect(picker.getByRole('option')).toHaveText(['Any model', ...models]);

  await picker.selectOption(models[0]);
  await expect(page).toHaveURL(new RegExp(`model=${encodeURIComponent(models[0]).replace(/[.]/g, '\\.')}`));
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue(models[0]);
  await page.getByRole('combobox', { name: 'Model' }).selectOption('');
  await expect(page).not.toHaveURL(/model=/);

  // a link naming a model no run used keeps it, marked as such
  await page.goto('/insights/funnel?period=all&model=no-such-model');
  await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue('no-such-model');
  await expect(page.getByRole('combobox', { name: 'Model' }).getByRole('option', { name: 'no-such-model (no runs)' })).toHaveCount(1);
});

test('a chart turns into its table, and its CSV holds exactly those figures', async ({ page }) => {
  await signInAs(page, 'manager');
  await page.goto('/insights/funnel?period=all');
  await page.getByTestId('chart-funnel-table').click();
  const table = page.getByTestId('chart-funnel-data');
  await expect(table).toBeVisible();
  const shown = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => (tr.children[1] as HTMLElement).innerText.replace(/\D/g, '')));
  expect(shown).toHaveLength(8);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('chart-funnel-csv').click()]);
  expect(download.suggestedFilename()).toBe('funnel.csv');
  const lines = (await fs.readFile((await download.path())!, 'utf8')).trimEnd().split('\r\n');
  expect(lines[0]).toBe('step,count,share of,retention,of changes');
  expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(shown);

  await page.getByTestId('chart-funnel-chart').click();
  await expect(table).toBeHidden();
});

test('a reviewer has no Insights: no link, and 403 for the page and the API', async ({ page }) => {
  await signInAs(page, 'reviewer');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Insights' })).toHaveCount(0);
  const res = await page.goto('/insights/funnel');
  expect(res?.status()).toBe(403);
  const api = await page.request.get('/api/insights/funnel');
  expect(api.status()).toBe(403);
});
