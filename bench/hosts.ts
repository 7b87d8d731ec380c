import { randomBytes, randomUUID, createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { openDb, setDbHandle, type DbHandle } from '../lib/db';
import { applyMigrations } from '../scripts/db/migrate';
import { createScratchDatabase } from '../lib/scratch-database';
import { stopRunQueue } from '../lib/queue';
import { linkRepository, registerHost } from '../lib/hosts/service';
import { startDeliveryWorker } from '../lib/code-review/process';
import { POST as githubWebhook } from '../app/api/hosts/github/webhook/route';
import { startGitHubApiDouble } from '../test/doubles/github-api-double';
import { summarise } from './stats';
import type { BenchModule } from './types';

// The GitHub webhook path against the GitHub API test double, on a scratch
// PostgreSQL database, in one process (the route handler called as Next
// calls it, the delivery worker beside it):
// - ack: the signed delivery verified, recorded and queued, until the answer;
// - in progress: a failed workflow run's delivery sent → its artifact and
//   log read, ingested, triaged (a run queued), the sync job run → the
//   double has the "flowfix" check run in progress.

// a key for this process only: the bench's host secrets live in a scratch database
process.env.FLOWFIX_SECRETS_KEY ??= randomBytes(32).toString('base64');

const SECRET = 'bench-webhook-secret';
const JUNIT =
  '<testsuites><testsuite name="s" tests="1" failures="1"><testcase classname="s" name="fails"><failure message="no">no</failure></testcase></testsuite></testsuites>';

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: '/nonexistent',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@b',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@b',
      NODE_ENV: 'production',
    },
  })
    .toString()
    .trim();
}

function signed(event: string, payload: unknown): NextRequest {
  const body = JSON.stringify(payload);
  return new NextRequest('http://localhost:3000/api/hosts/github/webhook', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
    body,
  });
}

export const hostsBench: BenchModule = {
  name: 'hosts',
  description: 'GitHub webhook: delivery acknowledged; failure delivered → check run in progress (API test double)',
  async run(options) {
    const { url, drop } = await createScratchDatabase({ serverUrl: options.serverUrl, prefix: 'flowfix_bench_hosts' });
    const unregister = options.keep ? () => undefined : options.onInterrupt(drop);
    const handle: DbHandle = openDb({ kind: 'postgres', location: url });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-bench-hosts-'));
    const gh = await startGitHubApiDouble();
    try {
      await applyMigrations({ handle });
      setDbHandle(handle);
      git(dir, ['init', '-q', '-b', 'main']);
      fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n');
      git(dir, ['add', '.']);
      git(dir, ['commit', '-q', '-m', 'base']);
      const base = git(dir, ['rev-parse', 'HEAD']);
      const admin = await handle.db.user.create({ data: { email: 'bench@hosts', name: 'Bench', roles: ['ADMIN'] } });
      const repository = await handle.db.repository.create({ data: { name: 'acme/bench', gitUrl: dir } });
      gh.repositories.push({ id: 1, owner: 'acme', name: 'bench', installationId: 9 });
      const host = await registerHost({
        actorId: admin.id,
        input: { kind: 'GITHUB', name: 'bench', apiBaseUrl: gh.url, appId: gh.appId, privateKey: gh.privateKey, webhookSecret: SECRET },
      });
      await linkRepository({ actorId: admin.id, hostId: host.id, input: { externalId: '1', repositoryId: repository.id } });
      const worker = await startDeliveryWorker({ pollMs: 100 });
      const ctx = { params: Promise.resolve({}) };

      // ack: pull_request "opened" deliveries (recorded and queued; processing them is cheap)
      const ack: number[] = [];
      for (let i = 0; i < options.warmup + options.samples; i++) {
        const req = signed('pull_request', {
          action: 'opened',
          pull_request: { number: 1, head: { sha: base } },
          repository: { id: 1 },
          installation: { id: 9 },
        });
        const start = performance.now();
        const res = await githubWebhook(req, ctx);
        const took = performance.now() - start;
        if (res.status !== 202) throw new Error(`delivery answered ${res.status}`);
        if (i >= options.warmup) ack.push(took);
      }
      options.log(`hosts: ${ack.length} acknowledgements`);

      // in progress: one failing pull request per sample (a new change each time)
      const rounds = Math.max(5, Math.min(30, Math.round(options.samples / 10)));
      const inProgress: number[] = [];
      for (let i = 0; i < rounds + 2; i++) {
        const number = 100 + i;
        const head = randomBytes(20).toString('hex');
        gh.pulls.set(`acme/bench#${number}`, {
          number,
          title: `bench ${number}`,
          user: { login: 'dev' },
          head: { ref: `b${number}`, sha: head },
          base: { ref: 'main', sha: base },
        });
        gh.runs.set(number, {
          id: number,
          repositoryId: 1,
          headSha: head,
          artifacts: [{ id: number, name: 'junit', zip: zipOne(dir, JUNIT) }],
          jobs: [{ id: number, name: 'test', conclusion: 'failure', log: 'FAIL' }],
        });
        const sent = Date.now();
        await githubWebhook(
          signed('workflow_run', {
            action: 'completed',
            workflow_run: { id: number, head_sha: head, conclusion: 'failure', html_url: 'https://ci/x', pull_requests: [{ number }] },
            repository: { id: 1 },
            installation: { id: 9 },
          }),
          ctx,
        );
        for (;;) {
          const check = gh.checkRuns.find((c) => c.head_sha === head);
          if (check) {
            if (i >= 2) inProgress.push(check.history[0].at - sent);
            break;
          }
          if (Date.now() - sent > 30_000) throw new Error('no check run after 30 s');
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      await worker.stop();
      return {
        bench: 'Code hosts: GitHub webhooks (API test double)',
        setup: `PostgreSQL scratch database, ${os.cpus().length} cores, route handler in process, delivery worker polling every 100 ms (woken at once by an in-process delivery)`,
        figures: [
          { name: 'webhook delivery acknowledged', ...summarise(ack), targetP95: 100 },
          { name: 'failure delivered → check run in progress', ...summarise(inProgress), targetP95: 2000 },
        ],
        notes: ['"in progress" includes the artifact download, ingestion, triage (a run queued) and the sync job, each host call over HTTP to the double'],
      };
    } finally {
      await stopRunQueue({ handle }).catch(() => undefined);
      setDbHandle(undefined);
      await gh.close();
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
      if (!options.keep) await drop();
      unregister();
    }
  },
};

function zipOne(dir: string, xml: string): Buffer {
  const at = path.join(dir, '..', `${path.basename(dir)}-zip`);
  fs.mkdirSync(at, { recursive: true });
  fs.writeFileSync(path.join(at, 'junit.xml'), xml);
  fs.rmSync(path.join(at, 'a.zip'), { force: true });
  execFileSync('zip', ['-q', 'a.zip', 'junit.xml'], { cwd: at });
  const out = fs.readFileSync(path.join(at, 'a.zip'));
  fs.rmSync(at, { recursive: true, force: true });
  return out;
}
