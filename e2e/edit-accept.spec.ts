import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_BASE_URL, E2E_DATA_DIR } from '../playwright.config';
import { signInAs } from './helpers';
import { ledgerPy } from '../demo/repos/ledger-py';
import { collectDemoReport, postFailureReport } from '../demo/report';

// Edit then accept when the reviewer renames the failing test to match the
// fix's new expectation, in the browser: a refused edit says on the fix card
// which test failed and why; after each submit the edit panel closes, no
// earlier error stays on screen and the decisions are usable again; the edit
// that passes is committed, and the card then shows the committed edit (not
// the agent's diff) with no "dropped" fix beside it.
//
// The change is the spec's own: a new branch of the demo's ledger-py with
// MR-61's deliberate fee change (a stale expectation the offline tier
// updates), its suite run for real and reported as CI would, so no demo
// change is decided here. Its run is queued after the demo's own runs: the
// wait is sized for that queue (as e2e/editor.spec.ts's is).

const REPOS = path.resolve(E2E_DATA_DIR, 'repos');
const FIX_WAIT_MS = 15 * 60_000;
const RUN_WAIT_MS = 6 * 60_000;
const TEMPLATE = ledgerPy.changes.find((c) => c.externalId === 'MR-61')!;
const STAMP = Date.now().toString(36);
const CHANGE = {
  externalId: `EA-${STAMP}`,
  title: `${TEMPLATE.title} (edit e2e)`,
  branch: `ea/${STAMP}-overdraft-fee`,
};
const OLD_NAME = 'test_overdraft_fee_charged_when_negative';
const NEW_NAME = 'test_overdraft_fee_is_35_below_zero';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'flowfix tests',
  GIT_AUTHOR_EMAIL: 'tests@flowfix.invalid',
  GIT_COMMITTER_NAME: 'flowfix tests',
  GIT_COMMITTER_EMAIL: 'tests@flowfix.invalid',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

