// Live trajectory latency, measured in a real browser against a real
// embedded-mode server (PGlite, the worker in-process) that this bench starts
// on its own port and data folder from an existing production build:
//
//   1. pressing "Run agent" on a change page → the first event on the run page
//      (and → the first step of the agent itself: the setup phase)
//   2. an event saved (RunEvent.createdAt, the append's transaction) → shown on
//      the run page (a MutationObserver stamps each new step), over the events
//      of several real runs
//   3. 50 concurrent SSE viewers of one run: every viewer must receive every
//      event once and in order; delivery latency across viewers
//
// Build first (any dist folder): NEXT_DIST_DIR=.next-x npx next build, then
// NEXT_DIST_DIR=.next-x npm run bench -- --only live. The server and browser
// share this machine's clock, so saved→shown is a difference of wall times.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';
import { buildDemoRepos } from '../demo/build-repos';
import { reportDemoFailures } from '../demo/report';
import { summarise } from './stats';
import type { BenchFigure, BenchModule, BenchOptions, BenchResult } from './types';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NEXT_BIN = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
const TSX_BIN = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TERMINAL = ['FIXED', 'NO_FIX', 'FAILED', 'CANCELLED'];

// ───── the server ─────

export interface LiveServer {
  baseUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

async function freePort(preferred: number): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : port));
      });
    });
  return tryPort(preferred).catch(() => tryPort(0));
}

function runToEnd(cmd: string, args: string[], env: NodeJS.ProcessEnv, log: (l: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else {
        log(tail);
        reject(new Error(`${path.basename(args[0] ?? cmd)} exited with ${code}`));
      }
    });
  });
}

async function waitForHealth(baseUrl: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      const res = await fetch(`${baseUrl}/api/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`no answer from ${baseUrl}/api/health within ${timeoutMs / 1000} s`);
}

/**
 * A demo-like embedded server from an existing build: seeds a fresh data
 * folder (scripts/demo.ts --no-serve), starts `next start` (which starts the
 * in-process worker) and reports the demo failures as CI would.
 */
export async function startLiveServer({
  port = 3190,
  dataDir = path.join(ROOT, '.data-bench-live'),
  distDir = process.env.NEXT_DIST_DIR ?? '.next',
  report = true,
  log,
}: {
  port?: number;
  dataDir?: string;
  distDir?: string;
  report?: boolean;
  log: (line: string) => void;
}): Promise<LiveServer> {
  if (!fs.existsSync(path.join(ROOT, distDir, 'BUILD_ID'))) {
    throw new Error(`no production build in ${distDir}: run NEXT_DIST_DIR=${distDir} npx next build first`);
  }
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, FLOWFIX_DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: '1' };
  // embedded mode: the server owns a PGlite folder
  delete baseEnv.DATABASE_URL;
  log(`live: seeding ${dataDir}`);
  await runToEnd(TSX_BIN, [path.join(ROOT, 'scripts', 'demo.ts'), '--no-serve', '--reset'], baseEnv, log);
  const secret = fs.readFileSync(path.join(dataDir, 'auth-secret'), 'utf8').trim();
  const token = fs.readFileSync(path.join(dataDir, 'demo-ci-token'), 'utf8').trim();
  const chosen = await freePort(port);
  const baseUrl = `http://127.0.0.1:${chosen}`;
  log(`live: starting next start (${distDir}) on ${baseUrl}`);
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(chosen), '-H', '127.0.0.1'], {
    cwd: ROOT,
    env: { ...baseEnv, NODE_ENV: 'production', FLOWFIX_DEMO: '1', NEXTAUTH_SECRET: secret, NEXTAUTH_URL: baseUrl, NEXT_DIST_DIR: distDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitForHealth(baseUrl, child);
    if (report) {
      log('live: reporting the demo failures (real test runs)');
      const repos = await buildDemoRepos({ dataDir });
      await reportDemoFailures({ repos, baseUrl, token });
    }
  } catch (error) {
    log(stderr);
    await stop();
    throw error;
  }
  return { baseUrl, dataDir, stop };
}

// ───── the browser ─────

async function signIn(page: Page, role = 'reviewer'): Promise<void> {
  await page.goto('/signin');
  await page.getByTestId('signin-email').fill(`${role}@demo.flowfix`);
  await page.getByTestId('signin-password').fill(`${role}-demo`);
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('current-user').waitFor();
}

interface ChangeRow {
  id: string;
  status: string;
  activeRun: unknown;
  externalId: string;
}

async function realChanges(page: Page): Promise<ChangeRow[]> {
  const res = await page.request.get('/api/changes?history=exclude&limit=100');
  if (!res.ok()) throw new Error(`GET /api/changes: ${res.status()}`);
  return ((await res.json()) as { items: ChangeRow[] }).items;
}

/** Waits until no demo change has a queued or running run (the automatic runs after the reports). */
async function waitForIdle(page: Page, log: (l: string) => void, timeoutMs = 15 * 60_000): Promise<ChangeRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await realChanges(page);
    const busy = items.filter((i) => i.activeRun || i.status === 'QUEUED' || i.status === 'RUNNING');
    if (busy.length === 0) return items;
    if (Date.now() > deadline) throw new Error(`${busy.length} change(s) still busy`);
    log(`live: waiting for ${busy.length} automatic run(s) to finish`);
    await new Promise((r) => setTimeout(r, 3_000));
  }
}

