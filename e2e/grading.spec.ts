import { expect, test, type Browser, type Page } from '@playwright/test';
import { FROM_OUR_PAGE, signInAs } from './helpers';

// Grading end to end in Chromium: three graders label the same five fixes
// blind, by keyboard only; one disagreement goes to the disputed list; a
// manager settles it; the queue's agreement and the precision figures move;
// the export downloads. A grader who labelled and goes back stays blind
// until the item is settled; once settled, their label is locked and a
// change of mind is a dispute, which returns the item to the disputed list.

const PASSWORD = 'grading-e2e-password';
const GRADERS = ['Gia', 'Hal', 'Ivo'].map((name) => ({ name: `${name} Grader`, email: `${name.toLowerCase()}.${Date.now()}@e2e.flowfix` }));

async function signInWith(page: Page, email: string): Promise<void> {
  await page.goto('/signin');
  await page.getByTestId('signin-email').fill(email);
  await page.getByTestId('signin-password').fill(PASSWORD);
  await page.getByTestId('signin-submit').click();
  await expect(page.getByTestId('current-user')).toBeVisible();
}

async function settledCount(page: Page): Promise<number> {
  const res = await page.request.get('/api/grading/precision');
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { overall: { settled: number } }).overall.settled;
}

/** One grader's five labels, keyboard only: the item at `odd` gets overfitting with a rationale, the rest correct. */
async function gradeFive(browser: Browser, grader: { email: string }, queueId: string, odd: number | null): Promise<void> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInWith(page, grader.email);
  await page.goto(`/grading/${queueId}/grade`);
  for (let i = 0; i < 5; i++) {
    const view = page.getByTestId('grade-page');
    await expect(view).toBeVisible();
    await expect(page.getByTestId('grade-progress')).toHaveText(`You have labelled ${i} of 5`);
    // blind: nothing of anyone else's judgement on the page
    await expect(page.getByTestId('grade-others')).toHaveCount(0);
    await expect(page.getByTestId('grade-settled')).toHaveCount(0);
    await expect(page.getByTestId('grade-decision')).toHaveCount(0);
    const itemId = await view.getAttribute('data-item-id');
    await page.locator('body').focus();
    if (i === odd) {
      await page.keyboard.press('2');
      await expect(page.locator('[data-testid=grade-label][data-label=OVERFITTING]')).toHaveAttribute('aria-pressed', 'true');
      await page.keyboard.press('t');
      await page.keyboard.press('Space'); // the first tag: test tampering
      await page.keyboard.press('Escape');
      await page.keyboard.press('r');
      await page.keyboard.type('Special-cases the <b>test</b> input');
      await page.keyboard.press('Enter');
    } else {
      await page.keyboard.press('1');
      await page.keyboard.press('Enter');
    }
    if (i < 4) await expect(page.getByTestId('grade-page')).not.toHaveAttribute('data-item-id', itemId!);
  }
  await expect(page.getByTestId('grade-done')).toBeVisible();
  await context.close();
}

