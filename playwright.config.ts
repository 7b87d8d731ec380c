import { randomBytes } from 'node:crypto';
import { defineConfig } from '@playwright/test';

// End-to-end tests drive Debian's Chromium (npx playwright install cannot
// download browsers here) against the production build (`next build` runs
// first in scripts/test.mjs), served by the real demo start-up on a fresh
// embedded database in .data-e2e/.
const PORT = Number(process.env.FLOWFIX_E2E_PORT ?? 3100);
// FLOWFIX_E2E_DATA_DIR lets a second suite run beside this one (own port, own folder)
export const E2E_DATA_DIR = process.env.FLOWFIX_E2E_DATA_DIR ?? '.data-e2e';
export const E2E_BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: './e2e',
  testMatch: /.*\.spec\.ts$/,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e-results.json' }]],
  globalSetup: './e2e/global-setup.ts',
  use: {
    baseURL: E2E_BASE_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    { name: 'chromium', use: { browserName: 'chromium' }, testIgnore: /editor\.spec\.ts$/ },
    // the VS Code extension in code-server (e2e/editor.spec.ts): its own project,
    // one spec, after the others (its change's run is queued behind the demo's),
    // run when FLOWFIX_E2E_EDITOR=1, which scripts/test.mjs sets unless told
    // FLOWFIX_E2E_EDITOR=0 (it sets code-server up in the background first:
    // 114 s from a cold cache here, none warm).
    ...(process.env.FLOWFIX_E2E_EDITOR === '1' ? [{ name: 'editor', use: { browserName: 'chromium' as const }, testMatch: /editor\.spec\.ts$/ }] : []),
  ],
  webServer: {
    command: `npx tsx scripts/demo.ts --reset --port ${PORT}`,
    url: `http://127.0.0.1:${PORT}/api/health`,
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      FLOWFIX_DATA_DIR: E2E_DATA_DIR,
      NEXTAUTH_URL: E2E_BASE_URL,
      // the demo's own failures queue runs at start-up; two workers keep the
      // specs that wait for a fix from queueing behind all of them
      FLOWFIX_WORKER_CONCURRENCY: '2',
      // every browser here connects from 127.0.0.1, and twenty failed sign-ins
      // lock an address for every account: this host counts as a proxy, so a
      // context that sends X-Forwarded-For is a client of its own
      // (signin-limits.spec.ts) and the others stay 127.0.0.1
      FLOWFIX_TRUSTED_PROXIES: '127.0.0.1',
      NEXT_TELEMETRY_DISABLED: '1',
      // code hosts' secrets are encrypted with it (e2e/code-hosts.spec.ts connects a GitHub App); a fresh one per run
      FLOWFIX_SECRETS_KEY: process.env.FLOWFIX_SECRETS_KEY ?? randomBytes(32).toString('base64'),
    },
  },
});