/** Stamps every step as it appears on the run page: seq, saved-at, shown-at (epoch ms). */
const OBSERVER_SCRIPT = `
  window.__shown = [];
  window.__initialMaxSeq = -1;
  document.addEventListener('DOMContentLoaded', () => {
    for (const el of document.querySelectorAll('[data-testid="run-event"]')) window.__initialMaxSeq = Math.max(window.__initialMaxSeq, Number(el.dataset.seq));
  });
  const stamp = (el) => {
    if (!el.matches || !el.matches('[data-testid="run-event"]')) return;
    const t = el.querySelector('time');
    window.__shown.push({ seq: Number(el.dataset.seq), at: t ? Date.parse(t.dateTime) : NaN, shownAt: performance.timeOrigin + performance.now() });
  };
  new MutationObserver((records) => {
    const now = performance.timeOrigin + performance.now();
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) {
      if (n.matches('[data-testid="run-event"]')) stamp(n);
      else n.querySelectorAll && n.querySelectorAll('[data-testid="run-event"]').forEach(stamp);
    }
  }).observe(document, { childList: true, subtree: true });
`;

interface Shown {
  seq: number;
  at: number;
  shownAt: number;
}

/** One "Run agent" press: time to the first event and the first agent step; then every live event's save→shown latency. */
async function pressRunAgent({ page, changeId }: { page: Page; changeId: string }): Promise<{ firstEventMs: number; firstStepMs: number; shown: Shown[] }> {
  await page.goto(`/changes/${changeId}`);
  const button = page.getByTestId('run-agent');
  await button.waitFor();
  const pressed = await page.evaluate(() => performance.timeOrigin + performance.now());
  await button.click();
  await page.waitForURL(/\/runs\//);
  await page.locator('[data-testid="run-event"]').first().waitFor();
  const firstEventAt = await page.evaluate(() => performance.timeOrigin + performance.now());
  await page.locator('[data-testid="run-event"][data-type="phase"]').first().waitFor({ timeout: 120_000 });
  const firstStepAt = await page.evaluate(() => performance.timeOrigin + performance.now());
  // the rest of the run, watched live
  await page.waitForFunction(
    (terminal) => terminal.includes(document.querySelector('[data-testid="run-status"]')?.getAttribute('data-status') ?? ''),
    TERMINAL,
    {
      timeout: 10 * 60_000,
    },
  );
  const { shown, initialMaxSeq } = await page.evaluate(() => {
    const w = window as unknown as { __shown: Shown[]; __initialMaxSeq: number };
    return { shown: w.__shown, initialMaxSeq: w.__initialMaxSeq };
  });
  // the events the server rendered into the page did not travel over the stream
  return { firstEventMs: firstEventAt - pressed, firstStepMs: firstStepAt - pressed, shown: shown.filter((s) => s.seq > initialMaxSeq) };
}

// ───── SSE viewers in Node ─────

interface ViewerResult {
  seqs: number[];
  latencies: number[];
  ended: boolean;
}

async function sseViewer({ url, cookie, connectedAt }: { url: string; cookie: string; connectedAt: number }): Promise<ViewerResult> {
  const res = await fetch(url, { headers: { cookie, accept: 'text/event-stream' } });
  if (!res.ok || !res.body) throw new Error(`viewer: HTTP ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const out: ViewerResult = { seqs: [], latencies: [], ended: false };
  let buffer = '';
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    const receivedAt = Date.now();
    buffer += decoder.decode(chunk.value, { stream: true });
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      // run events are default messages (no `event:` line); only the end is named
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!data) continue;
      if (event === 'end') {
        out.ended = true;
        continue;
      }
      const parsed = JSON.parse(data) as { seq: number; at: string };
      out.seqs.push(parsed.seq);
      const savedAt = Date.parse(parsed.at);
      // replayed history is not delivery latency
      if (savedAt >= connectedAt) out.latencies.push(receivedAt - savedAt);
    }
  }
  return out;
}

// ───── the bench ─────

function figure(name: string, samples: number[], targetP95?: number): BenchFigure {
  const s = summarise(samples);
  return { name, p50: s.p50, p95: s.p95, max: s.max, samples: s.samples, ...(targetP95 === undefined ? {} : { targetP95 }) };
}

async function run(options: BenchOptions): Promise<BenchResult> {
  const { log } = options;
  const server = await startLiveServer({ log });
  const unregister = options.onInterrupt(() => server.stop());
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const context = await browser.newContext({ baseURL: server.baseUrl });
    const page = await context.newPage();
    await page.addInitScript(OBSERVER_SCRIPT);
    await signIn(page);
    const idle = await waitForIdle(page, log);
    const candidates = idle.filter((c) => c.status === 'FIX_READY' || c.status === 'NO_FIX');
    if (candidates.length === 0) throw new Error('no demo change to run the agent on');

    // 1 + 2: presses of "Run agent", each run watched to its end
    const firstEvent: number[] = [];
    const firstStep: number[] = [];
    const savedToShown: number[] = [];
    const presses = Math.max(3, Math.min(8, Math.ceil(100 / 25)));
    for (let i = 0; savedToShown.length < 100 || i < presses; i += 1) {
      if (i >= 12) break;
      const change = candidates[i % candidates.length]!;
      const sample = await pressRunAgent({ page, changeId: change.id });
      firstEvent.push(sample.firstEventMs);
      firstStep.push(sample.firstStepMs);
      // only events saved after the run page loaded arrived live (the others were rendered by the server)
      const live = sample.shown.filter((s) => Number.isFinite(s.at));
      for (const s of live) savedToShown.push(Math.max(0, s.shownAt - s.at));
      log(
        `live: run ${i + 1} on ${change.externalId}: first event ${sample.firstEventMs.toFixed(0)} ms, first step ${sample.firstStepMs.toFixed(0)} ms, ${live.length} live events`,
      );
    }

    // 3: 50 viewers of one run
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const target = candidates[0]!;
    const started = await page.request.post(`/api/changes/${target.id}/runs`, { data: {} });
    const { runId } = (await started.json()) as { runId: string };
    const connectedAt = Date.now();
    const viewers = await Promise.all(Array.from({ length: 50 }, () => sseViewer({ url: `${server.baseUrl}/api/runs/${runId}/events`, cookie, connectedAt })));
    const reference = viewers[0]!.seqs;
    const contiguous = reference.every((s, i) => s === i);
    const allSame = viewers.every((v) => v.ended && v.seqs.length === reference.length && v.seqs.every((s, i) => s === reference[i]));
    const viewerLatencies = viewers.flatMap((v) => v.latencies);

    return {
      bench: 'live trajectory (embedded mode, Chromium)',
      setup: `demo server from the production build, PGlite, in-process worker, offline policy; ${firstEvent.length} "Run agent" presses; 50 SSE viewers of run ${runId.slice(-8)}`,
      figures: [
        figure('"Run agent" → first event on screen', firstEvent, 1_000),
        figure('"Run agent" → first agent step (setup phase) on screen', firstStep, 1_000),
        figure('event saved → shown on the run page', savedToShown, 250),
        figure('event saved → received, 50 concurrent SSE viewers', viewerLatencies.length ? viewerLatencies : [0], 250),
      ],
      notes: [
        `saved → shown: ${savedToShown.length} events that arrived live over ${firstEvent.length} runs (MutationObserver on the run page; saved = RunEvent.createdAt)`,
        `50 viewers: ${allSame ? 'all' : 'NOT all'} received the same ${reference.length} events${contiguous ? ', seq 0…' + (reference.length - 1) + ' contiguous, each once' : ' (GAP OR DUPLICATE)'}, and ${viewers.filter((v) => v.ended).length}/50 got \`end\``,
        'the worker batches events for up to 40 ms before saving (agent/worker/db-sink.ts); that wait is before "saved" and not in these figures',
      ],
    };
  } finally {
    await browser?.close();
    await server.stop();
    unregister();
  }
}

export const liveLatencyBench: BenchModule = {
  name: 'live',
  description: 'live trajectory: "Run agent" → first event, saved → shown (p50/p95), 50 concurrent SSE viewers (needs a production build; NEXT_DIST_DIR)',
  run,
};
