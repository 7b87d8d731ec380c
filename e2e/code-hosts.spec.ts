import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startGitHubApiDouble, zipOf, type GitHubApiDouble } from '../test/doubles/github-api-double';
import { startGitHttpServer, type GitHttpServer } from '../test/doubles/git-http-server';
import { FROM_OUR_PAGE, signInAs } from './helpers';

// A GitHub App end to end, in Chromium against the production server. The
// GitHub API test double runs in this test process on a loopback port, and
// the server learns its URL the way it would learn a GitHub Enterprise
// Server's: the API URL field of the admin's Code hosts form. The repository
// is real, served by `git http-backend` (test/doubles/git-http-server.ts):
// anyone may read it, as a public repository, and only an installation token
// the double issued may push. An admin connects the App and links the
// repository from the App's own list; a failed workflow run arrives as a
// webhook signed with the App's secret; the check run goes in progress and
// completes with the fix the real agent made, the one comment appears; a
// reviewer accepts in the dashboard, and the commit reaches the git server
// with an installation token. The maintainer who commented a command is then
// a code-review identity the admin sees labelled, and which cannot sign in.

const FIX_WAIT_MS = 480_000;
const WEBHOOK_SECRET = `e2e-${randomBytes(12).toString('hex')}`;
const PR = 7;

const CART = `export function total(items) {
  let sum = 0;
  for (const item of items) {
    sum += item.price * item.qty;
  }
  return sum;
}

export function applyDiscount(amount, percent) {
  if (percent > 100) throw new Error('discount above 100%');
  return amount - (amount * percent) / 100;
}
`;
const CART_TEST = `import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { total, applyDiscount } from '../src/cart.js';

describe('cart', () => {
  test('total multiplies price by quantity', () => {
    assert.equal(total([{ price: 5, qty: 3 }, { price: 1, qty: 2 }]), 17);
  });
  test('empty cart totals zero', () => {
    assert.equal(total([]), 0);
  });
  test('discount takes a percentage off', () => {
    assert.equal(applyDiscount(200, 10), 180);
  });
});
`;
const TEST_COMMAND = 'node --test --test-reporter=junit --test-reporter-destination=junit.xml test/*.test.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: '/nonexistent',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: 'dev@example.com',
      GIT_COMMITTER_NAME: 'Dev',
      GIT_COMMITTER_EMAIL: 'dev@example.com',
      NODE_ENV: 'test',
    },
  }).trim();
}

