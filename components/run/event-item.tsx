'use client';

import { memo, useState, type ReactNode } from 'react';
import { proofLabel, type Diagnostic, type PublicRunEvent, type RunEventType, type RunEventView } from '@/common/run-events';
import { formatCost, formatCostExact, formatDuration, formatTokens } from '@/common/format';
import { PHASE_TEXT, prettyJson } from './format';
import { RUN_STATUS_LABELS, exitReasonLabel, humaniseCode, policyLabel, triggerLabel } from '@/common/labels';

// One step of the trajectory. Every type of the run-event contract has its
// own view (EVENT_VIEWS must name them all, or this does not compile); a type
// the contract does not know falls back to its JSON. Payloads are read
// leniently, so any field may be missing. Text from the repository (logs,
// test output, file contents) is only ever rendered as text.

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

const COLLAPSE_LINES = 12;
const COLLAPSE_CHARS = 1_500;

/** Long output collapsed to its first lines, expandable; opened while a search is active. */
export function CollapsibleText({ text, open: forceOpen = false, className = '' }: { text: string; open?: boolean; className?: string }) {
  const [open, setOpen] = useState(false);
  const lines = text.split('\n');
  const long = lines.length > COLLAPSE_LINES || text.length > COLLAPSE_CHARS;
  if (!long) return <pre className={`run-pre ${className}`}>{text}</pre>;
  const expanded = open || forceOpen;
  const shown = expanded ? text : lines.slice(0, COLLAPSE_LINES).join('\n').slice(0, COLLAPSE_CHARS);
  return (
    <div>
      <pre className={`run-pre ${className}`} data-collapsed={expanded ? 'false' : 'true'}>
        {shown}
        {!expanded && '\n…'}
      </pre>
      <button type="button" className="run-link-button small" onClick={() => setOpen(!open)} data-testid="run-event-toggle">
        {expanded ? 'Show less' : `Show all (${lines.length} lines, ${text.length.toLocaleString('en-US')} characters)`}
      </button>
    </div>
  );
}

function Verdict({ passed }: { passed: boolean }) {
  return <span className={`run-verdict ${passed ? 'run-verdict-pass' : 'run-verdict-fail'}`}>{passed ? 'PASS' : 'FAIL'}</span>;
}

function Diagnostics({ items = [] }: { items?: Diagnostic[] }) {
  if (items.length === 0) return null;
  return (
    <ul className="run-diagnostics">
      {items.slice(0, 20).map((d, i) => (
        <li key={i}>
          <span className="run-diag-kind">{str(d.kind)}</span>
          {d.file && (
            <span className="mono">
              {' '}
              {d.file}
              {d.line ? `:${d.line}` : ''}
            </span>
          )}
          <CollapsibleText text={str(d.message)} className="run-pre-inline" />
        </li>
      ))}
      {items.length > 20 && <li className="muted small">… {items.length - 20} more</li>}
    </ul>
  );
}

function TestList({ tests = [] }: { tests?: RunEventView<'gate'>['tests'] }) {
  if (tests.length === 0) return null;
  return (
    <ul className="run-tests">
      {tests.slice(0, 30).map((t, i) => (
        <li key={`${t.id}-${i}`}>
          <span className={`run-test-status run-test-${str(t.status)}`}>{str(t.status)}</span> <span className="mono">{str(t.id)}</span>
          {t.message && <div className="muted small run-test-message">{str(t.message).slice(0, 400)}</div>}
        </li>
      ))}
      {tests.length > 30 && <li className="muted small">… {tests.length - 30} more</li>}
    </ul>
  );
}

/**
 * The base check is informational: "passed" means the target tests fail on
 * the base revision too (the change did not cause the failure), which is not
 * good news, and "failed" (they pass on the base) is the normal case.
 */
function BaseVerdict({ failsOnBase, absent }: { failsOnBase: boolean; absent: boolean }) {
  return <span className="run-verdict run-verdict-info">{absent ? 'NOT AT BASE' : failsOnBase ? 'FAILS ON BASE TOO' : 'PASSES ON BASE'}</span>;
}

/** Every target missing from the report: a test the change adds has no outcome at the base. */
function targetsAbsent(p: RunEventView<'gate'>): boolean {
  return typeof p.notRun === 'number' && p.notRun > 0 && p.notRun >= (p.tests?.length ?? 0);
}

