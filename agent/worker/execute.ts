import type { NamedExitReason } from '../../common/exit-reasons';
import { sandboxRefusal, setSandboxMode as setProcessSandboxMode } from '../../lib/sandbox';
import { readSandboxMode } from '../../lib/sandbox/settings';
import { heartbeat } from '../../lib/runs/lease';
import { LeaseLostError } from '../../lib/runs/events';
import type { FinishRunResult } from '../../lib/runs/schemas';
import { planRevisionRepair } from '../../lib/triage/plan';
import { HostAccessError, hostCloneAccess } from '../../lib/hosts/clone-access';
import { checkRunStale, finishRun, getRunWorkContext, releaseRun, type RunWorkContext } from '../../lib/runs/service';
import { readModelPrices } from '../../lib/models/prices';
import { runRepair, type RepairResult, type RunRepairInput } from '../pipeline';
import { ModelUnavailableError } from '../assemble';
import { DbEventSink } from './db-sink';
import { runKindOf } from './run-kinds';

// One claimed run, from the Run row to finishRun. The worker loop
// (worker.ts) owns the claiming; this owns the run while it is held:
// heartbeat, cancel → abort, events → database, result → finishRun.

export type AbortCause = 'cancel' | 'lease_lost' | 'shutdown' | 'sink_failed';

export type RunOutcome =
  | { kind: 'finished'; status: string; fixId: string | null }
  /** handed back to the queue (shutdown): the caller re-enqueues it */
  | { kind: 'released' }
  /** no longer ours: another worker has it, or it ended without us */
  | { kind: 'lost' };

export interface ExecuteRunOptions {
  runId: string;
  workerId: string;
  leaseMs: number;
  heartbeatMs: number;
  /** aborted by the worker when it must hand its runs back (SIGTERM after the grace period) */
  shutdown: AbortSignal;
  workDir?: string;
  log?: (entry: Record<string, unknown>) => void;
}

/**
 * The pipeline's input for a run: its revision's plan (the settings and
 * targets triage filtered on) and the run's own trigger and policy. The plan's
 * filter decision is not applied here: a run that exists was wanted (triage
 * queued it, or a reviewer started it by hand).
 */
export async function buildRepairInput({
  run,
  sink,
  signal,
  workDir,
}: {
  run: RunWorkContext;
  sink: RunRepairInput['sink'];
  signal: AbortSignal;
  workDir?: string;
}): Promise<RunRepairInput> {
  const plan = await planRevisionRepair({ revisionId: run.revisionId });
  // read per run: an admin's price change applies from the next run on
  const kind = runKindOf(run);
  const priceTable = run.policy === 'offline' || !kind.usesModelPrices ? {} : await readModelPrices();
  // asked per run, just before the clone: an installation token lasts an hour
  const hostAccess = await hostCloneAccess({ repositoryId: run.change.repositoryId, externalId: run.change.externalId });
  const assembly = kind.assemble({ run, modelSettings: plan.modelSettings, priceTable });
  return {
    ...plan.source,
    ...(hostAccess ? { hostAccess } : {}),
    baseRev: plan.baseRev,
    headRev: plan.headRev,
    targetTests: plan.targets,
    settings: plan.settings,
    filterPolicy: plan.filterPolicy,
    modelSettings: plan.modelSettings,
    policy: assembly.policies,
    ...(assembly.summarise ? { summarise: assembly.summarise } : {}),
    sink,
    signal,
    change: { title: run.change.title, description: run.change.description, author: run.change.author },
    checkStale: () => checkRunStale({ runId: run.id }),
    ...(kind.checkBase ? {} : { checkBase: false }),
    ...(workDir ? { workDir } : {}),
  };
}

function toFinishResult(result: RepairResult, finalPayload: Record<string, unknown> | undefined): FinishRunResult {
  return {
    status: result.status,
    exitReason: result.exitReason,
    ...(result.exitDetail ? { exitDetail: result.exitDetail } : {}),
    diff: result.diff,
    files: result.files,
    summaryHtml: result.summaryHtml,
    evidence: {
      ...result.evidence,
      suspects: result.suspects,
      timings: result.timings,
      ...(result.policy ? { policy: result.policy } : {}),
      ...(result.summarySource ? { summarySource: result.summarySource } : {}),
      ...(result.dropped ? { dropFindings: result.dropped.findings } : {}),
    } as Record<string, unknown>,
    phaseTimings: result.phaseTimings as Record<string, number>,
    usage: result.usage,
    ...(result.dropped ? { dropped: { reason: result.dropped.reason, detail: result.dropped.detail } } : {}),
    ...(finalPayload ? { finalPayload } : {}),
  };
}

/**
 * Why this run must not start: no working sandbox here, and the stored mode
 * is not the admin's unsafe one. The mode read here is the one the run's
 * commands then see (lib/sandbox/mode.ts). `npm run worker` asks it once at
 * start-up too (main.ts), and refuses to take any run when it answers.
 */
