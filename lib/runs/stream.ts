import { isTerminalRunStatus } from '../../common/run-status';
import { getDbHandle, type Db, type DbHandle } from '../db';
import { getEnv, SECRET_ENV_NAMES } from '../env';
import { AppError } from '../errors';
import { runEventsReady, subscribeRunEvents, type RunEventNotice } from './notify';
import type { PublicRunEvent, RunStreamEnd } from '../../common/run-events';
import { toPublicEvent } from './public-event';

// Save first, then stream: the live trajectory is always read back from the
// database, from the viewer's last seq. Notifications (notify.ts) only say
// when to look again, so a reload, a late viewer and a second viewer get
// exactly the same sequence, and a reconnect with Last-Event-ID continues with
// no gap and no duplicate.

/** The values of this process's secrets, redacted wherever they appear in an event. */
export function processSecretValues(): string[] {
  const env = getEnv();
  const values: string[] = [];
  for (const name of SECRET_ENV_NAMES) {
    const value = env[name];
    if (typeof value === 'string' && value) values.push(value);
  }
  if (env.DATABASE_URL?.startsWith('postgres')) {
    try {
      const password = decodeURIComponent(new URL(env.DATABASE_URL).password);
      if (password) values.push(password);
    } catch {
      // not a URL we can take apart: the whole value is already listed
    }
  }
  return values;
}

// Many viewers of one run wake at the same moment and ask the same question;
// identical reads in flight share one query (50 viewers → 1 query per notice).
// A caller may only join a read that started after `notBefore`: a viewer that
// saw the run finished must not take events from a query older than that look.
interface InFlight {
  startedAt: number;
  promise: Promise<unknown>;
}
const inFlight = new WeakMap<Db, Map<string, InFlight>>();

function coalesce<T>(db: Db, key: string, read: () => Promise<T>, notBefore = -Infinity): Promise<T> {
  let forDb = inFlight.get(db);
  if (!forDb) {
    forDb = new Map();
    inFlight.set(db, forDb);
  }
  const existing = forDb.get(key);
  if (existing && existing.startedAt >= notBefore) return existing.promise as Promise<T>;
  const map = forDb;
  const entry: InFlight = { startedAt: performance.now(), promise: Promise.resolve() };
  entry.promise = read().finally(() => {
    if (map.get(key) === entry) map.delete(key);
  });
  map.set(key, entry);
  return entry.promise as Promise<T>;
}

export const DEFAULT_BATCH = 500;

/** Saved events of a run with seq > afterSeq, in order, projected for the public. */
export async function readRunEventsAfter({
  runId,
  afterSeq,
  limit = DEFAULT_BATCH,
  db = getDbHandle().db,
  notBefore,
}: {
  runId: string;
  afterSeq: number;
  limit?: number;
  db?: Db;
  /** performance.now() before which a shared in-flight read is too old to join */
  notBefore?: number;
}): Promise<PublicRunEvent[]> {
  const rows = await coalesce(
    db,
    `events:${runId}:${afterSeq}:${limit}`,
    () =>
      db.runEvent.findMany({
        where: { runId, seq: { gt: afterSeq } },
        orderBy: { seq: 'asc' },
        take: limit,
        select: { seq: true, type: true, payload: true, createdAt: true },
      }),
    notBefore,
  );
  const secretValues = processSecretValues();
  return rows.map((row) => toPublicEvent(row, { secretValues }));
}

export interface RunStreamState {
  status: string;
  exitReason: string | null;
  exitDetail: string | null;
  fixId: string | null;
}

export async function readRunStreamState({ runId, db = getDbHandle().db }: { runId: string; db?: Db }): Promise<RunStreamState | null> {
  return coalesce(db, `state:${runId}`, async () => {
    const run = await db.run.findUnique({
      where: { id: runId },
      select: { status: true, exitReason: true, exitDetail: true, fix: { select: { id: true } } },
    });
    if (!run) return null;
    return { status: run.status, exitReason: run.exitReason, exitDetail: run.exitDetail, fixId: run.fix?.id ?? null };
  });
}

/**
 * Where a (re)connecting viewer resumes: after the Last-Event-ID header (set by
 * EventSource on reconnect), else after `?after=`, else from the start (-1).
 */
export function parseResumePoint({ lastEventId, after }: { lastEventId: string | null; after: string | null }): number {
  const raw = lastEventId?.trim() || after?.trim() || '';
  if (raw === '') return -1;
  if (!/^-?\d{1,10}$/.test(raw) || Number(raw) < -1) {
    throw new AppError('validation', 'Last-Event-ID / after must be an event sequence number');
  }
  return Number(raw);
}

// ───── SSE framing ─────