function ProofEvent({ p }: { p: RunEventView<'proof'> }) {
  const proven = p.status === 'proven';
  return (
    <div className={`run-gate ${proven ? 'run-gate-pass' : 'run-gate-unproven'}`} data-testid="run-proof" data-status={str(p.status)}>
      <div className="row">
        <span className={`run-verdict ${proven ? 'run-verdict-pass' : 'run-verdict-unproven'}`}>
          {proofLabel({ status: proven ? 'proven' : 'unproven', ...(p.reason ? { reason: p.reason } : {}) })?.toUpperCase()}
        </span>
        <strong className="run-gate-name">Proof</strong>
        {p.withFix && p.withoutFix && (
          <span className="muted small">
            with the fix {p.withFix.passed}/{p.withFix.runs} passed · without it {p.withoutFix.failed}/{p.withoutFix.runs} failed
            {p.order === 'shuffled' ? ' · shuffled' : ' · plain repeats'}
          </span>
        )}
      </div>
      {p.detail !== undefined && <div className="run-gate-detail">{str(p.detail)}</div>}
    </div>
  );
}

function GateEvent({ p }: { p: RunEventView<'gate'> }) {
  const passed = p.passed === true;
  const base = p.gate === 'base';
  return (
    <div className={`run-gate ${base ? '' : passed ? 'run-gate-pass' : 'run-gate-fail'}`}>
      <div className="row">
        {base ? <BaseVerdict failsOnBase={passed} absent={targetsAbsent(p)} /> : <Verdict passed={passed} />}
        <strong className="run-gate-name">{base ? 'BASE check' : `${str(p.gate).toUpperCase()} gate`}</strong>
        {typeof p.durationMs === 'number' && <span className="muted small">{formatDuration(p.durationMs)}</span>}
      </div>
      {p.detail !== undefined && <div className="run-gate-detail">{str(p.detail)}</div>}
      <Diagnostics items={p.diagnostics} />
      <TestList tests={p.tests} />
    </div>
  );
}

function SuspectsEvent({ p }: { p: RunEventView<'suspects'> }) {
  const suspects = p.suspects ?? [];
  if (suspects.length === 0) return <div className="muted">No suspects: nothing in the evidence points into the code.</div>;
  return (
    <ol className="run-suspects" data-testid="run-suspects">
      {suspects.map((s, i) => (
        <li key={i} className="run-suspect">
          <div className="row">
            <span className="mono run-suspect-where">
              {str(s.file)}:{s.startLine}
              {s.endLine && s.endLine !== s.startLine ? `–${s.endLine}` : ''}
            </span>
            <span className="mono">{str(s.symbol)}</span>
            {s.kind && <span className="badge">{humaniseCode(str(s.kind))}</span>}
            {typeof s.score === 'number' && <span className="muted small">score {s.score.toFixed(2)}</span>}
          </div>
          <ul className="run-reasons">
            {s.reasons.map((r, j) => (
              <li key={j}>{str(r)}</li>
            ))}
          </ul>
        </li>
      ))}
    </ol>
  );
}

