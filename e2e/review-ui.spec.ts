import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page, type Request } from '@playwright/test';
import { FROM_OUR_PAGE, signInAs } from './helpers';
import { E2E_DATA_DIR } from '../playwright.config';

// The reviewer's reading side: the review queue and its shortcuts, the change
// page with the root cause first, Monaco's diff served from our own origin,
// the preview it records, and hostile text (test names, logs) shown as text.

const HOSTILE = '<img src=x onerror=alert(1)><script>alert(2)</script>';
const DATA_DIR = E2E_DATA_DIR;

/** Every request the page makes, to prove nothing leaves the app's origin (no CDN). */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (r: Request) => urls.push(r.url()));
  return urls;
}

function foreign(urls: string[], baseURL: string): string[] {
  const origin = new URL(baseURL).origin;
  return urls.filter((u) => !u.startsWith('data:') && !u.startsWith('blob:') && new URL(u).origin !== origin);
}

/** Opens the newest queued fix (with `history`: the demo history shown too, leaving real fixes to other tests). */
async function openFirstQueuedFix(page: Page, { history = false }: { history?: boolean } = {}): Promise<{ fixId: string }> {
  await page.goto('/review');
  if (history) await page.getByTestId('queue-include-history').check();
  const items = page.getByTestId('queue-item');
  const first = (history ? items.filter({ hasText: '[history]' }) : items).first();
  await expect(first).toBeVisible();
  const fixId = (await first.getAttribute('data-fix-id'))!;
  await first.click();
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await page.getByTestId('queue-open').click();
  await expect(page).toHaveURL(new RegExp(`/changes/[^?]+\\?fix=${fixId}`));
  return { fixId };
}

test('the review queue is a listbox: j/k and arrows move the focus with the selection, o opens, the selection survives going back', async ({ page }) => {
  await signInAs(page, 'reviewer');
  await page.goto('/review');
  await expect(page.getByTestId('shortcut-legend')).toContainText('next');
  // demo history is out of the queue unless asked for
  await expect(page.getByTestId('queue-item').filter({ hasText: '[history]' })).toHaveCount(0);
  await page.getByTestId('queue-include-history').check();
  await expect(page.getByRole('listbox', { name: 'Fixes waiting for review' })).toBeVisible();
  const items = page.getByRole('listbox', { name: 'Fixes waiting for review' }).getByRole('option');
  await expect(items.nth(2)).toBeVisible();
  await expect(items.nth(0)).toHaveAttribute('aria-selected', 'true');
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('j');
  await expect(items.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(items.nth(1)).toBeFocused();
  // the selected fix's changed lines are shown beside its actions, no click needed
  const detail = page.getByTestId('queue-detail');
  await expect(detail.getByTestId('queue-actions')).toBeVisible();
  await expect(detail.getByTestId('changed-lines').locator('[data-kind="added"], [data-kind="removed"]').first()).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await expect(items.nth(2)).toBeFocused();
  await page.keyboard.press('k');
  await expect(items.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(items.nth(1)).toBeFocused();

  const fixId = await items.nth(1).getAttribute('data-fix-id');
  await page.keyboard.press('o');
  await expect(page).toHaveURL(new RegExp(`\\?fix=${fixId}`));
  await expect(page.getByTestId('fix-card')).toHaveAttribute('data-fix-id', fixId!);
  await page.goBack();
  await page.getByTestId('queue-include-history').check();
  await expect(page.locator(`[data-testid="queue-item"][data-fix-id="${fixId}"]`)).toHaveAttribute('aria-selected', 'true');
});

test('a keyboard accept waits to be undone; r opens the reject form, Escape closes it, typing in it moves nothing', async ({ page }) => {
  test.setTimeout(FIX_WAIT_MS + 60_000);
  await signInAs(page, 'reviewer');
  // PR-418's fix stays READY for the edit-then-accept test below: this test must leave it so
  const changeId = await demoChangeId(page.request, 'PR-418');
  const fixId = await waitForReadyFix(page.request, changeId);
  const accepts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && /\/api\/fixes\/[^/]+\/accept$/.test(r.url())) accepts.push(r.url());
  });
  // the page's timers run on Playwright's clock, so the 5 s window is stepped through, not slept
  await page.clock.install();
  await page.goto('/review');
  const item = page.locator(`[data-testid="queue-item"][data-fix-id="${fixId}"]`);
  await item.click();
  await expect(item).toHaveAttribute('aria-selected', 'true');

  await page.keyboard.press('a');
  await expect(page.getByTestId('queue-pending')).toContainText(/Applying .* in 5 s/);
  await expect(item.getByTestId('queue-item-pending')).toBeVisible();
  await page.clock.runFor(3_000);
  await expect(page.getByTestId('queue-pending')).toContainText(/in 2 s/);
  expect(accepts).toEqual([]);
  await page.keyboard.press('u');
  await expect(page.getByTestId('queue-pending')).toHaveCount(0);
  await expect(page.getByTestId('queue-outcome')).toContainText('Not applied');
  // past the end of the window: nothing was sent and the fix still waits
  await page.clock.runFor(10_000);
  expect(accepts).toEqual([]);
  expect((await detailOf(page.request, changeId)).fixes.find((f) => f.id === fixId)?.status).toBe('READY');

  // Escape also takes an accept back
  await page.keyboard.press('a');
  await expect(page.getByTestId('queue-pending')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('queue-pending')).toHaveCount(0);
  await page.clock.runFor(10_000);

  await page.keyboard.press('r');
  const form = page.getByTestId('reject-form');
  await expect(form).toBeVisible();
  await form.getByTestId('reject-text').fill('jjj');
  await expect(item).toHaveAttribute('aria-selected', 'true');
  await form.getByTestId('reject-text').press('Escape');
  await expect(form).toBeHidden();
  expect(accepts).toEqual([]);
  expect((await detailOf(page.request, changeId)).fixes.find((f) => f.id === fixId)?.status).toBe('READY');
});

