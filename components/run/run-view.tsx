'use client';

import Link from 'next/link';
import { useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { proofLabel, type PublicRunEvent, type PublicRunEventOf, type RunStreamEnd } from '@/common/run-events';
import { EventItem } from './event-item';
import { Eta, PhaseBar, useNow } from './phase-bar';
import { eventMatches, fixIdOf, isFinishedStatus, liveCounters, liveStatus, phaseViews, runProgress } from './derive';
import { formatCost, formatCostExact, formatTokens } from '@/common/format';
import { STATUS_TEXT } from './format';
import { runQueryKey, useCancelRun, useRun, type RunSummary } from './use-run';
import { useRunEvents, type ConnectionState } from './use-run-events';
import { exitReasonLabel, policyLabel, triggerLabel } from '@/common/labels';

// The run page: a run's ReAct trajectory as it happens. The server renders
// the saved events; the stream continues from the last of them.

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  open: 'live',
  reconnecting: 'reconnecting…',
  closed: 'complete',
};

function shortId(id: string): string {
  return id.length > 10 ? id.slice(-8) : id;
}

function Counter({ testId, label, value, title }: { testId: string; label: string; value: string; title?: string }) {
  return (
    <div className="run-counter" title={title}>
      <div className="run-counter-value" data-testid={testId}>
        {value}
      </div>
      <div className="run-counter-label">{label}</div>
    </div>
  );
}

