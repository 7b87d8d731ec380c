import { getDb } from '../db';
import { AppError } from '../errors';
import { readFixEvidence, type FixEvidenceView } from './evidence';
import { summaryToText } from './text';

// A fix as a reviewer takes it away: the patch file ("Download patch", `git
// apply`) and the text view `flowfix fix show` prints.

export interface FixPatch {
  diff: string;
  /** READY, APPLIED, ... so a client can refuse before it applies anything */
  status: string;
  /** e.g. flowfix-PR-12-ck3x9.patch: safe in a Content-Disposition header */
  filename: string;
}

function safeFilePart(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'change'
  );
}

export async function getFixPatch({ fixId }: { fixId: string }): Promise<FixPatch> {
  const fix = await getDb().fix.findUnique({ where: { id: fixId }, select: { id: true, diff: true, status: true, change: { select: { externalId: true } } } });
  if (!fix) throw new AppError('not_found', 'Fix not found');
  return {
    status: fix.status,
    diff: fix.diff.endsWith('\n') ? fix.diff : `${fix.diff}\n`,
    filename: `flowfix-${safeFilePart(fix.change.externalId)}-${safeFilePart(fix.id)}.patch`,
  };
}

export interface FixForReview {
  id: string;
  status: string;
  runId: string;
  change: { id: string; externalId: string; title: string; branch: string; headRev: string; repository: string };
  /** the root-cause summary as plain text (the HTML is for the dashboard) */
  summary: string;
  evidence: FixEvidenceView;
  files: string[];
  diff: string;
  appliedCommit: string | null;
}

export async function getFixForReview({ fixId }: { fixId: string }): Promise<FixForReview> {
  const fix = await getDb().fix.findUnique({
    where: { id: fixId },
    select: {
      id: true,
      status: true,
      runId: true,
      diff: true,
      files: true,
      summaryHtml: true,
      evidence: true,
      appliedCommit: true,
      revision: { select: { headRev: true, branch: true } },
      change: { select: { id: true, externalId: true, title: true, repository: { select: { name: true } } } },
    },
  });
  if (!fix) throw new AppError('not_found', 'Fix not found');
  return {
    id: fix.id,
    status: fix.status,
    runId: fix.runId,
    change: {
      id: fix.change.id,
      externalId: fix.change.externalId,
      title: fix.change.title,
      branch: fix.revision.branch,
      headRev: fix.revision.headRev,
      repository: fix.change.repository.name,
    },
    summary: summaryToText(fix.summaryHtml),
    evidence: readFixEvidence(fix.evidence),
    files: fix.files,
    diff: fix.diff,
    appliedCommit: fix.appliedCommit,
  };
}
