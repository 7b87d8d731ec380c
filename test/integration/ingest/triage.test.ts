import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

// Ingestion triages what it stores itself: a process that does nothing but
// ingest (no server start-up, no worker) still ends with an AUTO run, queued.
// Each backend in its own child process (this file picks its backends itself).

const execFileAsync = promisify(execFile);

for (const kind of ['pglite', 'postgres'] as const) {
  test(`a fresh process that only ingests queues a run for the new revision (${kind})`, async () => {
    const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', 'test/integration/ingest/ingest-only-process.ts'], {
      env: { ...process.env, FLOWFIX_TEST_DB: kind },
      maxBuffer: 4 * 1024 * 1024,
    });
    const out = JSON.parse(stdout) as {
      status: number;
      runs: Array<{ id: string; status: string; trigger: string }>;
      changeStatus: string;
      queuedRunIds: string[];
    };
    assert.equal(out.status, 201);
    assert.equal(out.runs.length, 1);
    assert.deepEqual([out.runs[0]!.status, out.runs[0]!.trigger], ['QUEUED', 'AUTO']);
    assert.equal(out.changeStatus, 'QUEUED');
    assert.deepEqual(out.queuedRunIds, [out.runs[0]!.id]);
  });
}