test('a reviewer reads the root cause, opens the Monaco diff from our origin, and records a preview', async ({ page, baseURL }) => {
  const urls = recordRequests(page);
  await signInAs(page, 'reviewer');
  // a real fix (PR-418's, made READY by the test above), whose evidence has all four gates
  const { fixId } = await openFirstQueuedFix(page);

  // root cause first, then the validation chain
  const card = page.getByTestId('fix-card');
  await expect(card.getByTestId('fix-summary')).toContainText(/root cause/i);
  await expect(card.getByTestId('fix-gate')).toHaveCount(4);
  const order = await card.evaluate((el) =>
    ['fix-summary', 'fix-evidence', 'fix-decisions'].map((id) => {
      const node = el.querySelector(`[data-testid="${id}"]`);
      return node ? Array.from(el.querySelectorAll('*')).indexOf(node) : -1;
    }),
  );
  expect(order[0]).toBeGreaterThanOrEqual(0);
  expect(order[0]).toBeLessThan(order[1]);
  expect(order[1]).toBeLessThan(order[2]);
  await expect(page.getByTestId('git-apply-command')).toHaveValue(`git apply --index flowfix-${fixId}.patch`);

  // the changed lines are on the card, beside Accept, before any click
  await expect(card.getByTestId('changed-lines').locator('[data-kind="added"]').first()).toBeVisible();
  await expect(card.getByTestId('changed-lines').locator('[data-kind="removed"]').first()).toBeVisible();
  await expect(card.getByTestId('fix-accept')).toBeVisible();

  const preview = page.waitForResponse((r) => r.url().endsWith(`/api/fixes/${fixId}/preview`) && r.request().method() === 'POST');
  await page.getByTestId('fix-toggle-diff').click();
  expect((await preview).status()).toBe(200);

  const editor = page.locator('.monaco-diff-editor');
  await expect(editor).toBeVisible();
  // Monaco has computed the diff (in its worker) and decorated a changed line
  await expect(page.locator('.monaco-diff-editor .line-insert, .monaco-diff-editor .char-insert').first()).toBeVisible();
  await expect(page.locator('.monaco-diff-editor .line-delete, .monaco-diff-editor .char-delete').first()).toBeVisible();

  await page.getByTestId('diff-inline').click();
  await expect(page.getByTestId('diff-inline')).toHaveAttribute('aria-pressed', 'true');
  await expect(editor).toBeVisible();

  // closing and reopening the diff in the same page view records no second preview
  let again = 0;
  page.on('request', (r) => {
    if (r.url().endsWith(`/api/fixes/${fixId}/preview`)) again += 1;
  });
  await page.getByTestId('fix-toggle-diff').click();
  await page.getByTestId('fix-toggle-diff').click();
  await expect(editor).toBeVisible();
  expect(again).toBe(0);

  // a new page view previews again: the server still counts one preview of this fix by this reviewer
  const changeId = new URL(page.url()).pathname.split('/').at(-1)!;
  const previewsOf = async () => (await detailOf(page.request, changeId)).fixes.find((f) => f.id === fixId)?.previews;
  const once = await previewsOf();
  expect(once).toBeGreaterThanOrEqual(1);
  await page.reload();
  const second = page.waitForResponse((r) => r.url().endsWith(`/api/fixes/${fixId}/preview`) && r.request().method() === 'POST');
  await page.getByTestId('fix-toggle-diff').click();
  expect((await second).status()).toBe(200);
  expect(await previewsOf()).toBe(once);

  expect(foreign(urls, baseURL!)).toEqual([]);
  // the worker itself came from our origin too
  expect(urls.some((u) => /\.js(\?|$)/.test(u) && /worker/i.test(u))).toBe(true);
});

