import { appendRunEvents, LeaseLostError } from '../../lib/runs/events';
import { runEvent, type RunEventInput } from '../../common/run-events';
import type { AgentEvent, EventSink } from '../types';

// The pipeline's events, saved to the run's trajectory. Events are batched a
// little (a test run emits bursts of gate/log events) but kept in order: one
// write chain, each batch appended only after the previous one committed.
//
// No retry of a failed append: a commit whose acknowledgement was lost would
// be stored twice. A failed write ends the run instead (onFailure), and the
// lease rules make sure a worker that lost its run stores nothing more.
//
// The pipeline's own 'final' event is held back: finishRun writes the run's
// one final event, in the transaction that ends the run, so a viewer's
// stream closes only once the outcome and the fix are visible.

export interface DbEventSinkOptions {
  runId: string;
  workerId: string;
  /** how long an event may wait for companions before it is written */
  flushMs?: number;
  maxBatch?: number;
  onFailure: (err: unknown, leaseLost: boolean) => void;
}

export class DbEventSink implements EventSink {
  private buffer: RunEventInput[] = [];
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private failed = false;
  /** the pipeline's final payload, for finishRun */
  finalPayload: Record<string, unknown> | undefined;
  /** events stored by this sink */
  stored = 0;

  constructor(private readonly opts: DbEventSinkOptions) {}

  get broken(): boolean {
    return this.failed;
  }

  async emit(event: AgentEvent): Promise<void> {
    if (event.type === 'final') {
      this.finalPayload = structuredClone(event.payload);
      return;
    }
    if (this.failed) return;
    // a copy: the emitter may mutate its object later
    this.buffer.push(structuredClone(runEvent(event.type, event.payload, event.phase) as RunEventInput));
    if (this.buffer.length >= (this.opts.maxBatch ?? 50)) {
      // back-pressure: a burst waits for the database instead of piling up in memory
      await this.flush();
      return;
    }
    this.timer ??= setTimeout(() => void this.flush(), this.opts.flushMs ?? 40);
  }

  /** Writes everything emitted so far; resolves when it is committed (or the sink failed). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length > 0) {
      this.chain = this.chain.then(async () => {
        if (this.failed) return;
        try {
          await appendRunEvents({ runId: this.opts.runId, workerId: this.opts.workerId, events: batch });
          this.stored += batch.length;
        } catch (err) {
          this.failed = true;
          this.opts.onFailure(err, err instanceof LeaseLostError);
        }
      });
    }
    return this.chain;
  }
}
