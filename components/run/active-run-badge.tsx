'use client';

import Link from 'next/link';
import { formatRemainingRange } from '@/common/run-estimate';
import type { ActiveRunInfo } from '@/lib/runs/queries';
import { PHASE_TEXT } from './format';
import './run.css';

/** The triage list's status for a change being repaired: "Running · Patch", "~2–5 min left", linking to the run. */
export function ActiveRunBadge({ run }: { run: ActiveRunInfo }) {
  const queued = run.status === 'QUEUED';
  const range = formatRemainingRange({ lowMs: run.remainingLowMs, highMs: run.remainingHighMs });
  const eta = queued ? `${range.replace(' left', '')} once started` : range;
  return (
    <Link
      href={`/runs/${encodeURIComponent(run.id)}`}
      className="run-active run-active-link"
      data-testid="triage-active-run"
      data-run-status={run.status}
      title={run.basis === 'history' ? 'Estimated from past runs of this repository' : 'Default estimate: no finished runs of this repository yet'}
    >
      <span className={`badge badge-${run.status.toLowerCase()}`}>
        {queued ? 'Queued' : 'Running'}
        {run.phase ? ` · ${PHASE_TEXT[run.phase] ?? run.phase}` : ''}
      </span>
      <span className="run-active-eta" data-testid="triage-run-eta">
        {eta}
      </span>
    </Link>
  );
}
