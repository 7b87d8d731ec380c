import { execFileSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NextRequest } from 'next/server';
import type { PrismaClient } from '../../../lib/generated/prisma/client';

// Shared set-up for the code-host tests: a real git repository with a base
// and a head commit, and webhook deliveries signed the way the hosts sign them.

export interface GitFixture {
  dir: string;
  base: string;
  head: string;
  branch: string;
  cleanup(): void;
}

export function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd: dir,
    input,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: '/nonexistent',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: 'dev@example.com',
      GIT_COMMITTER_NAME: 'Dev',
      GIT_COMMITTER_EMAIL: 'dev@example.com',
      NODE_ENV: 'test',
    },
  })
    .toString()
    .trim();
}

/** A bare repository with main (base) and feature (head, one commit more). */
export function makeGitFixture(): GitFixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-hosts-'));
  const work = path.join(root, 'work');
  fs.mkdirSync(work);
  git(work, ['init', '-q', '-b', 'main']);
  fs.writeFileSync(path.join(work, 'sum.js'), 'export const sum = (a, b) => a + b;\n');
  git(work, ['add', '.']);
  git(work, ['commit', '-q', '-m', 'base']);
  const base = git(work, ['rev-parse', 'HEAD']);
  git(work, ['checkout', '-q', '-b', 'feature']);
  fs.writeFileSync(path.join(work, 'sum.js'), 'export const sum = (a, b) => a - b;\n');
  git(work, ['commit', '-q', '-am', 'break sum']);
  const head = git(work, ['rev-parse', 'HEAD']);
  const bare = path.join(root, 'repo.git');
  git(root, ['clone', '-q', '--bare', work, bare]);
  return { dir: bare, base, head, branch: 'feature', cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export const JUNIT_FAILING = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="1">
  <testsuite name="sum" tests="2" failures="1">
    <testcase classname="sum" name="adds two numbers" file="test/sum.test.js" time="0.01">
      <failure message="expected 3, got -1">AssertionError: expected 3, got -1
    at test/sum.test.js:4:10</failure>
    </testcase>
    <testcase classname="sum" name="adds zero" file="test/sum.test.js" time="0.01"/>
  </testsuite>
</testsuites>
`;

// the artifacts' archives: made where the GitHub double is, for the e2e spec as well
export { zipOf } from '../../doubles/github-api-double';

/** A GitHub delivery: X-Hub-Signature-256 over the exact body bytes. */
export function githubDelivery({
  secret,
  event,
  payload,
  deliveryId = randomUUID(),
  signature,
}: {
  secret: string;
  event: string;
  payload: unknown;
  deliveryId?: string;
  signature?: string;
}): NextRequest {
  const body = JSON.stringify(payload);
  const sig = signature ?? `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return new NextRequest('http://localhost:3000/api/hosts/github/webhook', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': sig,
      'user-agent': 'GitHub-Hookshot/test',
    },
    body,
  });
}

/** A GitLab delivery: the hook's secret token in X-Gitlab-Token. */
export function gitlabDelivery({
  token,
  event,
  payload,
  deliveryId = randomUUID(),
}: {
  token: string;
  event: string;
  payload: unknown;
  deliveryId?: string;
}): NextRequest {
  return new NextRequest('http://localhost:3000/api/hosts/gitlab/webhook', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gitlab-event': event, 'x-gitlab-event-uuid': deliveryId, 'x-gitlab-token': token },
    body: JSON.stringify(payload),
  });
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, { timeoutMs = 20_000, what = 'condition' } = {}): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A webhook delivery's row once an attempt settled it (neither RECEIVED nor claimed by a worker). */
export function waitForSettledDelivery(db: PrismaClient, deliveryId: string, { timeoutMs = 20_000 } = {}) {
  return waitFor(
    async () => {
      const row = await db.webhookDelivery.findFirst({ where: { deliveryId } });
      return row && row.status !== 'RECEIVED' && row.status !== 'PROCESSING' ? row : null;
    },
    { timeoutMs, what: `delivery ${deliveryId} to settle` },
  );
}
