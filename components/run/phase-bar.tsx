'use client';

import { useEffect, useState } from 'react';
import { estimateRemaining, formatRemainingRange, type PhaseMedians, type RunProgress } from '@/common/run-estimate';
import type { PhaseView } from './derive';
import { formatDuration } from '@/common/format';
import { PHASE_TEXT } from './format';

const STATE_TEXT: Record<PhaseView['state'], string> = {
  done: 'done',
  current: 'in progress',
  pending: 'to do',
  skipped: 'not reached',
  stopped: 'stopped here',
};

/** Ticks every second while `active`, corrected for the server's clock. */
export function useNow({ active, clockOffsetMs }: { active: boolean; clockOffsetMs: number }): number {
  const [now, setNow] = useState(() => Date.now() + clockOffsetMs);
  useEffect(() => {
    if (!active) return;
    setNow(Date.now() + clockOffsetMs);
    const timer = setInterval(() => setNow(Date.now() + clockOffsetMs), 1_000);
    return () => clearInterval(timer);
  }, [active, clockOffsetMs]);
  return now;
}

/** Setup → RED → Localise → Patch → Verify → Summary; each segment as wide as its median duration. */
export function PhaseBar({ views, estimate, now }: { views: PhaseView[]; estimate: PhaseMedians; now: number }) {
  const total = Object.values(estimate.medians).reduce((a, b) => a + b, 0) || 1;
  return (
    <ol className="run-phase-bar" data-testid="run-phase-bar" aria-label="Phases">
      {views.map((v) => {
        // the phase's whole time so far, earlier visits included (the patch loop comes round)
        const elapsed = v.state === 'current' && v.startedAt ? (v.durationMs ?? 0) + Math.max(0, now - v.startedAt) : null;
        const share = Math.max(0.08, estimate.medians[v.phase] / total);
        const fill = elapsed !== null ? Math.min(0.95, elapsed / Math.max(1, estimate.medians[v.phase])) : v.state === 'done' ? 1 : 0;
        return (
          <li
            key={v.phase}
            className={`run-phase run-phase-${v.state}`}
            style={{ flexGrow: share }}
            data-testid={`run-phase-${v.phase}`}
            data-state={v.state}
            aria-current={v.state === 'current' ? 'step' : undefined}
            title={`${PHASE_TEXT[v.phase]}: ${STATE_TEXT[v.state]}; usually ${formatDuration(estimate.medians[v.phase])}`}
          >
            <div className="run-phase-track">
              <div className="run-phase-fill" style={{ width: `${Math.round(fill * 100)}%` }} />
            </div>
            <div className="run-phase-label">
              <span className="run-phase-name">{PHASE_TEXT[v.phase]}</span>
              <span className="run-phase-time muted small">
                {v.state === 'current' && elapsed !== null
                  ? formatDuration(elapsed)
                  : v.durationMs !== null && v.state !== 'pending'
                    ? formatDuration(v.durationMs)
                    : STATE_TEXT[v.state]}
              </span>
            </div>
          </li>
        );
      })}
    </ol>
  );
}

/** "~2–5 min left", with what the range is based on. */
export function Eta({
  status,
  progress,
  estimate,
  now,
  repository,
  startedAt,
  finishedAt,
}: {
  status: string;
  progress: RunProgress;
  estimate: PhaseMedians;
  now: number;
  repository: string;
  startedAt: string | null;
  finishedAt: string | null;
}) {
  if (status === 'QUEUED' || status === 'RUNNING') {
    const remaining = estimateRemaining({
      estimate,
      progress: status === 'QUEUED' ? { currentPhase: null, currentPhaseStartedAt: null, completedPhases: [] } : progress,
      now,
    });
    const scope = estimate.scope === 'policy' ? `${repository}, same policy` : repository;
    const basis =
      remaining.comparable > 0
        ? `from ${remaining.comparable} comparable run${remaining.comparable === 1 ? '' : 's'} of ${scope}${remaining.sure ? '' : ', widened: few runs'}`
        : estimate.basis === 'history'
          ? remaining.overdue
            ? `longer than the recent runs of ${scope}`
            : `few comparable runs of ${scope}: a wide range`
          : `default estimate: no finished runs of ${repository} yet`;
    const text = formatRemainingRange(remaining);
    return (
      <div
        className="run-eta"
        data-testid="run-eta"
        data-remaining-ms={remaining.midMs}
        data-remaining-low-ms={remaining.lowMs}
        data-remaining-high-ms={remaining.highMs}
        data-basis={estimate.basis}
      >
        <span className="run-eta-value">{status === 'QUEUED' ? `Waiting for a worker · ${text.replace(' left', '')} once started` : text}</span>
        <span className="muted small"> · {basis}</span>
      </div>
    );
  }
  const took = startedAt && finishedAt ? Date.parse(finishedAt) - Date.parse(startedAt) : null;
  return (
    <div className="run-eta" data-testid="run-eta" data-remaining-ms={0} data-basis={estimate.basis}>
      <span className="run-eta-value">{took !== null ? `Finished in ${formatDuration(took)}` : 'Finished'}</span>
    </div>
  );
}
