import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { E2E_DATA_DIR } from '../playwright.config';
import { FROM_OUR_PAGE, signInAs } from './helpers';

// A reviewer decides on REAL fixes: the demo's changes are real git
// repositories under <dataDir>/repos, and the agent (the embedded worker,
// offline policy) makes each fix first, so accepting writes a real commit
// on the change's branch. Checked with git against those repositories.

const REPOS = path.resolve(E2E_DATA_DIR, 'repos');
const FIX_WAIT_MS = 360_000;

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: path.join(REPOS, repo),
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

interface FixSummary {
  id: string;
  status: string;
}

async function changeIdOf(request: APIRequestContext, externalId: string): Promise<string> {
  const res = await request.get(`/api/changes?q=${encodeURIComponent(externalId)}`);
  expect(res.ok()).toBe(true);
  const page = (await res.json()) as { items: Array<{ id: string; externalId: string; isHistory: boolean }> };
  const item = page.items.find((i) => i.externalId === externalId && !i.isHistory);
  expect(item, `demo change ${externalId} is listed`).toBeTruthy();
  return item!.id;
}

/**
 * The change's READY fix, made by the agent: ingestion queues a run for each
 * demo change; if none is active and no fix is ready, ask for one
 * ("Run agent"), then wait for the worker to finish it.
 */
