'use client';

import { useEffect, useState } from 'react';
import { estimateRemainingMs, formatRemaining, type PhaseMedians, type RunProgress } from '@/lib/runs/estimate';
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
        const elapsed = v.state === 'current' && v.startedAt ? Math.max(0, now - v.startedAt) : null;
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

/** "~3 min left", with what the estimate is based on. */
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
  const basis =
    estimate.basis === 'history'
      ? `median of the last ${estimate.runs} finished run${estimate.runs === 1 ? '' : 's'} of ${repository}`
      : `default estimate: no finished runs of ${repository} yet`;
  if (status === 'QUEUED' || status === 'RUNNING') {
    const remaining = estimateRemainingMs({
      medians: estimate.medians,
      progress: status === 'QUEUED' ? { currentPhase: null, currentPhaseStartedAt: null, completedPhases: [] } : progress,
      now,
    });
    return (
      <div className="run-eta" data-testid="run-eta" data-remaining-ms={remaining} data-basis={estimate.basis}>
        <span className="run-eta-value">{status === 'QUEUED' ? `Waiting for a worker · ${formatRemaining(remaining).replace(' left', '')} once started` : formatRemaining(remaining)}</span>
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