test('a deep link opens the fix and the file in the diff', async ({ page }) => {
  await signInAs(page, 'reviewer');
  const { fixId } = await openFirstQueuedFix(page, { history: true });
  const href = new URL(page.url()).pathname + new URL(page.url()).search;
  const res = await page.request.get(`/api/fixes/${fixId}/files`);
  const { files } = (await res.json()) as { files: Array<{ path: string }> };
  const file = files.at(-1)!.path;
  await page.goto(`${href}&file=${encodeURIComponent(file)}`);
  await expect(page.getByTestId('diff-current-file')).toHaveText(file);
  await expect(page.locator('.monaco-diff-editor')).toBeVisible();
});

test('a demo history fix is read-only: marked as history, no decision buttons, accept refused', async ({ page }) => {
  await signInAs(page, 'reviewer');
  const { fixId } = await openFirstQueuedFix(page, { history: true });
  await expect(page.getByTestId('fix-card').getByText('history', { exact: true })).toBeVisible();
  await expect(page.getByTestId('fix-history-note')).toBeVisible();
  await expect(page.getByTestId('fix-accept')).toHaveCount(0);
  await expect(page.getByTestId('fix-reject')).toHaveCount(0);
  const res = await page.request.post(`/api/fixes/${fixId}/accept`, { data: {}, headers: FROM_OUR_PAGE });
  expect(res.status()).toBe(409);
  expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/demo history/);
});

test('a manager reads fixes but gets no decision buttons; a grader who holds no other role is refused the fix', async ({ page, browser }) => {
  await signInAs(page, 'manager');
  const { fixId } = await openFirstQueuedFix(page);
  await expect(page.getByTestId('fix-summary')).toBeVisible();
  await expect(page.getByTestId('fix-decisions-readonly')).toBeVisible();
  await expect(page.getByTestId('fix-accept')).toHaveCount(0);
  await expect(page.getByTestId('run-agent')).toHaveCount(0);
  const changeUrl = page.url();

  const context = await browser.newContext();
  const grader = await context.newPage();
  await signInAs(grader, 'grader');
  await grader.goto(changeUrl);
  await expect(grader.getByRole('heading', { name: 'Not allowed' })).toBeVisible();
  await expect(grader.getByTestId('fix-summary')).toHaveCount(0);
  expect((await grader.request.get(`/api/fixes/${fixId}`)).status()).toBe(403);
  await context.close();
});