async function readyFix(request: APIRequestContext, changeId: string): Promise<FixSummary> {
  let asked = false;
  let found: FixSummary | undefined;
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/changes/${changeId}`);
        if (!res.ok()) return `HTTP ${res.status()}`;
        const detail = (await res.json()) as { runs: Array<{ status: string }>; fixes: FixSummary[] };
        found = detail.fixes.find((f) => f.status === 'READY');
        if (found) return 'ready';
        const active = detail.runs.some((r) => r.status === 'QUEUED' || r.status === 'RUNNING');
        if (!active && !asked) {
          asked = true;
          const started = await request.post(`/api/changes/${changeId}/runs`, { data: {}, headers: FROM_OUR_PAGE });
          expect(started.status(), await started.text()).toBeLessThan(300);
        }
        return `waiting (runs: ${detail.runs.map((r) => r.status).join(', ') || 'none'})`;
      },
      { timeout: FIX_WAIT_MS, intervals: [1000, 2000, 3000] },
    )
    .toBe('ready');
  return found!;
}

async function openFix(page: Page, changeId: string, fixId: string): Promise<void> {
  await page.goto(`/changes/${changeId}`);
  await expect(page.getByTestId('fix-card')).toHaveAttribute('data-fix-id', fixId);
  await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'READY');
}

test.describe('review and apply on real demo repositories', () => {
  test.describe.configure({ timeout: FIX_WAIT_MS + 120_000 });

  test.beforeEach(async ({ page }) => {
    await signInAs(page, 'reviewer');
  });

  test('accept writes the fix as a commit on the change’s branch, authored by the reviewer', async ({ page }) => {
    const changeId = await changeIdOf(page.request, 'PR-412');
    const fix = await readyFix(page.request, changeId);
    const branch = 'pr/412-promo-window-timestamps';
    const before = git('checkout-ts', 'rev-parse', `refs/heads/${branch}`);
    const checkedOut = git('checkout-ts', 'rev-parse', 'HEAD');

    await openFix(page, changeId, fix.id);
    await page.getByTestId('fix-accept').click();
    await expect(page.getByTestId('fix-decision-ok')).toBeVisible();
    await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'APPLIED');

    const tip = git('checkout-ts', 'rev-parse', `refs/heads/${branch}`);
    expect(tip).not.toBe(before);
    expect(git('checkout-ts', 'rev-parse', `${tip}^`)).toBe(before);
    expect(git('checkout-ts', 'log', '-1', '--format=%ae|%cn', tip)).toBe('reviewer@demo.flowfix|flowfix');
    const message = git('checkout-ts', 'log', '-1', '--format=%B', tip);
    expect(message).toContain('Fixed-by: flowfix');
    expect(message).toContain(`Flowfix-Fix: ${fix.id}`);
    expect(git('checkout-ts', 'show', `${tip}:src/windows.ts`)).toContain('t <= Date.parse(window.end)');
    // the page shows the commit's short id
    const shown = (await page.getByTestId('fix-applied-commit').textContent())?.trim() ?? '';
    expect(shown.length).toBeGreaterThanOrEqual(7);
    expect(tip.startsWith(shown), `${shown} is a prefix of ${tip}`).toBe(true);
    // the server's working repository: its checked-out branch and files were not touched
    expect(git('checkout-ts', 'rev-parse', 'HEAD')).toBe(checkedOut);
    expect(git('checkout-ts', 'status', '--porcelain')).toBe('');
  });

  test('a reject from the review queue moves the selection to the next card; the reason is stored and shown after a reload', async ({ page }) => {
    const changeId = await changeIdOf(page.request, 'PR-415');
    const fix = await readyFix(page.request, changeId);
    await page.goto('/review');
    // the demo history (read-only) below the real fixes: there is always a card after PR-415's
    await page.getByTestId('queue-include-history').check();
    const item = page.locator(`[data-testid="queue-item"][data-fix-id="${fix.id}"]`);
    await item.click();
    await expect(item).toHaveAttribute('aria-selected', 'true');
    // the changed lines are beside Accept and Reject, before any decision
    await expect(page.getByTestId('queue-detail').getByTestId('changed-lines').locator('[data-kind="added"]').first()).toBeVisible();
    const ids = await page.getByTestId('queue-item').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-fix-id')!));
    const at = ids.indexOf(fix.id);
    const expected = ids[at + 1] ?? ids[at - 1];
    await page.getByTestId('queue-reject').click();
    await page.getByTestId('reject-reason-NOT_HOW_I_WOULD').check();
    await page.getByTestId('reject-text').fill('I would rather inline the predicates');
    await page.getByTestId('reject-confirm').click();
    await expect(item).toHaveCount(0);
    await expect(page.locator(`[data-testid="queue-item"][data-fix-id="${expected}"]`)).toHaveAttribute('aria-selected', 'true');
    await expect(page.locator('[data-testid="queue-item"][aria-selected="true"]')).toHaveCount(1);

    await page.goto(`/changes/${changeId}?fix=${fix.id}`);
    await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'REJECTED');
    await page.reload();
    await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'REJECTED');
    await expect(page.getByTestId('fix-reject-reason')).toContainText('Correct, but not how I would do it');
    await expect(page.getByTestId('fix-reject-reason')).toContainText('I would rather inline the predicates');
  });

  test('accept on a branch that moved since the run is refused; the branch and the fix’s diff are kept', async ({ page }) => {
    const changeId = await changeIdOf(page.request, 'MR-59');
    const fix = await readyFix(page.request, changeId);
    const branch = 'mr/59-balance-by-kind';
    // the developer pushes another commit after flowfix ran (written without a work tree)
    const tip = git('ledger-py', 'rev-parse', `refs/heads/${branch}`);
    const moved = execFileSync('git', ['commit-tree', `${tip}^{tree}`, '-p', tip, '-m', 'Developer keeps working'], {
      cwd: path.join(REPOS, 'ledger-py'),
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_AUTHOR_NAME: 'Dev',
        GIT_AUTHOR_EMAIL: 'dev@example.com',
        GIT_COMMITTER_NAME: 'Dev',
        GIT_COMMITTER_EMAIL: 'dev@example.com',
      },
    }).trim();
    git('ledger-py', 'update-ref', `refs/heads/${branch}`, moved, tip);

    await openFix(page, changeId, fix.id);
    await page.getByTestId('fix-accept').click();
    await expect(page.getByTestId('fix-decision-error')).toContainText(
      `moved from ${tip.slice(0, 12)} to ${moved.slice(0, 12)} since flowfix ran; the fix was not applied and is now stale`,
    );
    await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'STALE');
    expect(git('ledger-py', 'rev-parse', `refs/heads/${branch}`)).toBe(moved);
    const patch = await page.request.get(`/api/fixes/${fix.id}/patch`);
    expect(patch.ok()).toBe(true);
    expect(patch.headers()['content-type']).toContain('text/x-diff');
    expect(await patch.text()).toContain('ledger/accounts.py');
  });
});
