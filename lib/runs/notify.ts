import 'server-only';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { z } from 'zod';
import { getDbHandle, type DbHandle } from '../db';

// Wake-ups for live run viewers. A notification only says "run R has events
// up to seq S now"; the SSE route always reads the events themselves from the
// database (save first, then stream), so a lost or duplicated notification
// costs latency, never correctness.
//
// Embedded mode (PGlite): the worker runs inside the web process, so an
// in-process EventEmitter is enough. Server mode (PostgreSQL): writers
// `NOTIFY flowfix_run_events, 'runId:seq'` after their transaction commits,
// and each web process keeps ONE dedicated `pg` client LISTENing, fanning the
// notifications out to its subscribers. A LISTEN per viewer would cost a
// database connection per open browser tab.

export const RUN_EVENTS_CHANNEL = 'flowfix_run_events';

export interface RunEventNotice {
  runId: string;
  /** highest seq saved so far (-1: "something changed", e.g. the run finished) */
  seq: number;
}

export type RunEventListener = (notice: RunEventNotice) => void;

const NoticeSchema = z.object({ runId: z.string().min(1).max(200), seq: z.number().int().min(-1) });

/** 'runId:seq' — cuids contain no colon, so the last colon splits. */
export function encodeNotice(notice: RunEventNotice): string {
  const { runId, seq } = NoticeSchema.parse(notice);
  return `${runId}:${seq}`;
}

export function decodeNotice(payload: string): RunEventNotice | null {
  const at = payload.lastIndexOf(':');
  if (at <= 0) return null;
  const parsed = NoticeSchema.safeParse({ runId: payload.slice(0, at), seq: Number(payload.slice(at + 1)) });
  return parsed.success ? parsed.data : null;
}

// ───── the process-wide hub ─────

interface Hub {
  emitter: EventEmitter;
  listener?: PgListener;
}

// On globalThis: Next bundles each route separately, and the embedded worker
// may load this module through another bundle; all of them must share one hub.
const globalForNotify = globalThis as unknown as { __flowfixRunNotify?: Hub };

function hub(): Hub {
  if (!globalForNotify.__flowfixRunNotify) {
    const emitter = new EventEmitter();
    // one listener per open viewer: thousands are expected, not a leak
    emitter.setMaxListeners(0);
    globalForNotify.__flowfixRunNotify = { emitter };
  }
  return globalForNotify.__flowfixRunNotify;
}

function deliver(notice: RunEventNotice): void {
  hub().emitter.emit(notice.runId, notice);
}

function isServerMode(handle: DbHandle): boolean {
  return handle.target.kind === 'postgres';
}

/**
 * Tells viewers of a run that events up to `seq` are saved. Call it after the
 * transaction that saved them has committed: a viewer woken earlier would read
 * nothing new and wait for the next notice or the safety poll.
 */
export async function publishRunEvent(notice: RunEventNotice, { handle = getDbHandle() }: { handle?: DbHandle } = {}): Promise<void> {
  const payload = encodeNotice(notice);
  if (!isServerMode(handle)) {
    deliver(notice);
    return;
  }
  // pg_notify outside any transaction: delivered at once, to every process
  // LISTENing on this database, this one included (through its listener)
  await handle.db.$executeRaw`SELECT pg_notify(${RUN_EVENTS_CHANNEL}, ${payload})`;
}

/**
 * Calls `listener` whenever events of `runId` may have been saved. Returns the
 * unsubscribe function. In server mode the first subscription starts the
 * process's LISTEN client; await `runEventsReady()` before reading the
 * database if a notice in between must not wait for the safety poll.
 */
export function subscribeRunEvents(runId: string, listener: RunEventListener, { handle = getDbHandle() }: { handle?: DbHandle } = {}): () => void {
  const h = hub();
  if (isServerMode(handle)) ensureListener(h, handle.target.location);
  h.emitter.on(runId, listener);
  let subscribed = true;
  return () => {
    if (!subscribed) return;
    subscribed = false;
    h.emitter.off(runId, listener);
  };
}

/** Resolves once notifications are flowing (at once in embedded mode). */
export async function runEventsReady({ handle = getDbHandle() }: { handle?: DbHandle } = {}): Promise<void> {
  if (!isServerMode(handle)) return;
  await ensureListener(hub(), handle.target.location).ready();
}

/** Closes the LISTEN client (tests, shutdown). Subscribers stay registered. */
export async function closeRunEventsListener(): Promise<void> {
  const h = hub();
  const listener = h.listener;
  h.listener = undefined;
  await listener?.close();
}

function ensureListener(h: Hub, connectionString: string): PgListener {
  if (h.listener && h.listener.connectionString !== connectionString) {
    // the process switched databases (tests): the old listener is useless
    void h.listener.close();
    h.listener = undefined;
  }
  h.listener ??= new PgListener(connectionString, deliver, () => {
    // after a reconnect, notices sent while we were away are lost: wake
    // every viewer so each re-reads from its last seq
    for (const name of h.emitter.eventNames()) {
      if (typeof name === 'string') h.emitter.emit(name, { runId: name, seq: -1 } satisfies RunEventNotice);
    }
  });
  return h.listener;
}

// ───── the LISTEN client ─────

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/** One pg client LISTENing on the channel, reconnecting with backoff until closed. */
class PgListener {
  private client: pg.Client | undefined;
  private closed = false;
  private backoffMs = RECONNECT_MIN_MS;
  private readyPromise: Promise<void>;
  private resolveReady!: () => void;
  private connectedOnce = false;

  constructor(
    readonly connectionString: string,
    private readonly onNotice: (notice: RunEventNotice) => void,
    private readonly onReconnect: () => void,
  ) {
    this.readyPromise = this.newReady();
    void this.connect();
  }

  ready(): Promise<void> {
    return this.readyPromise;
  }

  private newReady(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.resolveReady = resolve;
    });
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'flowfix-run-events' });
    this.client = client;
    let failed = false;
    const onFailure = () => {
      if (failed) return;
      failed = true;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.client === client) this.client = undefined;
      this.scheduleReconnect();
    };
    client.on('error', onFailure);
    client.on('end', onFailure);
    client.on('notification', (msg) => {
      if (msg.channel !== RUN_EVENTS_CHANNEL || !msg.payload) return;
      const notice = decodeNotice(msg.payload);
      if (notice) this.onNotice(notice);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${RUN_EVENTS_CHANNEL}`);
    } catch {
      onFailure();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.backoffMs = RECONNECT_MIN_MS;
    if (this.connectedOnce) this.onReconnect();
    this.connectedOnce = true;
    this.resolveReady();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    // viewers asking for readiness now wait for the next connection
    this.readyPromise = this.newReady();
    const delay = this.backoffMs;
    this.backoffMs = Math.min(RECONNECT_MAX_MS, this.backoffMs * 2);
    const timer = setTimeout(() => void this.connect(), delay);
    timer.unref();
  }

  /** Test hook and shutdown: drops the connection; `reconnect` keeps the listener alive. */
  async dropConnection(): Promise<void> {
    const client = this.client;
    if (!client) return;
    // ending from our side emits 'end', which schedules the reconnect
    await client.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.resolveReady();
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}

/** How many viewers of a run this process is waking (tests: a closed stream unsubscribes). */
export function runEventSubscriberCount(runId: string): number {
  return hub().emitter.listenerCount(runId);
}