function LatestSuspects({ events }: { events: PublicRunEvent[] }) {
  const latest = events.findLast((e): e is PublicRunEventOf<'suspects'> => e.type === 'suspects');
  const suspects = latest?.payload.suspects ?? [];
  return (
    <section className="card run-side-card" aria-labelledby="run-suspects-title">
      <h2 className="card-title" id="run-suspects-title">
        Suspects
      </h2>
      {!latest && <div className="muted small">The retrieval scaffold ranks suspects after RED.</div>}
      {latest && suspects.length === 0 && <div className="muted small">No suspects found.</div>}
      <ol className="run-side-list">
        {suspects.map((s, i) => (
          <li key={i}>
            <div className="mono small run-suspect-where">
              {s.file}:{s.startLine} <span className="muted">{s.symbol}</span>
            </div>
            <ul className="run-reasons small">
              {s.reasons.slice(0, 4).map((r, j) => (
                <li key={j}>{r}</li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </section>
  );
}

function Candidates({ events }: { events: PublicRunEvent[] }) {
  const candidates = events.filter(
    (e): e is PublicRunEventOf<'candidate' | 'tool_call'> =>
      e.type === 'candidate' || (e.type === 'tool_call' && /edit|write|replace|patch/i.test(e.payload.name ?? '')),
  );
  if (candidates.length === 0) return null;
  return (
    <section className="card run-side-card" aria-labelledby="run-candidates-title">
      <h2 className="card-title" id="run-candidates-title">
        Candidate edits ({candidates.length})
      </h2>
      <ol className="run-side-list">
        {candidates.slice(-12).map((e) => {
          const pass = e.type === 'candidate' ? e.payload.outcome === 'green' : null;
          return (
            <li key={e.seq} className="small">
              {pass !== null && <span className={pass ? 'run-text-pass' : 'run-text-fail'}>{pass ? '✔ ' : '✘ '}</span>}
              <span className="mono">
                {e.type === 'candidate' ? `${e.payload.file ?? ''}${e.payload.line ? `:${e.payload.line}` : ''}` : (e.payload.name ?? '')}
              </span>
              {e.type === 'candidate' && e.payload.description ? <div className="muted">{e.payload.description}</div> : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

function Gates({ events }: { events: PublicRunEvent[] }) {
  const latest = new Map<string, PublicRunEventOf<'gate'>>();
  let proof: PublicRunEventOf<'proof'> | undefined;
  for (const e of events) {
    if (e.type === 'proof') proof = e;
    // RED's repeats on the head without the fix speak through the proof, not as RED
    if (e.type === 'gate' && e.payload.gate && !(e.payload.gate === 'red' && e.payload.repeat)) latest.set(e.payload.gate, e);
  }
  if (latest.size === 0) return null;
  const unproven = proof?.payload.status === 'unproven';
  const order = ['red', 'base', 'compile', 'green', 'regression', 'final'];
  return (
    <section className="card run-side-card" aria-labelledby="run-gates-title">
      <h2 className="card-title" id="run-gates-title">
        Gates
      </h2>
      <ul className="run-side-list run-gate-summary">
        {order
          .filter((g) => latest.has(g))
          .map((g) => {
            const passed = latest.get(g)!.payload.passed === true;
            if (g === 'base') {
              // informational: do the target tests fail on the base revision too?
              return (
                <li
                  key={g}
                  className="run-text-info"
                  data-testid="run-gate-base"
                  data-passed={passed}
                  title="Do the target tests fail on the base revision too?"
                >
                  {passed ? '⚠ fails on base too' : '· passes on base'}
                </li>
              );
            }
            // a pass of a flaky target proves nothing: never a green row
            if (unproven && passed && (g === 'green' || g === 'final')) {
              return (
                <li
                  key={g}
                  className="run-text-warn"
                  data-testid={`run-gate-${g}`}
                  data-passed={passed}
                  data-unproven="true"
                  title="passed, but the target also passes without the fix"
                >
                  ? {g.toUpperCase()}
                </li>
              );
            }
            return (
              <li key={g} className={passed ? 'run-text-pass' : 'run-text-fail'} data-testid={`run-gate-${g}`} data-passed={passed}>
                {passed ? '✔' : '✘'} {g.toUpperCase()}
              </li>
            );
          })}
        {proof && (
          <li
            className={unproven ? 'run-text-warn' : 'run-text-pass'}
            data-testid="run-gate-proof"
            data-status={proof.payload.status}
            title={proof.payload.detail}
          >
            {unproven
              ? `⚠ ${proofLabel(proof.payload.status ? { status: proof.payload.status, ...(proof.payload.reason ? { reason: proof.payload.reason } : {}) } : null)}`
              : '✔ proven'}
          </li>
        )}
      </ul>
    </section>
  );
}

export function RunView({
  initialRun,
  initialEvents,
  canCancel,
  serverNow,
}: {
  initialRun: RunSummary;
  initialEvents: PublicRunEvent[];
  canCancel: boolean;
  serverNow: number;
}) {
  const initialEnd: RunStreamEnd | null =
    isFinishedStatus(initialRun.status) && initialEvents.at(-1)?.seq === initialRun.lastSeq
      ? {
          status: initialRun.status,
          exitReason: initialRun.exitReason,
          exitDetail: initialRun.exitDetail,
          fixId: initialRun.fix?.id ?? null,
          lastSeq: initialRun.lastSeq,
        }
      : null;
  const stream = useRunEvents({ runId: initialRun.id, initialEvents, initialEnd });
  const { events, end, connection } = stream;
  const queryClient = useQueryClient();
  const runQuery = useRun({ runId: initialRun.id, initial: initialRun, active: !end });
  const run = runQuery.data ?? initialRun;
  const cancel = useCancelRun(initialRun.id);

  // the row changes when the run starts, ends or is cancelled: refresh it then
  const statusEvents = events.filter((e) => e.type === 'status' || e.type === 'final').length;
  useEffect(() => {
    if (statusEvents > 0 || end) void queryClient.invalidateQueries({ queryKey: runQueryKey(initialRun.id) });
  }, [statusEvents, end, queryClient, initialRun.id]);

  const status = liveStatus({ events, rowStatus: run.status, end });
  const finished = isFinishedStatus(status);
  const [clockOffsetMs] = useState(() => serverNow - Date.now());
  const now = useNow({ active: !finished, clockOffsetMs });
  const progress = useMemo(() => runProgress(events), [events]);
  const views = useMemo(() => phaseViews({ events, finished, timings: finished ? run.phaseTimings : undefined }), [events, finished, run.phaseTimings]);
  const counters = liveCounters({ events, row: { ...run.counters, tokens: run.counters.promptTokens + run.counters.completionTokens } });
  const fixId = fixIdOf({ events, end, rowFixId: run.fix?.id ?? null });
  const exitReason = end?.exitReason ?? run.exitReason;
  const exitDetail = end?.exitDetail ?? run.exitDetail;

  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query);
  const shown = useMemo(() => (deferredQuery.trim() ? events.filter((e) => eventMatches(e, deferredQuery)) : events), [events, deferredQuery]);

  // follow the tail while the reader is at the bottom of the trajectory
  const listRef = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  useLayoutEffect(() => {
    const el = listRef.current;
    if (el && follow && !finished) el.scrollTop = el.scrollHeight;
  }, [shown.length, follow, finished]);
  const onScroll = () => {
    const el = listRef.current;
    if (!el) return;
    setFollow(el.scrollHeight - el.scrollTop - el.clientHeight < 40);
  };

  const cancelRequested = Boolean(run.cancelRequestedAt) || events.some((e) => e.type === 'status' && e.payload.status === 'cancel_requested');

  return (
    <div className="run-page">
      <section className="card run-header">
        <div className="run-header-top">
          <div>
            <h1 className="page-title">
              Run <span className="mono">{shortId(run.id)}</span>{' '}
              <span className={`badge run-status run-status-${status.toLowerCase()}`} data-testid="run-status" data-status={status}>
                {STATUS_TEXT[status] ?? status}
              </span>
            </h1>
            <div className="muted">
              <Link href={`/changes/${encodeURIComponent(run.change.id)}`} data-testid="run-change-link">
                {run.change.externalId} · {run.change.title}
              </Link>
              <span aria-hidden> · </span>
              {run.change.repository.name}
              <span aria-hidden> · </span>
              revision {run.revision.number} <span className="mono">{run.revision.headRev.slice(0, 10)}</span>
            </div>
            <div className="muted small">
              {triggerLabel(run.trigger).toLowerCase()} run · {policyLabel(run.policy)} policy{run.model ? ` · ${run.model}` : ''}
              {run.requestedBy ? ` · requested by ${run.requestedBy}` : ''}
              {run.attempt > 1 ? ` · attempt ${run.attempt} of ${run.maxAttempts}` : ''}
              <span aria-hidden> · </span>
              <span className={`run-connection run-connection-${connection}`} data-testid="run-connection" data-state={connection}>
                {CONNECTION_TEXT[connection]}
              </span>
            </div>
          </div>
          <div className="run-header-actions">
            {fixId && (
              <Link
                className="btn btn-primary"
                href={`/changes/${encodeURIComponent(run.change.id)}#fix-${encodeURIComponent(fixId)}`}
                data-testid="run-fix-link"
              >
                View the fix
              </Link>
            )}
            {canCancel && !finished && (
              <button
                type="button"
                className="btn btn-danger"
                data-testid="run-cancel"
                disabled={cancel.isPending || cancelRequested}
                onClick={() => cancel.mutate()}
              >
                {cancelRequested ? 'Cancelling…' : cancel.isPending ? 'Cancelling…' : 'Cancel run'}
              </button>
            )}
          </div>
        </div>
        {cancel.isError && <div className="alert alert-error">{cancel.error.message}</div>}
        {finished && exitReason && (
          <div className={`alert ${status === 'FIXED' ? 'alert-ok' : 'alert-info'} run-page-exit`} data-testid="run-exit">
            <strong>{exitReasonLabel(exitReason)}</strong>
            {exitDetail ? `: ${exitDetail}` : ''}
          </div>
        )}
        <PhaseBar views={views} estimate={run.estimate} now={now} />
        <div className="run-progress-row">
          <Eta
            status={status}
            progress={progress}
            estimate={run.estimate}
            now={now}
            repository={run.change.repository.name}
            startedAt={run.startedAt}
            finishedAt={run.finishedAt}
          />
          <div className="run-counters">
            <Counter testId="run-counter-toolcalls" label="tool calls" value={String(counters.toolCalls)} />
            <Counter
              testId="run-counter-tokens"
              label="tokens"
              value={formatTokens(counters.tokens)}
              title={`${counters.promptTokens.toLocaleString('en-US')} prompt + ${counters.completionTokens.toLocaleString('en-US')} completion`}
            />
            <Counter testId="run-counter-cost" label="cost" value={formatCost(counters.costUsd)} title={formatCostExact(counters.costUsd)} />
          </div>
        </div>
      </section>

      <div className="run-columns">
        <section className="card run-trajectory" aria-labelledby="run-trajectory-title">
          <div className="toolbar">
            <h2 className="card-title run-trajectory-title" id="run-trajectory-title">
              Trajectory
            </h2>
            <input
              className="input run-search"
              type="search"
              placeholder="Search thoughts, tool calls, output…"
              aria-label="Search the trajectory"
              data-testid="run-search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
            <span className="muted small" data-testid="run-event-count">
              {deferredQuery.trim() ? `${shown.length} of ${events.length} steps` : `${events.length} steps`}
            </span>
          </div>
          <div className="run-event-scroll" ref={listRef} onScroll={onScroll} tabIndex={0} role="region" aria-label="Trajectory">
            {events.length === 0 && (
              <div className="empty" data-testid="run-waiting">
                {status === 'QUEUED' ? 'Waiting for a worker to pick up the run…' : 'Waiting for the first step…'}
              </div>
            )}
            {events.length > 0 && shown.length === 0 && <div className="empty">No step matches “{deferredQuery}”.</div>}
            <ol className="run-events">
              {shown.map((e) => (
                <EventItem key={e.seq} event={e} searching={deferredQuery.trim() !== ''} />
              ))}
            </ol>
          </div>
          {!follow && !finished && (
            <button
              type="button"
              className="btn btn-small run-follow"
              onClick={() => {
                setFollow(true);
                listRef.current?.scrollTo({ top: listRef.current.scrollHeight });
              }}
            >
              Follow live ↓
            </button>
          )}
        </section>
        <aside className="run-side">
          <Gates events={events} />
          <LatestSuspects events={events} />
          <Candidates events={events} />
        </aside>
      </div>
    </div>
  );
}
