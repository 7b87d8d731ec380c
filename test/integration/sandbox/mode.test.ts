import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import * as sandboxRoute from '../../../app/api/admin/sandbox/route';
import { requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { startWorker, type RunWorker } from '@/agent/worker/worker';
import { buildSandboxEnv, runCommand } from '@/agent/workspace/exec';
import { resetSandboxProbe } from '@/lib/sandbox/probe';
import { setSandboxMode as setProcessMode } from '@/lib/sandbox/mode';
import { seedWorld, TERMINAL, waitFor, type RunWorld } from '../runs/helpers';

// Without a working sandbox (here: bubblewrap pointed at a missing file) the
// server refuses: a run ends as sandbox_unavailable and a command does not
// start, until an admin switches to the unsafe mode (audited, shown in red).

let db: TestDb;
let worker: RunWorker | undefined;
const worlds: RunWorld[] = [];
const saved = process.env.FLOWFIX_SANDBOX_BWRAP;

before(async () => {
  db = await createTestDb();
  process.env.FLOWFIX_SANDBOX_BWRAP = '/nonexistent/bwrap';
  resetSandboxProbe();
});
after(async () => {
  await worker?.stop({ graceMs: 0 });
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
  if (saved === undefined) delete process.env.FLOWFIX_SANDBOX_BWRAP;
  else process.env.FLOWFIX_SANDBOX_BWRAP = saved;
  resetSandboxProbe();
  setProcessMode('sandboxed');
});

describe(`without a working sandbox (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  test('a command is refused while the unsafe mode is off', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-mode-'));
    try {
      const opts = {
        command: 'echo ran',
        cwd: dir,
        env: buildSandboxEnv({ home: dir, tmpDir: dir }),
        timeoutMs: 10_000,
        network: false,
        sandbox: { writable: [dir] },
      };
      setProcessMode('sandboxed');
      const refused = await runCommand(opts);
      assert.equal(refused.exitCode, null);
      assert.match(refused.output, /no working sandbox/);
      assert.doesNotMatch(refused.output, /^ran$/m);
      setProcessMode('unsafe');
      const ran = await runCommand(opts);
      assert.equal(ran.exitCode, 0, ran.output);
      assert.match(ran.output, /^ran$/m);
    } finally {
      setProcessMode('sandboxed');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a run ends as sandbox_unavailable; an admin switches to unsafe (audited) and the next run repairs', async () => {
    const admin = await db.db.user.create({ data: { email: 'admin@sandbox.test', name: 'Admin', roles: ['ADMIN'] } });
    const cookie = await sessionCookie(admin);
    const status = await callRoute({ handler: sandboxRoute.GET, url: '/api/admin/sandbox', cookie });
    assert.equal(status.status, 200);
    assert.equal((status.json as { mode: string }).mode, 'sandboxed');
    assert.equal((status.json as { probe: { ok: boolean } }).probe.ok, false);

    worker = await startWorker({ concurrency: 1, leaseMs: 5000, heartbeatMs: 250, pollMs: 100 });
    const world = await seedWorld({ db: db.db });
    worlds.push(world);
    const first = await requestRun({ changeId: world.changeId, trigger: 'MANUAL', policy: 'offline' });
    const refused = await waitFor(async () => {
      const r = await db.db.run.findUniqueOrThrow({ where: { id: first.runId } });
      return TERMINAL.includes(r.status) ? r : undefined;
    });
    assert.equal(refused.status, 'FAILED');
    assert.equal(refused.exitReason, 'sandbox_unavailable');
    assert.match(refused.exitDetail ?? '', /bubblewrap|bwrap/);

    const bad = await callRoute({ handler: sandboxRoute.PUT, url: '/api/admin/sandbox', method: 'PUT', cookie, body: { mode: 'off' } });
    assert.equal(bad.status, 422);
    const put = await callRoute({ handler: sandboxRoute.PUT, url: '/api/admin/sandbox', method: 'PUT', cookie, body: { mode: 'unsafe' } });
    assert.equal(put.status, 200);
    assert.equal((put.json as { mode: string }).mode, 'unsafe');
    const audit = await db.db.auditLog.findMany({ where: { action: 'system.sandbox_mode' } });
    assert.equal(audit.length, 1);
    assert.equal(audit[0].actorId, admin.id);
    assert.deepEqual(audit[0].data, { from: 'sandboxed', to: 'unsafe' });

    const second = await requestRun({ changeId: world.changeId, trigger: 'MANUAL', policy: 'offline' });
    const repaired = await waitFor(
      async () => {
        const r = await db.db.run.findUniqueOrThrow({ where: { id: second.runId } });
        return TERMINAL.includes(r.status) ? r : undefined;
      },
      { timeoutMs: 240_000 },
    );
    assert.equal(repaired.exitReason, 'fixed', repaired.exitDetail ?? '');
  });
});