/** Pushes the spec's branch (main + MR-61's edit) to ledger-py and reports its real failing suite as CI would. */
async function reportOwnChange(): Promise<void> {
  const origin = path.join(REPOS, 'ledger-py');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-edit-change-'));
  try {
    git(scratch, 'clone', '-q', '--branch', 'main', origin, 'c');
    const dir = path.join(scratch, 'c');
    const baseSha = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-q', '-b', CHANGE.branch);
    for (const [rel, text] of Object.entries(TEMPLATE.files)) if (text !== null) fs.writeFileSync(path.join(dir, rel), text);
    git(dir, 'commit', '-q', '-am', CHANGE.title);
    const headSha = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'push', '-q', 'origin', CHANGE.branch);
    const spec = { ...TEMPLATE, externalId: CHANGE.externalId, branch: CHANGE.branch, title: CHANGE.title, date: new Date().toISOString() };
    const collected = await collectDemoReport({
      repo: { spec: ledgerPy, dir: origin, mainSha: baseSha, changes: [], rebuilt: false },
      change: { spec, baseSha, headSha },
    });
    expect(collected.kind, 'the branch fails its suite').toBe('failing');
    if (collected.kind !== 'failing') return;
    const token = fs.readFileSync(path.join(E2E_DATA_DIR, 'demo-ci-token'), 'utf8').trim();
    const posted = await postFailureReport({ baseUrl: E2E_BASE_URL, token, body: collected.body });
    expect(posted.status, JSON.stringify(posted.response)).toBeLessThan(300);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

type Detail = { runs: Array<{ status: string; exitReason?: string | null; exitDetail?: string | null }>; fixes: Array<{ id: string; status: string }> };

/** The change's READY fix, made by the agent's run that the report queued. */
async function readyFixOf(page: Page): Promise<{ changeId: string; fixId: string }> {
  let changeId = '';
  let fixId = '';
  await expect
    .poll(
      async () => {
        if (!changeId) {
          const list = (await (await page.request.get(`/api/changes?q=${encodeURIComponent(CHANGE.externalId)}`)).json()) as {
            items: Array<{ id: string; externalId: string }>;
          };
          changeId = list.items.find((i) => i.externalId === CHANGE.externalId)?.id ?? '';
          if (!changeId) return 'not listed yet';
        }
        const detail = (await (await page.request.get(`/api/changes/${changeId}`)).json()) as Detail;
        fixId = detail.fixes.find((f) => f.status === 'READY')?.id ?? '';
        if (fixId) return 'ready';
        const ended = detail.runs.length > 0 && detail.runs.every((r) => ['NO_FIX', 'FAILED', 'CANCELLED'].includes(r.status));
        if (ended)
          throw new Error(`the run ended without a fix: ${detail.runs.map((r) => `${r.status} ${r.exitReason ?? ''} ${r.exitDetail ?? ''}`).join('; ')}`);
        return 'waiting';
      },
      { timeout: FIX_WAIT_MS, intervals: [1000, 2000, 3000] },
    )
    .toBe('ready');
  return { changeId, fixId };
}

/** Selects `find` in the modified side with Monaco's own find widget, then types `replace` over it. */
async function replaceInEditor(page: Page, find: string, replace: string): Promise<void> {
  await page.locator('.monaco-diff-editor .editor.modified .view-lines').click();
  await page.keyboard.press('Control+F');
  const input = page.getByRole('textbox', { name: 'Find' });
  await expect(input).toBeFocused();
  await input.fill(find);
  // Monaco's own count of matches (the page says "1 of 16 tests failed" elsewhere)
  await expect(page.locator('.monaco-diff-editor .find-widget .matchesCount')).toHaveText('1 of 1');
  await page.keyboard.press('Escape');
  await page.keyboard.type(replace);
}

/** Opens the edit, renames the failing test, optionally sets another expected fee, and submits. */
async function submitEdit(page: Page, fee?: string): Promise<void> {
  await page.getByTestId('fix-edit').click();
  await expect(page.getByTestId('edit-bar')).toBeVisible();
  await expect(page.getByTestId('diff-not-editable')).toHaveCount(0);
  await replaceInEditor(page, OLD_NAME, NEW_NAME);
  if (fee) await replaceInEditor(page, '35.00', fee);
  await expect(page.getByTestId('diff-file').filter({ hasText: 'edited' })).toHaveCount(1);
  await page.getByTestId('edit-submit').click();
  // the submit closes the edit: nothing greyed, no error, the run to follow on the card
  await expect(page.getByTestId('edit-bar')).toHaveCount(0);
  await expect(page.getByTestId('fix-revalidation')).toHaveAttribute('data-state', 'running');
  await expect(page.getByTestId('fix-revalidation').getByTestId('edit-run-link')).toHaveAttribute('href', /^\/runs\//);
  await expect(page.getByTestId('fix-decision-error')).toHaveCount(0);
  for (const id of ['fix-accept', 'fix-edit', 'fix-reject']) await expect(page.getByTestId(id)).toBeEnabled();
}

test('edit then accept with the failing test renamed: the refusal says why, each submit resets the panel, the committed edit is what the card shows', async ({
  page,
}) => {
  test.setTimeout(FIX_WAIT_MS + 2 * RUN_WAIT_MS + 120_000);
  await signInAs(page, 'reviewer');
  await reportOwnChange();
  const { changeId, fixId } = await readyFixOf(page);
  await page.goto(`/changes/${changeId}?fix=${fixId}`);
  await expect(page.getByTestId('fix-card-title')).toHaveText('Proposed fix');
  const agentStat = (await page.getByTestId('fix-changes-title').textContent())!;

  // a renamed test whose expectation is wrong: refused, and the card says which test failed and its message
  await submitEdit(page, '36.00');
  const note = page.getByTestId('fix-revalidation');
  await expect(note).toHaveAttribute('data-state', 'refused', { timeout: RUN_WAIT_MS });
  await expect(note.getByTestId('fix-revalidation-reason')).toContainText(NEW_NAME);
  await expect(note.getByTestId('fix-revalidation-reason')).toContainText('36.00');
  await expect(note.getByTestId('fix-revalidation-reason')).not.toContainText('no_candidate');
  await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'READY');
  // the change's status line is written just after the run ends (lib/fixes/edit-accept.ts): a reload reads it
  await page.reload();
  await expect(page.getByTestId('change-status-reason')).toContainText(NEW_NAME);
  await expect(page.getByTestId('fix-revalidation')).toHaveAttribute('data-state', 'refused');
  for (const id of ['fix-accept', 'fix-edit', 'fix-reject']) await expect(page.getByTestId(id)).toBeEnabled();

  // the corrected edit: the earlier refusal leaves the page, the re-validation follows the renamed test
  await submitEdit(page);
  await expect(page.getByTestId('fix-revalidation-reason')).toHaveCount(0);
  await expect(page.getByTestId('change-status-reason').filter({ hasText: 'did not pass re-validation' })).toHaveCount(0);
  await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'APPLIED', { timeout: RUN_WAIT_MS });
  await expect(page.getByTestId('fix-status')).toContainText('edited before applying');
  await expect(page.getByTestId('fix-revalidation')).toHaveCount(0);
  const committed = git(path.join(REPOS, 'ledger-py'), 'show', `refs/heads/${CHANGE.branch}:tests/test_fees.py`);
  expect(committed).toContain(`def ${NEW_NAME}():`);
  expect(committed).toContain('Decimal("35.00")');

  // what the card shows is what the branch has: the reviewer's edit, one line more than the agent's fix,
  // and the re-validation's own fix is not listed as another (dropped) fix
  await page.goto(`/changes/${changeId}`);
  await expect(page.getByTestId('fix-card')).toHaveAttribute('data-fix-id', fixId);
  await expect(page.getByTestId('fix-card-title')).toHaveText('Applied fix');
  await expect(page.getByTestId('fix-edited')).toBeVisible();
  await expect(page.getByTestId('fix-changes-title')).not.toHaveText(agentStat);
  await expect(page.getByTestId('fix-card')).toContainText(`def ${NEW_NAME}():`);
  await expect(page.getByTestId('other-fixes')).toHaveCount(0);
  await page.getByTestId('fix-toggle-diff').click();
  await expect(page.locator('.monaco-diff-editor .editor.modified .view-lines')).toContainText(NEW_NAME);
});
