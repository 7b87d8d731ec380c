import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_DATA_DIR } from '../playwright.config';
import { FROM_OUR_PAGE, signInAs } from './helpers';
import { ensureCodeServer } from '../scripts/ensure-code-server.mjs';

// The VS Code extension in a real VS Code host: code-server (installed by
// scripts/ensure-code-server.mjs) on loopback without auth, the packaged
// .vsix installed into it, a real git checkout of a demo change's branch
// opened as the workspace, a real editor token made through the API. The
// spec signs in, sees the branch's fix in the panel and the status bar,
// previews it in the diff editor, applies it, and checks the file on disk
// and the decision on the server (surface IDE).

const REPOS = path.resolve(E2E_DATA_DIR, 'repos');
const EDITOR_PORT = Number(process.env.FLOWFIX_E2E_EDITOR_PORT ?? Number(process.env.FLOWFIX_E2E_PORT ?? 3100) + 10);
const EDITOR_URL = `http://127.0.0.1:${EDITOR_PORT}`;
const FIX_WAIT_MS = 360_000;
const CHANGE = { externalId: 'MR-57', repo: 'ledger-py', branch: 'mr/57-simpler-page-count', file: 'ledger/statements.py' };

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

let codeServer: ChildProcess | null = null;
let work = '';

test.afterAll(async () => {
  if (codeServer?.pid) codeServer.kill('SIGTERM');
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function readyFixOf(page: Page, externalId: string): Promise<{ changeId: string; fixId: string }> {
  const list = await page.request.get(`/api/changes?q=${encodeURIComponent(externalId)}`);
  const item = ((await list.json()) as { items: Array<{ id: string; externalId: string; isHistory: boolean }> }).items.find((i) => i.externalId === externalId && !i.isHistory);
  expect(item, `demo change ${externalId} is listed`).toBeTruthy();
  let fixId = '';
  let asked = false;
  await expect
    .poll(
      async () => {
        const detail = (await (await page.request.get(`/api/changes/${item!.id}`)).json()) as { runs: Array<{ status: string }>; fixes: Array<{ id: string; status: string }> };
        fixId = detail.fixes.find((f) => f.status === 'READY')?.id ?? '';
        if (fixId) return 'ready';
        if (!asked && !detail.runs.some((r) => r.status === 'QUEUED' || r.status === 'RUNNING')) {
          asked = true;
          const started = await page.request.post(`/api/changes/${item!.id}/runs`, { data: {}, headers: FROM_OUR_PAGE });
          expect(started.status(), await started.text()).toBeLessThan(300);
        }
        return `waiting (runs: ${detail.runs.map((r) => r.status).join(', ') || 'none'})`;
      },
      { timeout: FIX_WAIT_MS, intervals: [1000, 2000, 3000] },
    )
    .toBe('ready');
  return { changeId: item!.id, fixId };
}

/** code-server on loopback, no auth, its own folders, the .vsix installed; resolves when it answers. */
async function startCodeServer(folder: string, serverUrl: string): Promise<void> {
  const entry: string = ensureCodeServer();
  const vsix = path.resolve('extension/dist/flowfix.vsix');
  expect(fs.existsSync(vsix), `${vsix} is built (npm run package in extension/)`).toBe(true);
  const config = path.join(work, 'code-server.yaml');
  fs.writeFileSync(config, `bind-addr: 127.0.0.1:${EDITOR_PORT}\nauth: none\ncert: false\n`);
  const userData = path.join(work, 'user-data');
  const extensions = path.join(work, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'flowfix.serverUrl': serverUrl,
      'security.workspace.trust.enabled': false,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'git.autofetch': false,
    }),
  );
  const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];
  execFileSync(process.execPath, [entry, ...common, '--install-extension', vsix], { encoding: 'utf8', env: { ...process.env, HOME: work } });
  codeServer = spawn(process.execPath, [entry, ...common, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', folder], {
    env: { ...process.env, HOME: work, GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  codeServer.stdout?.on('data', (d) => (log += d));
  codeServer.stderr?.on('data', (d) => (log += d));
  await expect
    .poll(async () => {
      if (codeServer?.exitCode !== null) throw new Error(`code-server exited: ${log}`);
      return fetch(`${EDITOR_URL}/healthz`).then((r) => r.status, () => 0);
    }, { timeout: 60_000 })
    .toBe(200);
}

async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await expect(input).toBeVisible();
  await input.fill(`>${title}`);
  await expect(page.locator('.quick-input-list .monaco-list-row').first()).toContainText(title);
  await input.press('Enter');
}

test('the extension in code-server: sign in, see the fix, preview it, apply it; the server records IDE', async ({ page, baseURL, browser }) => {
  test.setTimeout(FIX_WAIT_MS + 240_000);
  await signInAs(page, 'reviewer');
  const { fixId } = await readyFixOf(page, CHANGE.externalId);

  // a real editor token, made through the API as the Tokens page makes it
  const issued = await page.request.post('/api/me/tokens', { data: { name: 'e2e editor', scope: 'decide', kind: 'ide' }, headers: FROM_OUR_PAGE });
  expect(issued.status(), await issued.text()).toBe(201);
  const { token } = (await issued.json()) as { token: string };

  // the developer's checkout of the change's branch
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-editor-e2e-'));
  const clone = path.join(work, CHANGE.repo);
  git(work, 'clone', '-q', '--branch', CHANGE.branch, path.join(REPOS, CHANGE.repo), clone);
  const before = fs.readFileSync(path.join(clone, CHANGE.file), 'utf8');
  await startCodeServer(clone, baseURL!);

  const editor = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await editor.goto(`${EDITOR_URL}/?folder=${encodeURIComponent(clone)}`, { waitUntil: 'commit', timeout: 180_000 });
  await expect(editor.locator('.monaco-workbench')).toBeVisible({ timeout: 180_000 });
  // the extension's view container appears once the remote extension host has scanned the extensions
  await editor.locator('.activitybar [aria-label^="flowfix"]').first().click({ timeout: 150_000 });
  await editor.getByRole('button', { name: 'Sign in' }).click({ timeout: 90_000 });
  const input = editor.locator('.quick-input-widget input');
  await expect(input).toBeVisible();
  await input.fill(token);
  await input.press('Enter');

  // the branch's state: the change, the run, the root cause, the fix, the failing tests
  const panel = editor.locator('.part.sidebar');
  await expect(panel.getByText('Fix: ready')).toBeVisible({ timeout: 90_000 });
  await expect(panel.getByText(`${CHANGE.externalId}: Simplify statement page count`)).toBeVisible();
  await expect(panel.getByText(/Failing tests \(2\)/)).toBeVisible();
  await expect(editor.locator('.statusbar-item').filter({ hasText: 'flowfix: fixed, fix ready' })).toBeVisible();

  await runCommand(editor, 'flowfix: Preview the fix');
  await expect(editor.locator('.tab').filter({ hasText: 'statements.py ↔ flowfix fix' })).toBeVisible({ timeout: 30_000 });
  await expect(editor.locator('.monaco-diff-editor')).toBeVisible();
  // the README's picture of the panel (docs/img/vscode-panel.png is a copy)
  await editor.screenshot({ path: 'test-results/vscode-panel.png' });

  await runCommand(editor, 'flowfix: Apply the fix to the working tree');
  await expect(editor.locator('.notification-toast').filter({ hasText: /applied the fix to ledger\/statements\.py/ })).toBeVisible({ timeout: 30_000 });

  // on disk: the fix's change, not committed
  const after = fs.readFileSync(path.join(clone, CHANGE.file), 'utf8');
  expect(after).not.toBe(before);
  const files = (await (await page.request.get(`/api/fixes/${fixId}/files`)).json()) as { files: Array<{ path: string; modified: string }> };
  expect(after).toBe(files.files.find((f) => f.path === CHANGE.file)?.modified);
  expect(git(clone, 'status', '--porcelain')).toBe(`M ${CHANGE.file}`);

  // on the server: applied, the accept and the preview recorded as IDE
  const fix = (await (await page.request.get(`/api/fixes/${fixId}`)).json()) as { status: string; decision: { kind: string; surface: string } | null; previews: number };
  expect(fix.status).toBe('APPLIED');
  expect(fix.decision).toMatchObject({ kind: 'ACCEPT', surface: 'IDE' });
  expect(fix.previews).toBeGreaterThanOrEqual(1);
  await expect(panel.getByText('Fix: applied')).toBeVisible({ timeout: 30_000 });
  await editor.close();
});
