import type { Prisma } from '../generated/prisma/client';
import { getDb } from '../db';
import { AppError } from '../errors';
import { checkRunEvent, type RunEventInput } from '../../common/run-events';
import { publishRunEvent } from './notify';
import type { Tx } from '../db';

// Save first, then stream. Sequence numbers come from Run.nextEventSeq, bumped
// in the same transaction that inserts the events: the Run row lock orders
// concurrent writers (the worker's sink, a cancel, the final event) and
// (runId, seq) is the primary key, so an event can never be stored twice and
// the numbers have no gaps. Viewers are woken only after the commit.

/** Raised when the caller no longer holds the run's lease: it must stop working on the run. */
export class LeaseLostError extends AppError {
  constructor(runId: string) {
    super('conflict', `This worker no longer holds the lease on run ${runId}`);
    this.name = 'LeaseLostError';
  }
}

// PostgreSQL JSON cannot hold NUL characters; a test log may.
function jsonSafe(value: unknown): Prisma.InputJsonValue {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replace(/\u0000/g, '\uFFFD') : v));
  return JSON.parse(text ?? '{}') as Prisma.InputJsonValue;
}

/**
 * Every event is checked against the run-event contract before anything is
 * stored: one bad event refuses the whole batch, so a trajectory never has a
 * hole where an event did not fit. Events are stored as given.
 */
function checkedEvents(events: readonly RunEventInput[]): RunEventInput[] {
  return events.map((event, i) => {
    const check = checkRunEvent(event);
    if (!check.ok) throw new AppError('validation', `Run event ${i + 1} of ${events.length}: ${check.message}`);
    return check.event;
  });
}

/** The stored payload: the agent's phase folded in (RunEvent has no phase column). */
export function storedPayload(event: RunEventInput): Prisma.InputJsonValue {
  const own: Record<string, unknown> = event.payload;
  const payload = event.phase && own.phase === undefined ? { phase: event.phase, ...own } : own;
  return jsonSafe(payload);
}

/**
 * Inserts events with seqs taken from Run.nextEventSeq, inside `tx`. No lease
 * check: for the run's own state transitions (claim, cancel, finish, reap)
 * that hold the Run row already. Returns the last seq, or -1 for no events.
 */
export async function insertRunEventsTx({ tx, runId, events }: { tx: Tx; runId: string; events: RunEventInput[] }): Promise<number> {
  if (events.length === 0) return -1;
  const checked = checkedEvents(events);
  const rows = await tx.$queryRaw<Array<{ next: number }>>`
    UPDATE "Run" SET "nextEventSeq" = "nextEventSeq" + ${checked.length}::int
    WHERE id = ${runId} RETURNING "nextEventSeq" AS next`;
  if (rows.length === 0) throw new AppError('not_found', `Run ${runId} not found`);
  return insertAt({ tx, runId, events: checked, next: Number(rows[0].next) });
}

async function insertAt({ tx, runId, events, next }: { tx: Tx; runId: string; events: RunEventInput[]; next: number }): Promise<number> {
  const first = next - events.length;
  await tx.runEvent.createMany({
    data: events.map((e, i) => ({ runId, seq: first + i, type: e.type, payload: storedPayload(e) })),
  });
  return next - 1;
}

/**
 * Appends a worker's events, in order, only while `workerId` owns the run
 * (leaseOwner, status RUNNING). A worker whose run was taken over, handed
 * back or finished gets LeaseLostError and nothing is stored.
 */
export async function appendRunEvents({
  runId,
  workerId,
  events,
}: {
  runId: string;
  workerId: string;
  events: RunEventInput[];
}): Promise<{ firstSeq: number; lastSeq: number }> {
  const parsed = checkedEvents(events);
  if (parsed.length === 0) return { firstSeq: -1, lastSeq: -1 };
  // write hook: only the event counter of a running run moves; its events count once it ends (closeRunTx)
  const lastSeq = await getDb().$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Array<{ next: number }>>`
      UPDATE "Run" SET "nextEventSeq" = "nextEventSeq" + ${parsed.length}::int
      WHERE id = ${runId} AND "leaseOwner" = ${workerId} AND status = 'RUNNING'
      RETURNING "nextEventSeq" AS next`;
    if (rows.length === 0) throw new LeaseLostError(runId);
    return insertAt({ tx, runId, events: parsed, next: Number(rows[0].next) });
  });
  await notifySaved({ runId, seq: lastSeq });
  return { firstSeq: lastSeq - parsed.length + 1, lastSeq };
}

/** Wakes viewers after a commit; a lost wake-up only costs latency (the stream polls), so errors are swallowed. */
export async function notifySaved({ runId, seq }: { runId: string; seq: number }): Promise<void> {
  try {
    await publishRunEvent({ runId, seq });
  } catch {
    // viewers re-read on their safety poll
  }
}
