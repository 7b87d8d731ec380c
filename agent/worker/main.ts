import { parseArgs } from 'node:util';
import { closeDb, getDbHandle } from '../../lib/db';
import { getEnv } from '../../lib/env';
import { onQueueError, stopRunQueue } from '../../lib/queue';
import { storedModeRefusal } from './execute';
import { startWorker } from './worker';

// `npm run worker`: a worker process for server mode. Run as many as you
// like, on as many machines as you like, against the same PostgreSQL
// (DATABASE_URL); each takes FLOWFIX_WORKER_CONCURRENCY runs at a time
// (--concurrency overrides). SIGTERM/SIGINT: stop taking work, let held
// runs finish for the grace period, then hand them back to the queue.
// Logs are JSON lines on stdout.

const HELP = `usage: npm run worker -- [options]
  --concurrency N     runs at a time (default FLOWFIX_WORKER_CONCURRENCY)
  --grace-ms N        on SIGTERM, how long held runs may finish before they are handed back (default 20000)
  --lease-ms N        lease length; a worker silent this long is presumed dead (default 30000)
  --heartbeat-ms N    heartbeat and cancel-poll period (default 1000)
  --poll-ms N         queue polling period when idle (default 500)
  --work-dir DIR      where run workspaces are created (default: the OS temp folder)`;

function write(entry: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ t: new Date().toISOString(), ...entry })}\n`);
}

function intArg(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      concurrency: { type: 'string' },
      'grace-ms': { type: 'string' },
      'lease-ms': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'poll-ms': { type: 'string' },
      'work-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const env = getEnv();
  const concurrency = intArg(values.concurrency, 'concurrency', 1) ?? env.FLOWFIX_WORKER_CONCURRENCY;
  if (concurrency < 1) throw new Error('concurrency is 0: nothing to do (set FLOWFIX_WORKER_CONCURRENCY or --concurrency)');
  const handle = getDbHandle();
  if (handle.target.kind !== 'postgres') {
    throw new Error(
      'the embedded database (PGlite) belongs to the web server, which runs the worker itself; a separate worker needs DATABASE_URL=postgresql://…',
    );
  }
  // A worker that cannot sandbox takes nothing from the shared queue (a worker
  // that can will run it) and says why in one line; the admin's unsafe mode
  // lets it start as the embedded server's worker would.
  const refusal = await storedModeRefusal();
  if (refusal) throw new Error(`refusing runs: ${refusal.replace(/\s*\n\s*/g, ' ')}`);
  onQueueError((err) => write({ event: 'queue_error', error: (err as Error).message }));
  const graceMs = intArg(values['grace-ms'], 'grace-ms', 0) ?? 20_000;
  const worker = await startWorker({
    concurrency,
    log: write,
    ...(values['lease-ms'] ? { leaseMs: intArg(values['lease-ms'], 'lease-ms', 500)! } : {}),
    ...(values['heartbeat-ms'] ? { heartbeatMs: intArg(values['heartbeat-ms'], 'heartbeat-ms', 50)! } : {}),
    ...(values['poll-ms'] ? { pollMs: intArg(values['poll-ms'], 'poll-ms', 10)! } : {}),
    ...(values['work-dir'] ? { workDir: values['work-dir'] } : {}),
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      write({ event: 'forced_exit', signal });
      process.exit(1);
    }
    stopping = true;
    write({ event: 'signal', signal });
    await worker.stop({ graceMs });
    await stopRunQueue();
    await closeDb();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`flowfix worker: ${(err as Error).message}\n`);
  process.exit(1);
});
