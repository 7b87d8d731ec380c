// Which of a change's fixes the change page puts in front (newest first in
// the list it is given): the fix that was applied, or is being applied; else
// the one READY fix; else the newest, shown for what it is (rejected,
// dropped, stale). A dropped or superseded fix is never offered to apply.

/** The drop reason of a READY fix a newer run's READY fix replaced. */
export const SUPERSEDED = 'superseded';

export interface ChoosableFix {
  id: string;
  status: 'READY' | 'APPLYING' | 'DROPPED' | 'APPLIED' | 'REJECTED' | 'STALE';
}

export function primaryFix<F extends ChoosableFix>(fixes: readonly F[]): F | null {
  return fixes.find((f) => f.status === 'APPLIED' || f.status === 'APPLYING') ?? fixes.find((f) => f.status === 'READY') ?? fixes[0] ?? null;
}

/** The card's title for a fix in front. */
export function fixTitle(status: ChoosableFix['status']): string {
  switch (status) {
    case 'READY':
      return 'Proposed fix';
    case 'APPLYING':
      return 'Fix being applied';
    case 'APPLIED':
      return 'Applied fix';
    case 'REJECTED':
      return 'Rejected fix';
    case 'DROPPED':
      return 'Dropped fix';
    case 'STALE':
      return 'Stale fix';
  }
}

/** How a fix reads in the change's list of fixes: its status, and why it was dropped or went stale. */
export function fixHistoryLabel(fix: ChoosableFix & { dropReason: string | null }): string {
  const status = fix.status.toLowerCase();
  if (fix.status === 'STALE' && fix.dropReason === 'superseded') return 'superseded by a newer fix';
  if (fix.status === 'DROPPED' && fix.dropReason?.startsWith('revalidation of ')) return 'dropped: the re-validation of an edited fix';
  return fix.dropReason && (fix.status === 'DROPPED' || fix.status === 'STALE') ? `${status}: ${fix.dropReason}` : status;
}