test('HTML and script in a test name and a log are shown as text', async ({ page, request }) => {
  const token = readFileSync(path.resolve(DATA_DIR, 'demo-ci-token'), 'utf8').trim();
  const externalId = `XSS-${Date.now()}`;
  const res = await request.post('/api/v1/failures', {
    headers: { authorization: `Bearer ${token}` },
    data: {
      repository: 'checkout-ts',
      change: { externalId, title: `Hostile ${HOSTILE}`, author: 'mallory', branch: 'xss/probe', description: HOSTILE },
      baseRev: 'a'.repeat(40),
      headRev: 'b'.repeat(40),
      tests: [
        {
          name: `renders ${HOSTILE}`,
          classname: 'test/xss.test.js',
          message: 'Expected values to be strictly equal:\n\n9 !== 10\n',
          details: `AssertionError: ${HOSTILE}`,
        },
      ],
      log: `step 1 ok\n${HOSTILE}\nstep 3 failed\n`,
    },
  });
  expect(res.status()).toBe(201);
  const { changeId } = (await res.json()) as { changeId: string };

  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await signInAs(page, 'reviewer');
  await page.goto(`/changes/${changeId}`);
  const pageRoot = page.getByTestId('change-page');
  await expect(page.getByTestId('change-title')).toHaveText(`Hostile ${HOSTILE}`);
  await expect(page.getByTestId('failure-name')).toHaveText(`renders ${HOSTILE}`);
  await expect(page.getByTestId('value-diff')).toContainText('expected');

  // the log is collapsed until asked for; its search highlights the match
  await expect(page.getByTestId('ci-log-text')).toHaveCount(0);
  await page.getByTestId('ci-log-toggle').click();
  await page.getByTestId('ci-log-search').fill('onerror');
  await expect(page.getByTestId('ci-log-count')).toHaveText('1 matching line');
  await expect(page.getByTestId('log-match')).toHaveText('onerror');
  await expect(page.getByTestId('ci-log-line')).toHaveCount(1);
  await expect(page.getByTestId('ci-log-line')).toContainText(HOSTILE);

  expect(await pageRoot.locator('img, script').count()).toBe(0);
  expect(dialogs).toEqual([]);
});

// ───── edit then accept, on a real fix the embedded worker makes ─────

const FIX_WAIT_MS = 360_000;

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: path.resolve(DATA_DIR, 'repos', repo),
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

async function demoChangeId(request: APIRequestContext, externalId: string): Promise<string> {
  const res = await request.get(`/api/changes?q=${encodeURIComponent(externalId)}`);
  const page = (await res.json()) as { items: Array<{ id: string; externalId: string; isHistory: boolean }> };
  const item = page.items.find((i) => i.externalId === externalId && !i.isHistory);
  expect(item, `demo change ${externalId} is listed`).toBeTruthy();
  return item!.id;
}

type Detail = { runs: Array<{ status: string }>; fixes: Array<{ id: string; status: string; decision: { kind: string } | null; previews: number }> };

async function detailOf(request: APIRequestContext, changeId: string): Promise<Detail> {
  const res = await request.get(`/api/changes/${changeId}`);
  expect(res.ok()).toBe(true);
  return (await res.json()) as Detail;
}