/**
 * One SSE message. Run events go without an `event:` name (the default
 * `message`, type inside the data): the stream and the browser never list
 * event types, so none can be dropped for want of a listener. Only the
 * stream's own `end` is named.
 */
export function sseMessage({ id, event, data }: { id?: number; event?: string; data: unknown }): string {
  // JSON.stringify never emits a raw newline, so one data line is always enough
  return `${id === undefined ? '' : `id: ${id}\n`}${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  // nginx and friends: do not buffer this response
  'X-Accel-Buffering': 'no',
};

export interface RunEventStreamOptions {
  runId: string;
  /** send events with seq > afterSeq */
  afterSeq: number;
  /** the client went away (req.signal) */
  signal?: AbortSignal;
  handle?: DbHandle;
  /** safety poll in case a notification was missed (ms) */
  pollMs?: number;
  heartbeatMs?: number;
  batch?: number;
  /** the browser's reconnect delay, sent as `retry:` */
  retryMs?: number;
}

/**
 * The SSE body for one viewer: replays saved events after `afterSeq`, then
 * tails new ones as notifications (or the safety poll) say they exist, and
 * ends a finished run with `event: end` so EventSource does not reconnect.
 */
export function createRunEventStream({
  runId,
  afterSeq,
  signal,
  handle = getDbHandle(),
  pollMs = 2_000,
  heartbeatMs = 15_000,
  batch = DEFAULT_BATCH,
  retryMs = 2_000,
}: RunEventStreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let last = afterSeq;
  let closed = false;
  let pending = false;
  let wake: (() => void) | null = null;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let unsubscribe: (() => void) | undefined;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;

  const send = (text: string) => {
    if (closed || !controllerRef) return;
    try {
      controllerRef.enqueue(encoder.encode(text));
    } catch {
      // the consumer is gone; cleanup follows through cancel/abort
      closed = true;
    }
  };

  const onNotice = (notice: RunEventNotice) => {
    // a notice for events this viewer already sent is not worth a query
    if (notice.seq !== -1 && notice.seq <= last) return;
    pending = true;
    wake?.();
  };

  const cleanup = () => {
    if (closed && !heartbeat && !unsubscribe) return;
    closed = true;
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
    unsubscribe?.();
    unsubscribe = undefined;
    wake?.();
    signal?.removeEventListener('abort', onAbort);
  };

  const onAbort = () => {
    cleanup();
    try {
      controllerRef?.close();
    } catch {
      // already closed or errored
    }
  };

  const waitForWake = () =>
    new Promise<void>((resolve) => {
      if (pending || closed) {
        resolve();
        return;
      }
      const timer = setTimeout(done, pollMs);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  /** Sends every saved event after `last`; returns the run's state read BEFORE the events. */
  const drain = async (): Promise<RunStreamState | null> => {
    // State first, then events: if the run was already finished when we
    // looked, every event it will ever have was committed before, so the
    // read below sees them all and `end` can follow safely.
    const lookedAt = performance.now();
    const state = await readRunStreamState({ runId, db: handle.db });
    for (;;) {
      const events = await readRunEventsAfter({ runId, afterSeq: last, limit: batch, db: handle.db, notBefore: lookedAt });
      for (const event of events) {
        if (closed) return state;
        // never resend or skip: only the next seq moves the cursor forward
        if (event.seq <= last) continue;
        send(sseMessage({ id: event.seq, data: event }));
        last = event.seq;
      }
      if (events.length < batch) return state;
    }
  };

  const pump = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    try {
      await runEventsReady({ handle });
      while (!closed) {
        pending = false;
        const state = await drain();
        if (closed) break;
        if (!state || isTerminalRunStatus(state.status)) {
          const end: RunStreamEnd = state
            ? { status: state.status, exitReason: state.exitReason, exitDetail: state.exitDetail, fixId: state.fixId, lastSeq: last }
            : { status: 'GONE', exitReason: null, exitDetail: 'the run no longer exists', fixId: null, lastSeq: last };
          send(sseMessage({ event: 'end', data: end }));
          cleanup();
          controller.close();
          return;
        }
        await waitForWake();
      }
    } catch (error) {
      if (closed) return;
      cleanup();
      // the browser reconnects with Last-Event-ID and resumes where it was
      controller.error(error);
    }
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controllerRef = controller;
      if (signal?.aborted) {
        closed = true;
        controller.close();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      // subscribe before the first read: a notice between the read and the
      // wait sets `pending` instead of being lost
      unsubscribe = subscribeRunEvents(runId, onNotice, { handle });
      heartbeat = setInterval(() => send(': keep-alive\n\n'), heartbeatMs);
      send(`retry: ${retryMs}\n: stream of run ${runId} after ${afterSeq}\n\n`);
      void pump(controller);
    },
    cancel() {
      cleanup();
    },
  });
}