export async function storedModeRefusal(): Promise<string | null> {
  const mode = await readSandboxMode();
  setProcessSandboxMode(mode);
  return sandboxRefusal(mode);
}

function failureResult(exitReason: NamedExitReason, detail: string): FinishRunResult {
  return { status: 'failed', exitReason, exitDetail: detail.slice(0, 4000) };
}

/** Runs one claimed run to its end (or hands it back). Never throws for the run's own failures. */
export async function executeRun(opts: ExecuteRunOptions): Promise<RunOutcome> {
  const { runId, workerId } = opts;
  const controller = new AbortController();
  let cause: AbortCause | undefined;
  const abort = (why: AbortCause) => {
    if (cause) return;
    cause = why;
    opts.log?.({ event: 'abort', runId, cause: why });
    controller.abort(new Error(why));
  };
  const onShutdown = () => abort('shutdown');
  if (opts.shutdown.aborted) onShutdown();
  opts.shutdown.addEventListener('abort', onShutdown, { once: true });

  // The heartbeat keeps the lease and carries cancel requests (polling the
  // Run row works across machines; the period bounds the cancel latency).
  let beating = false;
  const beat = async () => {
    if (beating || cause === 'lease_lost') return;
    beating = true;
    try {
      const hb = await heartbeat({ runId, workerId, leaseMs: opts.leaseMs });
      if (!hb.owned) abort('lease_lost');
      else if (hb.cancelRequested) abort('cancel');
    } catch (err) {
      // a missed beat is survivable until the lease runs out; the next one retries
      opts.log?.({ event: 'heartbeat_error', runId, error: (err as Error).message });
    } finally {
      beating = false;
    }
  };
  const timer = setInterval(() => void beat(), opts.heartbeatMs);
  await beat();

  const sink = new DbEventSink({
    runId,
    workerId,
    onFailure: (err, leaseLost) => {
      opts.log?.({ event: 'sink_failed', runId, leaseLost, error: (err as Error).message });
      abort(leaseLost ? 'lease_lost' : 'sink_failed');
    },
  });

  let result: FinishRunResult;
  let afterFinish: ((runId: string) => Promise<unknown>) | undefined;
  try {
    const run = await getRunWorkContext({ runId });
    afterFinish = runKindOf(run).afterFinish;
    let input: RunRepairInput | undefined;
    const refusal = await storedModeRefusal();
    if (refusal) result = failureResult('sandbox_unavailable', refusal);
    else
      try {
        input = await buildRepairInput({ run, sink, signal: controller.signal, ...(opts.workDir ? { workDir: opts.workDir } : {}) });
      } catch (err) {
        if (err instanceof ModelUnavailableError) result = failureResult('model_error', err.message);
        // the run ends where a clone refused by the host would end it
        else if (err instanceof HostAccessError) result = failureResult('setup_failed', err.message);
        else throw err;
      }
    if (input) {
      const repaired = await runRepair(input);
      result = toFinishResult(repaired, sink.finalPayload);
    }
  } catch (err) {
    result = failureResult('internal_error', `flowfix failed while running the repair: ${(err as Error).message}`);
    opts.log?.({ event: 'run_error', runId, error: (err as Error).stack ?? String(err) });
  } finally {
    clearInterval(timer);
    opts.shutdown.removeEventListener('abort', onShutdown);
  }
  await sink.flush();

  if (cause === 'lease_lost') return { kind: 'lost' };
  if (cause === 'shutdown') {
    const released = await releaseRun({ runId, workerId, reason: 'worker_shutdown' });
    return released ? { kind: 'released' } : { kind: 'lost' };
  }
  if (cause === 'sink_failed') result = failureResult('internal_error', 'the trajectory could not be saved');
  // A cancel that lands mid-command can surface from the pipeline as the
  // command's failure (e.g. "no JUnit report" from a killed test run): the
  // run was cancelled, whatever the last step made of it. A fix that was
  // complete before the cancel arrived stands.
  if (cause === 'cancel' && result!.status !== 'fixed' && result!.status !== 'cancelled') {
    result = {
      ...result!,
      status: 'cancelled',
      exitReason: 'cancelled',
      exitDetail: `cancelled (${result!.exitReason}: ${result!.exitDetail ?? ''})`.slice(0, 4000),
    };
  }
  try {
    const done = await finishRun({ runId, workerId, result: result! });
    // what the run's kind does once its result is stored (agent/worker/run-kinds.ts)
    await afterFinish?.(runId).catch((err: unknown) => {
      opts.log?.({ event: 'after_finish_error', runId, error: (err as Error).stack ?? String(err) });
    });
    return { kind: 'finished', status: done.status, fixId: done.fixId };
  } catch (err) {
    if (err instanceof LeaseLostError) return { kind: 'lost' };
    throw err;
  }
}