/** Waits for the agent's READY fix, asking for a run if none is under way. */
async function waitForReadyFix(request: APIRequestContext, changeId: string): Promise<string> {
  let asked = false;
  let fixId: string | undefined;
  await expect
    .poll(
      async () => {
        const detail = await detailOf(request, changeId);
        fixId = detail.fixes.find((f) => f.status === 'READY')?.id;
        if (fixId) return 'ready';
        if (!asked && !detail.runs.some((r) => r.status === 'QUEUED' || r.status === 'RUNNING')) {
          asked = true;
          const started = await request.post(`/api/changes/${changeId}/runs`, { data: {}, headers: FROM_OUR_PAGE });
          expect(started.status(), await started.text()).toBeLessThan(300);
        }
        return 'waiting';
      },
      { timeout: FIX_WAIT_MS, intervals: [1000, 2000, 3000] },
    )
    .toBe('ready');
  return fixId!;
}

test('edit then accept: the edited modified side is re-validated and committed on the branch', async ({ page }) => {
  test.setTimeout(2 * FIX_WAIT_MS + 60_000);
  await signInAs(page, 'reviewer');
  // PR-418's fix updates a test's expectation (the change switched to banker's
  // rounding on purpose); the reviewer adds a comment to it before accepting
  const changeId = await demoChangeId(page.request, 'PR-418');
  const fixId = await waitForReadyFix(page.request, changeId);
  const branch = 'pr/418-bankers-rounding';
  const before = git('checkout-ts', 'rev-parse', `refs/heads/${branch}`);

  await page.goto(`/changes/${changeId}?fix=${fixId}`);
  await page.getByTestId('fix-edit').click();
  await expect(page.getByTestId('edit-bar')).toBeVisible();
  const file = (await page.getByTestId('diff-current-file').textContent())!;
  const modified = page.locator('.monaco-diff-editor .editor.modified .view-lines');
  await expect(modified).toBeVisible();
  await expect(page.getByTestId('diff-not-editable')).toHaveCount(0);
  await modified.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('// reviewed in flowfix\n');
  await expect(page.getByTestId('diff-file').filter({ hasText: 'edited' })).toHaveCount(1);

  await page.getByTestId('edit-submit').click();
  // the submit closes the edit; the fix card follows the re-validation run
  await expect(page.getByTestId('edit-bar')).toHaveCount(0);
  await expect(page.getByTestId('fix-revalidation').getByTestId('edit-run-link')).toHaveAttribute('href', /^\/runs\//);

  // the REVALIDATE run passes the gates, then the edited fix is applied
  await expect
    .poll(async () => (await detailOf(page.request, changeId)).fixes.find((f) => f.id === fixId)?.status, {
      timeout: FIX_WAIT_MS,
      intervals: [1000, 2000, 3000],
    })
    .toBe('APPLIED');
  const tip = git('checkout-ts', 'rev-parse', `refs/heads/${branch}`);
  expect(git('checkout-ts', 'rev-parse', `${tip}^`)).toBe(before);
  expect(git('checkout-ts', 'show', `${tip}:${file}`)).toContain('// reviewed in flowfix');
  await page.reload();
  await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'APPLIED');
  await expect(page.getByTestId('fix-status')).toContainText('edited before applying');

  // the change page without ?fix= puts the applied fix in front, with its
  // commit (in its status line) and the committed edit; the re-validation's own fix is not listed
  // as another (dropped) fix, and nothing offers a patch to apply
  await page.goto(`/changes/${changeId}`);
  await expect(page.getByTestId('fix-card')).toHaveAttribute('data-fix-id', fixId);
  await expect(page.getByTestId('fix-card-title')).toHaveText('Applied fix');
  await expect(page.getByTestId('fix-status').getByTestId('fix-applied-commit')).toContainText(tip.slice(0, 10));
  await expect(page.getByTestId('download-patch')).toHaveCount(0);
  await expect(page.getByTestId('fix-edited')).toBeVisible();
  await expect(page.getByTestId('fix-card')).toContainText('// reviewed in flowfix');
  await expect(page.getByTestId('other-fix-status').filter({ hasText: 'dropped' })).toHaveCount(0);
});