test.describe('code hosts: a GitHub App, end to end', () => {
  test.describe.configure({ mode: 'serial', timeout: FIX_WAIT_MS + 180_000 });

  let gh: GitHubApiDouble;
  let gitServer: GitHttpServer;
  let root = '';
  let bare = '';
  let base = '';
  let head = '';
  /** every push attempt the git server saw: who, and whether it let them in */
  const pushes: Array<{ user: string | null; password: string | null; allowed: boolean }> = [];

  test.beforeAll(async () => {
    gh = await startGitHubApiDouble();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-e2e-hosts-'));
    const work = path.join(root, 'work');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
      fs.writeFileSync(path.join(work, rel), text);
    };
    fs.mkdirSync(work);
    git(work, 'init', '-q', '-b', 'main');
    write('package.json', JSON.stringify({ name: 'shop', private: true, type: 'module' }, null, 2) + '\n');
    write('.gitignore', 'junit.xml\nnode_modules/\n');
    write('src/cart.js', CART);
    write('test/cart.test.js', CART_TEST);
    write('README.md', '# shop\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'cart with tests');
    base = git(work, 'rev-parse', 'HEAD');
    git(work, 'checkout', '-q', '-b', 'feature');
    // the change: totals in one pass, and a slip (`*` became `+`)
    write('src/cart.js', CART.replace('sum += item.price * item.qty;', 'sum += item.price + item.qty;'));
    write('README.md', '# shop\n\nTotals now computed in one pass.\n');
    git(work, 'commit', '-q', '-am', 'rework total');
    head = git(work, 'rev-parse', 'HEAD');
    // CI's own report: the suite really run at the head, its JUnit uploaded as the artifact
    try {
      execFileSync('/bin/sh', ['-c', TEST_COMMAND], { cwd: work, stdio: 'ignore' });
    } catch {
      // the suite fails at the head: that is the point
    }
    const junit = fs.readFileSync(path.join(work, 'junit.xml'), 'utf8');
    expect(junit).toContain('total multiplies price by quantity');
    bare = path.join(root, 'acme', 'shop.git');
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    git(root, 'clone', '-q', '--bare', work, bare);

    gitServer = await startGitHttpServer({
      root,
      authorize: ({ user, password, service }) => {
        if (service === 'git-upload-pack') return true;
        const allowed = user === 'x-access-token' && gh.issuedTokens.some((t) => t.token === password);
        if (service === 'git-receive-pack') pushes.push({ user, password, allowed });
        return allowed;
      },
    });
    gh.repositories.push({ id: 101, owner: 'acme', name: 'shop', installationId: 55, cloneUrl: `${gitServer.url}/acme/shop.git` });
    gh.pulls.set(`acme/shop#${PR}`, {
      number: PR,
      title: 'Rework total',
      body: 'One pass.',
      user: { login: 'dev' },
      head: { ref: 'feature', sha: head },
      base: { ref: 'main', sha: base },
    });
    gh.runs.set(4242, {
      id: 4242,
      repositoryId: 101,
      headSha: head,
      pullNumber: PR,
      artifacts: [{ id: 1, name: 'junit', zip: zipOf({ 'reports/junit.xml': junit }) }],
      jobs: [{ id: 9, name: 'test', conclusion: 'failure', log: `$ ${TEST_COMMAND}\nnot ok 1 - total multiplies price by quantity` }],
    });
  });

  test.afterAll(async () => {
    await gitServer?.close();
    await gh?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  test('an admin connects the GitHub App (its API URL pointing at the double) and links the repository from the App’s list', async ({ page }) => {
    await signInAs(page, 'admin');
    const registered = await page.request.post('/api/admin/repositories', {
      data: {
        name: 'acme/shop',
        gitUrl: `${gitServer.url}/acme/shop.git`,
        language: 'javascript',
        settings: { test: TEST_COMMAND, junitReport: 'junit.xml', timeLimits: { testSeconds: 120, regressionSeconds: 180 } },
      },
      headers: FROM_OUR_PAGE,
    });
    expect(registered.status(), await registered.text()).toBe(201);

    await page.goto('/admin?tab=hosts');
    await page.getByTestId('host-register-open').click();
    await expect(page.getByTestId('host-manifest')).toContainText('"workflow_run"');
    await page.getByTestId('host-name').fill('GitHub (test double)');
    await page.getByTestId('host-api-url').fill(gh.url);
    await page.getByTestId('host-app-id').fill(gh.appId);
    await page.getByTestId('host-private-key').fill(gh.privateKey);
    await page.getByTestId('host-webhook-secret').fill(WEBHOOK_SECRET);
    await page.getByTestId('host-register-submit').click();
    const card = page.getByTestId('host-card').filter({ hasText: 'GitHub (test double)' });
    await expect(card).toBeVisible();
    await expect(card).not.toContainText('BEGIN RSA PRIVATE KEY');

    await card.getByTestId('host-link-open').click();
    // the project list comes from the App's installations, asked of the double
    await card.getByTestId('host-link-project').selectOption({ label: 'acme/shop' });
    await card.getByTestId('host-link-repository').selectOption({ label: 'acme/shop' });
    await card.getByTestId('host-link-submit').click();
    await expect(card.getByTestId('host-link-row')).toContainText('acme/shop');
    expect(gh.requests.some((r) => r.path === '/app/installations' && r.auth === 'app')).toBe(true);
    expect(gh.requests.some((r) => r.path === '/installation/repositories' && r.auth === 'installation')).toBe(true);
  });

  test('a signed failure webhook: the check run goes in progress then completes with the fix, one comment; a reviewer accepts and the push reaches the git server with an installation token', async ({
    page,
    request,
  }) => {
    const body = JSON.stringify({
      action: 'completed',
      workflow_run: {
        id: 4242,
        head_sha: head,
        head_branch: 'feature',
        conclusion: 'failure',
        status: 'completed',
        html_url: `${gh.url}/acme/shop/actions/runs/4242`,
        pull_requests: [{ number: PR }],
      },
      repository: { id: 101, full_name: 'acme/shop' },
      installation: { id: 55 },
    });
    const unsigned = await request.post('/api/hosts/github/webhook', {
      data: body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'workflow_run',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
      },
    });
    expect(unsigned.status()).toBe(401);
    const delivered = await request.post('/api/hosts/github/webhook', {
      data: body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'workflow_run',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
      },
    });
    expect(delivered.status(), await delivered.text()).toBe(202);

    const check = () => gh.checkRuns.find((c) => c.head_sha === head);
    await expect.poll(() => check()?.history[0]?.status ?? 'no check run yet', { timeout: 60_000 }).toBe('in_progress');
    expect(check()!.output.title).toMatch(/^Working on it/);
    // the real agent repairs it in the server's worker, behind the demo's own runs
    await expect
      .poll(() => (check()!.status === 'completed' ? check()!.output.title : `${check()!.status}: ${check()!.output.title}`), {
        timeout: FIX_WAIT_MS,
        intervals: [1000, 2000, 5000],
      })
      .toBe('A fix is ready');
    // flowfix's one comment; its answers to commands are replies of their own
    const comments = () => gh.comments.filter((c) => c.issueNumber === PR && !c.body.startsWith('@'));
    await expect.poll(() => comments().length, { timeout: 30_000 }).toBe(1);
    expect(comments()[0].body).toContain('**Root cause**');
    expect(comments()[0].body).toContain('item.price * item.qty');

    // a maintainer tries `/flowfix reject` without a reason: asked why, nothing decided (and recorded as a code-review identity)
    gh.permissions.set('maint', 'maintain');
    const command = JSON.stringify({
      action: 'created',
      issue: { number: PR, pull_request: { url: 'x' } },
      comment: { body: '/flowfix reject', user: { login: 'maint', type: 'User' } },
      repository: { id: 101 },
      installation: { id: 55 },
    });
    const commanded = await request.post('/api/hosts/github/webhook', {
      data: command,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(command).digest('hex')}`,
      },
    });
    expect(commanded.status()).toBe(202);
    await expect
      .poll(() => gh.comments.find((c) => c.issueNumber === PR && c.body.startsWith('@maint '))?.body ?? '', { timeout: 30_000 })
      .toContain('say why');

    const detailsUrl = new URL(check()!.details_url ?? '');
    await signInAs(page, 'reviewer');
    await page.goto(detailsUrl.pathname);
    await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'READY');
    const tokensBefore = gh.issuedTokens.length;
    await page.getByTestId('fix-accept').click();
    await expect(page.getByTestId('fix-decision-ok')).toBeVisible();
    await expect(page.getByTestId('fix-status')).toHaveAttribute('data-status', 'APPLIED');

    const tip = git(root, '--git-dir', bare, 'rev-parse', 'refs/heads/feature');
    expect(tip).not.toBe(head);
    expect(git(root, '--git-dir', bare, 'rev-parse', `${tip}^`)).toBe(head);
    expect(git(root, '--git-dir', bare, 'log', '-1', '--format=%B', tip)).toContain('Flowfix-Fix: ');
    expect(git(root, '--git-dir', bare, 'show', `${tip}:src/cart.js`)).toContain('sum += item.price * item.qty;');
    // the push went in with an installation token the double issued for this accept
    const accepted = pushes.filter((p) => p.allowed);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.every((p) => p.user === 'x-access-token' && gh.issuedTokens.slice(tokensBefore).some((t) => t.token === p.password))).toBe(true);

    await expect.poll(() => check()!.output.title, { timeout: 30_000 }).toBe(`Fix applied as ${tip.slice(0, 12)}`);
    await expect.poll(() => comments()[0].body.includes('**Applied**'), { timeout: 30_000 }).toBe(true);
    expect(comments()).toHaveLength(1);
  });

  test('the maintainer who commanded is a code-review identity: listed apart and labelled for the admin, and cannot sign in', async ({ page }) => {
    await signInAs(page, 'admin');
    await page.goto('/admin?tab=users');
    await expect(page.getByTestId('user-row').first()).toBeVisible();
    await expect(page.getByTestId('user-row').filter({ hasText: 'maint (GitHub)' })).toHaveCount(0);
    const section = page.getByTestId('admin-code-review-users');
    await section.locator('summary').click();
    const row = section.getByTestId('code-review-user-row').filter({ hasText: 'maint (GitHub)' });
    await expect(row.getByTestId('code-review-user-label')).toHaveText('code review · GitHub · cannot sign in');
    const email = (await row.getAttribute('data-email')) ?? '';
    expect(email).toMatch(/^maint@github-.+\.code-review\.invalid$/);

    await page.context().clearCookies();
    await page.goto('/signin');
    await page.getByTestId('signin-email').fill(email);
    await page.getByTestId('signin-password').fill('any-password-at-all');
    await page.getByTestId('signin-submit').click();
    await expect(page.getByTestId('signin-error')).toBeVisible();
    await expect(page.getByTestId('current-user')).toHaveCount(0);
  });
});
