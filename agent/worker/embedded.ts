import { getDbHandle } from '../../lib/db';
import { getEnv } from '../../lib/env';
import { onQueueError } from '../../lib/queue';
import { startWorker, type RunWorker } from './worker';

// What the web server starts beside itself (instrumentation.ts register()):
// in embedded mode (PGlite) with FLOWFIX_WORKER_CONCURRENCY > 0, the worker,
// in this process, since the PGlite folder has one owning process. In server
// mode the workers are separate `npm run worker` processes. (Ingestion
// triages new revisions itself, in whichever process receives them.)

const slot = globalThis as unknown as { __flowfixEmbeddedWorker?: Promise<RunWorker | undefined> };

function logLine(entry: Record<string, unknown>): void {
  // the server's log: only what an operator needs (claims, ends, trouble)
  if (
    entry.event === 'claim' ||
    entry.event === 'run_done' ||
    entry.event === 'worker_started' ||
    String(entry.event).endsWith('error') ||
    entry.event === 'reaped'
  ) {
    process.stdout.write(`[flowfix worker] ${JSON.stringify(entry)}\n`);
  }
}

export function startServerServices(): Promise<RunWorker | undefined> {
  slot.__flowfixEmbeddedWorker ??= (async () => {
    const env = getEnv();
    const handle = getDbHandle();
    if (handle.target.kind !== 'pglite' || env.FLOWFIX_WORKER_CONCURRENCY <= 0) return undefined;
    onQueueError((err) => logLine({ event: 'queue_error', error: (err as Error).message }));
    return startWorker({ concurrency: env.FLOWFIX_WORKER_CONCURRENCY, log: logLine, pollMs: 250 });
  })();
  return slot.__flowfixEmbeddedWorker;
}
