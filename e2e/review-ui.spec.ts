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

/** Opens the newest queued fix (with `history`: the newest generated one, leaving real fixes to other tests). */
async function openFirstQueuedFix(page: Page, { history = false }: { history?: boolean } = {}): Promise<{ fixId: string }> {
  await page.goto('/review');
  const items = page.getByTestId('queue-item');
  const first = (history ? items.filter({ hasText: '[history]' }) : items).first();
  await expect(first).toBeVisible();
  const fixId = (await first.getAttribute('data-fix-id'))!;
  await first.getByTestId('queue-open').click();
  await expect(page).toHaveURL(new RegExp(`/changes/[^?]+\\?fix=${fixId}`));
  return { fixId };
}

test('the review queue moves with j/k, opens with o, and ignores shortcuts while typing', async ({ page }) => {
  await signInAs(page, 'reviewer');
  await page.goto('/review');
  await expect(page.getByTestId('shortcut-legend')).toContainText('next');
  const items = page.getByTestId('queue-item');
  await expect(items.nth(1)).toBeVisible();
  await expect(items.nth(0)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('j');
  await expect(items.nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('k');
  await expect(items.nth(0)).toHaveAttribute('aria-selected', 'true');

  // r opens the reject form; typing "j" in its note must not move the selection
  await page.keyboard.press('r');
  const form = items.nth(0).getByTestId('reject-form');
  await expect(form).toBeVisible();
  await form.getByTestId('reject-text').fill('jjj');
  await expect(items.nth(0)).toHaveAttribute('aria-selected', 'true');
  await form.getByRole('button', { name: 'Cancel' }).click();
  await expect(form).toBeHidden();

  const fixId = await items.nth(0).getAttribute('data-fix-id');
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('o');
  await expect(page).toHaveURL(new RegExp(`\\?fix=${fixId}`));
  await expect(page.getByTestId('fix-card')).toHaveAttribute('data-fix-id', fixId!);
});

test('a reviewer reads the root cause, opens the Monaco diff from our origin, and records a preview', async ({ page, baseURL }) => {
  const urls = recordRequests(page);
  await signInAs(page, 'reviewer');
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

  expect(foreign(urls, baseURL!)).toEqual([]);
  // the worker itself came from our origin too
  expect(urls.some((u) => /\.js(\?|$)/.test(u) && /worker/i.test(u))).toBe(true);
});

test('a deep link opens the fix and the file in the diff', async ({ page }) => {
  await signInAs(page, 'reviewer');
  await page.goto('/review');
  const first = page.getByTestId('queue-item').first();
  await expect(first).toBeVisible();
  const href = (await first.getByTestId('queue-open').getAttribute('href'))!;
  const res = await page.request.get(`/api/fixes/${new URL(href, 'http://x').searchParams.get('fix')}/files`);
  const { files } = (await res.json()) as { files: Array<{ path: string }> };
  const file = files.at(-1)!.path;
  await page.goto(`${href}&file=${encodeURIComponent(file)}`);
  await expect(page.getByTestId('diff-current-file')).toHaveText(file);
  await expect(page.locator('.monaco-diff-editor')).toBeVisible();
});

test('a reject reason is stored and shown', async ({ page }) => {
  await signInAs(page, 'reviewer');
  await openFirstQueuedFix(page, { history: true });
  await page.getByTestId('fix-reject').click();
  await page.getByTestId('reject-reason-TESTS_TAMPERED').check();
  await page.getByTestId('reject-text').fill('it edits the assertion');
  await page.getByTestId('reject-confirm').click();
  await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'REJECTED');
  await expect(page.getByTestId('fix-reject-reason')).toContainText('Tests tampered with');
  await page.reload();
  await expect(page.getByTestId('fix-reject-reason')).toContainText('it edits the assertion');
});

test('a grader reads fixes but gets no decision buttons', async ({ page }) => {
  await signInAs(page, 'grader');
  await openFirstQueuedFix(page);
  await expect(page.getByTestId('fix-summary')).toBeVisible();
  await expect(page.getByTestId('fix-decisions-readonly')).toBeVisible();
  await expect(page.getByTestId('fix-accept')).toHaveCount(0);
  await expect(page.getByTestId('run-agent')).toHaveCount(0);
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

type Detail = { runs: Array<{ status: string }>; fixes: Array<{ id: string; status: string; decision: { kind: string } | null }> };

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
  await expect(page.getByTestId('edit-accepted')).toBeVisible();
  await expect(page.getByTestId('edit-run-link')).toHaveAttribute('href', /^\/runs\//);

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
});