test('three graders label five fixes blind by keyboard; a dispute is settled; agreement, precision and export follow', async ({ page, browser }) => {
  test.setTimeout(240_000);
  // the admin creates three graders
  await signInAs(page, 'admin');
  for (const g of GRADERS) {
    const res = await page.request.post('/api/admin/users', {
      headers: FROM_OUR_PAGE,
      data: { email: g.email, name: g.name, password: PASSWORD, roles: ['GRADER'] },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
  const users = (await (await page.request.get('/api/admin/users')).json()) as { users: Array<{ id: string; email: string }> };
  const ids = GRADERS.map((g) => users.users.find((u) => u.email === g.email)!.id);

  // the manager builds a queue of five fixes nobody has labelled
  const manager = await browser.newContext();
  const mpage = await manager.newPage();
  await signInAs(mpage, 'manager');
  await expect(mpage.getByRole('link', { name: 'Grading' })).toBeVisible();
  const before = await settledCount(mpage);
  const created = await mpage.request.post('/api/grading/queues', {
    headers: FROM_OUR_PAGE,
    data: {
      name: 'E2E five fixes',
      graderIds: ids,
      instructions: 'Label each fix.',
      filter: { includeHistory: true, ungradedOnly: true, sample: 5, seed: 'e2e' },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id: queueId, items } = (await created.json()) as { id: string; items: number };
  expect(items).toBe(5);

  await gradeFive(browser, GRADERS[0], queueId, null);

  // Gia goes back: her labels in "My labels", the previous item by key; still
  // blind (nobody else has labelled yet), and her label still hers to revise
  {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInWith(page, GRADERS[0].email);
    await page.goto(`/grading/${queueId}`);
    const mine = page.getByTestId('my-label');
    await expect(mine).toHaveCount(5);
    await mine.nth(1).getByRole('link').click();
    await expect(page.getByTestId('grade-page')).toBeVisible();
    await expect(page.getByTestId('grade-position')).toContainText('item 2 of 5');
    await expect(page.getByTestId('grade-progress')).toHaveText('You have labelled 5 of 5');
    await expect(page.getByTestId('grade-blind-note')).toBeVisible();
    await expect(page.getByTestId('grade-others')).toHaveCount(0);
    await expect(page.getByTestId('grade-submit')).toContainText('Revise label');
    const second = await page.getByTestId('grade-page').getAttribute('data-item-id');
    await page.locator('body').focus();
    await page.keyboard.press('p');
    await expect(page.getByTestId('grade-position')).toContainText('item 1 of 5');
    await expect(page.getByTestId('grade-page')).not.toHaveAttribute('data-item-id', second!);
    await expect(page.getByTestId('grade-previous')).toHaveCount(0);
    await expect(page.getByTestId('grade-others')).toHaveCount(0);
    await context.close();
  }
  await gradeFive(browser, GRADERS[1], queueId, null);
  await gradeFive(browser, GRADERS[2], queueId, 1);

  // four unanimous items settled themselves; one is disputed
  await mpage.goto(`/grading/${queueId}`);
  await expect(mpage.getByTestId('queue-progress').first()).toHaveAttribute('data-complete', '4');
  const disputed = mpage.getByTestId('disputed-item');
  await expect(disputed).toHaveCount(1);
  await expect(disputed).toContainText('Special-cases the <b>test</b> input'); // text, not markup
  await expect(disputed.locator('b')).toHaveCount(0);
  await expect(mpage.getByTestId('fleiss-kappa')).toContainText('0.');
  await disputed.getByTestId('settle-label').selectOption('CORRECT');
  await disputed.getByTestId('settle-note').fill('Two of three, and the special case is the documented one');
  await disputed.getByTestId('settle-submit').click();
  await expect(mpage.getByTestId('disputed-empty')).toBeVisible();
  await expect(mpage.getByTestId('queue-progress').first()).toHaveAttribute('data-complete', '5');
  await expect(mpage.getByTestId('grader-agreement')).toContainText('80%');

  // precision counts the five newly settled fixes
  expect(await settledCount(mpage)).toBe(before + 5);
  await mpage.goto('/grading/precision');
  await expect(mpage.getByTestId('precision-settled')).toContainText(String(before + 5));

  // the export downloads
  await mpage.goto(`/grading/${queueId}`);
  const [download] = await Promise.all([mpage.waitForEvent('download'), mpage.getByTestId('export-csv').click()]);
  expect(download.suggestedFilename()).toBe(`flowfix-grading-${queueId}.csv`);
  const stream = await download.createReadStream();
  let csv = '';
  for await (const chunk of stream) csv += chunk;
  expect(csv.split('\r\n')[0]).toContain('queue_id,queue_name,item_position,fix_id');
  expect(csv.split('\r\n').filter(Boolean)).toHaveLength(1 + 15);

  // Ivo, whose overfitting label was outvoted, comes back: settled, so he
  // sees the others, his label is locked, and he disputes with a note
  const ivo = await browser.newContext();
  const ipage = await ivo.newPage();
  await signInWith(ipage, GRADERS[2].email);
  await ipage.goto(`/grading/${queueId}`);
  await ipage.getByTestId('my-label').nth(1).getByRole('link').click();
  await expect(ipage.getByTestId('grade-others')).toBeVisible();
  await expect(ipage.getByTestId('grade-locked')).toContainText('Your label is locked');
  await expect(ipage.getByTestId('grade-submit')).toHaveCount(0);
  await ipage.getByTestId('dispute-label').selectOption('CORRECT');
  await ipage.getByTestId('dispute-note').fill('The others are right: the special case is documented');
  await ipage.getByTestId('dispute-submit').click();
  await expect(ipage.getByTestId('grade-disputes')).toContainText('The others are right');
  await ivo.close();
  await mpage.goto(`/grading/${queueId}`);
  await expect(mpage.getByTestId('disputed-item')).toHaveCount(1);
  await expect(mpage.getByTestId('disputed-disputes')).toContainText('The others are right');
  await manager.close();
});

test('on a phone the labels stay within reach: a bar along the bottom picks one and leads to the panel', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await signInAs(page, 'grader');
  const res = await page.request.get('/api/grading/queues');
  const { queues } = (await res.json()) as { queues: Array<{ id: string }> };
  await page.goto(`/grading/${queues[0]!.id}/grade`);
  await expect(page.getByTestId('grade-page')).toBeVisible();
  // the panel is far below the fix; the bar is on screen from the start
  await expect(page.getByTestId('grade-panel')).not.toBeInViewport();
  const incorrect = page.locator('[data-testid=grade-quick-label][data-label=INCORRECT]');
  await expect(incorrect).toBeInViewport();
  await incorrect.click();
  await expect(page.locator('[data-testid=grade-label][data-label=INCORRECT]')).toHaveAttribute('aria-pressed', 'true');
  await page.getByTestId('grade-quick-panel').click();
  await expect(page.getByTestId('grade-panel')).toBeInViewport();
  await context.close();
});