function EvidenceEvent({ p, open }: { p: RunEventView<'evidence'>; open: boolean }) {
  const failing = p.failingTests ?? [];
  const pairs = p.expectedActual ?? [];
  return (
    <div className="stack run-evidence">
      <div>{str(p.summary)}</div>
      {failing.length > 0 && (
        <ul className="run-tests">
          {failing.slice(0, 20).map((t, i) => (
            <li key={i}>
              <span className="mono">{str(t.name || t.id)}</span>
              {t.message && <CollapsibleText text={str(t.message)} open={open} className="run-pre-inline" />}
            </li>
          ))}
        </ul>
      )}
      {pairs.length > 0 && (
        <table className="run-expected">
          <thead>
            <tr>
              <th>test</th>
              <th>expected</th>
              <th>actual</th>
            </tr>
          </thead>
          <tbody>
            {pairs.slice(0, 10).map((pair, i) => (
              <tr key={i}>
                <td className="mono small">{str(pair.testId)}</td>
                <td className="mono run-expected-value">{str(pair.expected)}</td>
                <td className="mono run-actual-value">{str(pair.actual)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const CANDIDATE_OUTCOME: Record<string, { label: string; pass: boolean }> = {
  green: { label: 'target tests pass', pass: true },
  compile_failed: { label: 'rejected by the compile gate', pass: false },
  tests_failed: { label: 'target tests still fail', pass: false },
};

function CandidateEvent({ p }: { p: RunEventView<'candidate'> }) {
  const outcome = CANDIDATE_OUTCOME[str(p.outcome)];
  return (
    <div className="stack">
      <div className="row">
        {outcome && <Verdict passed={outcome.pass} />}
        <strong>
          Candidate {str(p.rank)}
          {p.template ? ` · ${str(p.template)}` : ''}
        </strong>
        <span className="mono">
          {str(p.file)}
          {p.line ? `:${str(p.line)}` : ''}
        </span>
        {p.symbol ? <span className="mono muted">{str(p.symbol)}</span> : null}
      </div>
      {p.description ? <div>{str(p.description)}</div> : null}
      {outcome && <div className={`small ${outcome.pass ? 'run-text-pass' : 'run-text-fail'}`}>{outcome.label}</div>}
      {p.detail ? <div className="small">{str(p.detail)}</div> : null}
      <Diagnostics items={p.diagnostics} />
      {p.failing && p.failing.length > 0 && <div className="small mono run-text-fail">still failing: {p.failing.join(', ')}</div>}
    </div>
  );
}

function ToolCallEvent({ p }: { p: RunEventView<'tool_call'> }) {
  const args = p.arguments ?? p.args;
  return (
    <div className="stack">
      <div className="row">
        <span className="run-tool-name mono">{str(p.name ?? p.tool)}</span>
        {typeof p.index === 'number' && <span className="muted small">call {p.index + 1}</span>}
      </div>
      {args !== undefined && <CollapsibleText text={prettyJson(args)} className="run-args" />}
    </div>
  );
}

function ObservationEvent({ p, open }: { p: RunEventView<'observation'>; open: boolean }) {
  const verdict = p.verdict ?? null;
  return (
    <div className="stack">
      <div className="row">
        {p.name ? <span className="mono muted">{str(p.name)}</span> : null}
        {p.ok === false && <span className="run-verdict run-verdict-fail">{p.malformed ? 'MALFORMED' : 'ERROR'}</span>}
        {typeof p.durationMs === 'number' && <span className="muted small">{formatDuration(p.durationMs)}</span>}
        {verdict && (
          <>
            <Verdict passed={verdict.passed === true} />
            <span className="small">{str(verdict.gate)} gate</span>
          </>
        )}
      </div>
      <CollapsibleText text={str(p.text ?? p.observation)} open={open} />
      {verdict && <Diagnostics items={verdict.diagnostics} />}
    </div>
  );
}

function UsageEvent({ p }: { p: RunEventView<'usage'> }) {
  const prompt = p.promptTokens ?? 0;
  const completion = p.completionTokens ?? 0;
  return (
    <div className="row small">
      {p.model ? <span className="mono">{str(p.model)}</span> : null}
      <span>
        {formatTokens(prompt)} prompt + {formatTokens(completion)} completion tokens{p.source === 'estimated' ? ' (estimated)' : ''}
      </span>
      {typeof p.costUsd === 'number' && p.priced !== false && <span title={formatCostExact(p.costUsd)}>{formatCost(p.costUsd)}</span>}
      {(p.costUsd === null || p.priced === false) && <span title={formatCostExact(null)}>cost unknown</span>}
      {typeof p.durationMs === 'number' && <span className="muted">{formatDuration(p.durationMs)}</span>}
    </div>
  );
}

const STATUS_EVENT_TEXT: Record<string, string> = {
  queued: 'Queued',
  running: 'A worker started the run',
  cancel_requested: 'Cancel requested',
  requeued: 'Handed back to the queue',
};

function StatusEvent({ p }: { p: RunEventView<'status'> }) {
  const status = str(p.status);
  const bits: string[] = [];
  if (p.trigger) bits.push(triggerLabel(str(p.trigger)).toLowerCase());
  if (p.policy) bits.push(`${policyLabel(str(p.policy))} policy`);
  if (typeof p.attempt === 'number') bits.push(`attempt ${p.attempt}${typeof p.maxAttempts === 'number' ? ` of ${p.maxAttempts}` : ''}`);
  if (p.takeover) bits.push('taken over from a lost worker');
  // a code (worker_lost) in words; a sentence as it is
  if (p.reason) bits.push(/^[a-z]+(_[a-z]+)+$/.test(str(p.reason)) ? exitReasonLabel(str(p.reason)).toLowerCase() : str(p.reason));
  return (
    <div>
      {STATUS_EVENT_TEXT[status] ?? status}
      {bits.length > 0 && <span className="muted"> · {bits.join(' · ')}</span>}
    </div>
  );
}

function FinalEvent({ p }: { p: RunEventView<'final'> }) {
  const status = str(p.runStatus ?? p.status);
  const good = /^(fixed|FIXED)$/.test(status);
  return (
    <div className={`run-final ${good ? 'run-final-good' : 'run-final-bad'}`}>
      <strong>{(RUN_STATUS_LABELS[status.toUpperCase() as keyof typeof RUN_STATUS_LABELS] ?? humaniseCode(status)).toLowerCase()}</strong>
      {p.exitReason ? <span> · {exitReasonLabel(str(p.exitReason))}</span> : null}
      {p.detail ? <div className="small">{str(p.detail)}</div> : null}
      {p.files && p.files.length > 0 && <div className="small mono">files: {p.files.join(', ')}</div>}
    </div>
  );
}

function LogEvent({ p, open }: { p: RunEventView<'log'>; open: boolean }) {
  const text = str(p.text ?? p.message);
  const extra = Object.entries(p).filter(([k]) => !['text', 'message', 'phase'].includes(k));
  return (
    <div className="run-log">
      <CollapsibleText text={text} open={open} className="run-pre-plain" />
      {extra.length > 0 && (
        <div className="muted small mono run-log-extra">
          {extra
            .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
            .join('  ')
            .slice(0, 400)}
        </div>
      )}
    </div>
  );
}

function PhaseEvent({ p }: { p: RunEventView<'phase'> }) {
  const name = PHASE_TEXT[str(p.phase)] ?? str(p.phase);
  return (
    <div className="run-phase-line">
      {p.status === 'finished' ? (
        <>
          {name} finished{typeof p.durationMs === 'number' ? ` in ${formatDuration(p.durationMs)}` : ''}
        </>
      ) : (
        <>{name} started</>
      )}
    </div>
  );
}

interface EventView<K extends RunEventType> {
  label: string;
  Body: (props: { p: RunEventView<K>; open: boolean }) => ReactNode;
  /** pass/fail for the row's colour, where the event is a verdict */
  verdict?: (p: RunEventView<K>) => 'pass' | 'fail' | undefined;
}

/** The view of every event type: the run page's half of the contract. */
export const EVENT_VIEWS: { [K in RunEventType]: EventView<K> } = {
  phase: { label: 'phase', Body: PhaseEvent },
  thought: { label: 'thought', Body: ({ p, open }) => <CollapsibleText text={str(p.text)} open={open} className="run-thought" /> },
  tool_call: { label: 'tool call', Body: ToolCallEvent },
  observation: { label: 'observation', Body: ObservationEvent },
  // the base check is informational, neither pass nor fail
  gate: { label: 'gate', Body: GateEvent, verdict: (p) => (p.gate === 'base' ? undefined : p.passed === true ? 'pass' : 'fail') },
  suspects: { label: 'suspects', Body: SuspectsEvent },
  // an unproven fix is never a green row
  proof: { label: 'proof', Body: ProofEvent, verdict: (p) => (p.status === 'proven' ? 'pass' : 'fail') },
  evidence: { label: 'evidence', Body: EvidenceEvent },
  candidate: { label: 'candidate', Body: CandidateEvent, verdict: (p) => (p.outcome === 'green' ? 'pass' : 'fail') },
  usage: { label: 'model usage', Body: UsageEvent },
  log: { label: 'log', Body: LogEvent },
  status: { label: 'status', Body: StatusEvent },
  final: { label: 'result', Body: FinalEvent },
};

/**
 * What a row shows for one event. A type the contract does not know (a newer
 * worker's) shows its JSON under its own name.
 */
export function eventView(event: PublicRunEvent, open: boolean): { name: string; label: string; body: ReactNode; verdict: 'pass' | 'fail' | undefined } {
  if (event.type === 'unknown') {
    return { name: event.name, label: event.name, body: <CollapsibleText text={prettyJson(event.payload)} open={open} />, verdict: undefined };
  }
  // TypeScript cannot pair EVENT_VIEWS[event.type] with event.payload by itself
  const view = EVENT_VIEWS[event.type] as unknown as EventView<RunEventType>;
  const p = event.payload as RunEventView<RunEventType>;
  return { name: event.type, label: view.label, body: <view.Body p={p} open={open} />, verdict: view.verdict?.(p) };
}

/** One row of the trajectory. Memoised: a new event must not re-render the ones before it. */
export const EventItem = memo(function EventItem({ event, searching }: { event: PublicRunEvent; searching: boolean }) {
  const { name, label, body, verdict } = eventView(event, searching);
  return (
    <li
      className={`run-event run-event-${name}${verdict ? ` run-event-${verdict}` : ''}`}
      data-testid="run-event"
      data-type={name}
      data-seq={event.seq}
      {...(verdict ? { 'data-verdict': verdict } : {})}
    >
      <div className="run-event-meta">
        <span className="run-event-type">{label}</span>
        <time className="muted small" dateTime={event.at} title={event.at} suppressHydrationWarning>
          {new Date(event.at).toLocaleTimeString('en-GB')}
        </time>
      </div>
      <div className="run-event-body">{body}</div>
    </li>
  );
});
