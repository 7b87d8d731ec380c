import { expect, test, type Page } from '@playwright/test';
import { signInAs } from './helpers';

// A reviewer starts the agent on a demo change the offline policy can fix
// (ledger-py MR-61 "Raise the overdraft fee to 35.00 for the 2027 price list", a
// stale expectation; not used by the review specs, which apply fixes) and watches the
// trajectory arrive over SSE until the fix appears. The worker runs inside
// the demo server; other demo changes may be queued ahead, hence the long
// timeouts. A reload then replays exactly the same steps.

const TERMINAL = ['FIXED', 'NO_FIX', 'FAILED', 'CANCELLED'];

async function demoChangeId(page: Page, externalId: string): Promise<string> {
  const res = await page.request.get(`/api/changes?history=exclude&q=${encodeURIComponent(externalId)}`);
  expect(res.ok()).toBe(true);
  const { items } = (await res.json()) as { items: Array<{ id: string; externalId: string }> };
  const change = items.find((i) => i.externalId === externalId);
  expect(change, `demo change ${externalId}`).toBeTruthy();
  return change!.id;
}

async function seqsOnPage(page: Page): Promise<number[]> {
  return page.getByTestId('run-event').evaluateAll((els) => els.map((el) => Number((el as HTMLElement).dataset.seq)));
}

test('a reviewer presses "Run agent" and watches the run live until the fix appears', async ({ page }) => {
  test.setTimeout(15 * 60_000);
  await signInAs(page, 'reviewer');
  const changeId = await demoChangeId(page, 'MR-61');
  await page.goto(`/changes/${changeId}`);

  const runAgent = page.getByTestId('run-agent');
  await expect(runAgent).toBeVisible();
  if (await runAgent.isEnabled()) {
    await runAgent.click();
    // the automatic run may already have left a fix: "Run agent" then asks before replacing it
    const confirm = page.getByTestId('run-agent-confirm-yes');
    if (await confirm.isVisible()) await confirm.click();
  } else {
    // the automatic run of this revision is still active: "Run agent" would join it, so open it
    await page.getByTestId('run-link').first().click();
  }
  await page.waitForURL(/\/runs\/[^/]+$/);

  const status = page.getByTestId('run-status');
  await expect(status).toBeVisible();
  const statusAtLoad = (await status.getAttribute('data-status')) ?? '';
  expect(TERMINAL).not.toContain(statusAtLoad);
  await expect(page.getByTestId('run-phase-bar')).toBeVisible();
  await expect(page.getByTestId('run-eta')).toContainText(/left|once started|finishing/);
  await expect(page.getByTestId('run-cancel')).toBeVisible();
  const initialMax = Math.max(-1, ...(await seqsOnPage(page)));

  // steps saved after the page loaded arrive over the stream, in order
  await expect(page.locator(`[data-testid="run-event"][data-seq="${initialMax + 1}"]`)).toBeVisible({ timeout: 9 * 60_000 });
  await expect(page.locator('[data-testid="run-phase-setup"]')).not.toHaveAttribute('data-state', 'pending', { timeout: 5 * 60_000 });
  await expect(page.locator('[data-testid="run-event"][data-type="suspects"]')).toBeVisible({ timeout: 5 * 60_000 });

  // …until the fix appears
  await expect(page.getByTestId('run-fix-link')).toBeVisible({ timeout: 5 * 60_000 });
  await expect(status).toHaveAttribute('data-status', 'FIXED');
  await expect(page.getByTestId('run-phase-verify')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('run-eta')).toContainText('Finished in');
  await expect(page.getByTestId('run-cancel')).toHaveCount(0);
  await expect(page.getByTestId('run-connection')).toHaveAttribute('data-state', 'closed');
  await expect(page.locator('[data-testid="run-event"][data-type="gate"][data-verdict="pass"]').first()).toBeVisible();
  await expect(page.getByTestId('run-counter-toolcalls')).not.toHaveText('0');
  await expect(page.getByTestId('run-counter-tokens')).toBeVisible();
  await expect(page.getByTestId('run-counter-cost')).toBeVisible();

  // every step once, no gap
  const live = await seqsOnPage(page);
  expect(live).toEqual(live.map((_, i) => i));

  // the search box filters the trajectory
  await page.getByTestId('run-search').fill('green');
  await expect(page.getByTestId('run-event').first()).toBeVisible();
  const filtered = await seqsOnPage(page);
  expect(filtered.length).toBeGreaterThan(0);
  expect(filtered.length).toBeLessThan(live.length);
  await page.getByTestId('run-search').fill('');

  // a reload replays the very same trajectory, and the fix link leads to the change
  await page.reload();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'FIXED');
  await expect.poll(() => seqsOnPage(page)).toEqual(live);
  await page.getByTestId('run-fix-link').click();
  await page.waitForURL(new RegExp(`/changes/${changeId}`));
});
