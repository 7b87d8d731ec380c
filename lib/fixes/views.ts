import type { FixStatus, Prisma } from '../generated/prisma/client';
import { sanitizeHtml } from '../html/sanitize';
import { parsePatch, patchPath } from '../diff/apply';
import { ApplyClaimSchema } from './schemas';
import type { DiffStat } from '../../common/diffstat';
import { provenChecks, readFixEvidence, type FixEvidenceView } from './evidence';
import { VERDICT_KINDS, type VerdictKind } from '../../common/decisions';

// Fixes as the dashboard's pages see them (the change page, the review queue,
// the diff viewer): the shapes and the pure functions that make them from
// rows. The queries beside this module read the rows.

export type FixStatusName = `${FixStatus}`;

export interface FixView {
  id: string;
  runId: string;
  changeId: string;
  status: FixStatusName;
  dropReason: string | null;
  /** sanitised again on the way out: written by a model, so never trusted even from our own database */
  summaryHtml: string;
  /** the files, stat and lines of the diff the fix stands for: the reviewer's edit once that was committed (see `edited`) */
  files: string[];
  diffStat: DiffStat;
  /** the changed lines, shown beside Accept */
  changes: ChangedLines;
  /** the reviewer's edit is what was committed (or is being): the diff above is the edit, re-validated by this run */
  edited: { runId: string | null } | null;
  /** the latest re-validation of a reviewer's edit of this fix (lib/fixes/edit-accept.ts): running, or why it refused the edit */
  revalidation: Revalidation | null;
  evidence: FixEvidenceView;
  appliedCommit: string | null;
  appliedAt: string | null;
  appliedBy: string | null;
  createdAt: string;
  revisionNumber: number;
  /** the fix was made on the change's latest revision */
  onLatestRevision: boolean;
  isHistory: boolean;
  run: {
    id: string;
    policy: string;
    model: string | null;
    trigger: string;
    toolCalls: number;
    promptTokens: number;
    completionTokens: number;
    costUsd: number | null;
    durationMs: number | null;
  };
  /** the decision that closed the fix (accept, edit-accept, reject), if any */
  decision: {
    kind: VerdictKind;
    by: string;
    at: string;
    surface: string;
    reason: string | null;
    reasonText: string | null;
  } | null;
  previews: number;
}

export interface Revalidation {
  runId: string;
  status: string;
  /** why the run refused the edit (the tests that failed, with their messages); null while it runs or when it passed */
  message: string | null;
  createdAt: string;
}

/**
 * A re-validation's own fix row is the reviewer's edit of another fix, kept
 * for the record and the metrics, not a fix of its own: a change's list of
 * fixes leaves it out (the edited fix shows the edit once it is committed).
 */
export const OWN_FIXES = { run: { trigger: { not: 'REVALIDATE' } } } satisfies Prisma.FixWhereInput;

/**
 * The reviewer's edited diff when that is what was committed (an EDIT_ACCEPT
 * decision) or is being (an EDIT_ACCEPT claim), else null: the fix's own
 * diff is then what the branch has.
 */
export function committedEditOf(row: {
  status: FixStatus | FixStatusName;
  applyClaim: Prisma.JsonValue | null;
  decisions: ReadonlyArray<{ kind: string; editedDiff: string | null; runId: string | null }>;
}): { diff: string; runId: string | null } | null {
  if (row.status === 'APPLIED') {
    const d = row.decisions.find((x) => x.kind === 'EDIT_ACCEPT' || x.kind === 'ACCEPT');
    return d?.kind === 'EDIT_ACCEPT' && d.editedDiff ? { diff: d.editedDiff, runId: d.runId } : null;
  }
  if (row.status === 'APPLYING') {
    const claim = ApplyClaimSchema.safeParse(row.applyClaim);
    return claim.success && claim.data.kind === 'EDIT_ACCEPT' && claim.data.editedDiff
      ? { diff: claim.data.editedDiff, runId: claim.data.runId ?? null }
      : null;
  }
  return null;
}

export const FIX_VIEW_INCLUDE = {
  run: {
    select: {
      id: true,
      policy: true,
      model: true,
      trigger: true,
      toolCalls: true,
      promptTokens: true,
      completionTokens: true,
      costUsd: true,
      startedAt: true,
      finishedAt: true,
    },
  },
  revision: { select: { number: true, supersededAt: true } },
  change: { select: { origin: true, revisionNumber: true } },
  appliedBy: { select: { name: true } },
  decisions: {
    where: { kind: { in: [...VERDICT_KINDS] } },
    orderBy: { createdAt: 'desc' },
    take: 1,
    include: { user: { select: { name: true } } },
  },
  _count: { select: { decisions: { where: { kind: 'PREVIEW' } } } },
} satisfies Prisma.FixInclude;

type FixRow = Prisma.FixGetPayload<{ include: typeof FIX_VIEW_INCLUDE }>;

export function diffStatOf(diff: string): DiffStat {
  let additions = 0;
  let deletions = 0;
  const patches = parsePatch(diff);
  for (const p of patches)
    for (const h of p.hunks)
      for (const l of h.lines) {
        if (l.type === '+') additions++;
        else if (l.type === '-') deletions++;
      }
  return { files: patches.length, additions, deletions };
}

/** The lines a fix changes, as its cards show them before Accept (the whole files are the diff viewer's). */
export interface ChangedLines {
  files: Array<{
    path: string;
    status: 'added' | 'deleted' | 'renamed' | 'modified';
    binary: boolean;
    hunks: Array<{
      header: string;
      lines: Array<{ type: ' ' | '+' | '-'; text: string; oldLine: number | null; newLine: number | null }>;
    }>;
  }>;
  /** hunk lines past the cap, not listed */
  omittedLines: number;
}

/** The diff's hunks, numbered on both sides, cut after `maxLines` hunk lines. */
export function changedLinesOf(diff: string, maxLines = 200): ChangedLines {
  let left = maxLines;
  let omittedLines = 0;
  const files: ChangedLines['files'] = [];
  for (const p of parsePatch(diff)) {
    const hunks: ChangedLines['files'][number]['hunks'] = [];
    for (const h of p.hunks) {
      let oldLine = h.oldStart;
      let newLine = h.newStart;
      const lines: ChangedLines['files'][number]['hunks'][number]['lines'] = [];
      for (const l of h.lines) {
        const numbered = {
          type: l.type,
          text: l.text,
          oldLine: l.type === '+' ? null : oldLine++,
          newLine: l.type === '-' ? null : newLine++,
        };
        if (left > 0) {
          lines.push(numbered);
          left--;
        } else omittedLines++;
      }
      if (lines.length > 0) hunks.push({ header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, lines });
    }
    files.push({ path: p.newPath ?? p.oldPath ?? '(unnamed)', status: p.status, binary: p.binary, hunks });
  }
  return { files, omittedLines };
}

export function toFixView(row: FixRow, revalidation: Revalidation | null = null): FixView {
  const decision = row.decisions[0];
  const edit = committedEditOf(row);
  const diff = edit?.diff ?? row.diff;
  return {
    id: row.id,
    runId: row.runId,
    changeId: row.changeId,
    status: row.status,
    dropReason: row.dropReason,
    summaryHtml: sanitizeHtml(row.summaryHtml),
    files: edit ? parsePatch(diff).map(patchPath) : row.files,
    diffStat: diffStatOf(diff),
    changes: changedLinesOf(diff),
    edited: edit ? { runId: edit.runId } : null,
    revalidation,
    evidence: readFixEvidence(row.evidence),
    appliedCommit: row.appliedCommit,
    appliedAt: row.appliedAt?.toISOString() ?? null,
    appliedBy: row.appliedBy?.name ?? null,
    createdAt: row.createdAt.toISOString(),
    revisionNumber: row.revision.number,
    onLatestRevision: row.revision.supersededAt === null && row.revision.number === row.change.revisionNumber,
    isHistory: row.change.origin === 'DEMO_HISTORY',
    run: {
      id: row.run.id,
      policy: row.run.policy,
      model: row.run.model,
      trigger: row.run.trigger,
      toolCalls: row.run.toolCalls,
      promptTokens: row.run.promptTokens,
      completionTokens: row.run.completionTokens,
      costUsd: row.run.costUsd,
      durationMs: row.run.startedAt && row.run.finishedAt ? row.run.finishedAt.getTime() - row.run.startedAt.getTime() : null,
    },
    decision: decision
      ? {
          kind: decision.kind as VerdictKind,
          by: decision.user.name,
          at: decision.createdAt.toISOString(),
          surface: decision.surface,
          reason: decision.reason,
          reasonText: decision.reasonText,
        }
      : null,
    previews: row._count.decisions,
  };
}

// ───── the review queue ─────

export interface ReviewQueueItem {
  fixId: string;
  changeId: string;
  title: string;
  externalId: string;
  repository: string;
  author: string;
  authorKind: 'HUMAN' | 'BOT';
  branch: string;
  createdAt: string;
  files: string[];
  diffStat: FixView['diffStat'];
  /** the changed lines (the first of them), shown beside the queue's Accept */
  changes: ChangedLines;
  /** the root cause as plain text, short: the queue never renders model HTML */
  summaryText: string;
  /** checks passed, an unproven pass not counted (lib/fixes/evidence.ts provenChecks) */
  gatesPassed: number;
  gatesTotal: number;
  /** the proof when it is not "proven": the card says so, with the evidence */
  proof: { label: string; detail: string } | null;
  isHistory: boolean;
}

export interface ReviewQueuePage {
  items: ReviewQueueItem[];
  nextCursor: string | null;
}

/** Plain text of sanitised HTML, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  return sanitizeHtml(html)
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

export const REVIEW_QUEUE_INCLUDE = {
  change: {
    select: {
      title: true,
      externalId: true,
      author: true,
      authorKind: true,
      branch: true,
      origin: true,
      repository: { select: { name: true } },
    },
  },
} satisfies Prisma.FixInclude;

type ReviewQueueRow = Prisma.FixGetPayload<{ include: typeof REVIEW_QUEUE_INCLUDE }>;

/** hunk lines per queue card: enough for most fixes, the rest is one click away */
const QUEUE_CHANGED_LINES = 60;

export function toReviewQueueItem(row: ReviewQueueRow): ReviewQueueItem {
  const evidence = readFixEvidence(row.evidence);
  const text = htmlToText(row.summaryHtml);
  return {
    fixId: row.id,
    changeId: row.changeId,
    title: row.change.title,
    externalId: row.change.externalId,
    repository: row.change.repository.name,
    author: row.change.author,
    authorKind: row.change.authorKind,
    branch: row.change.branch,
    createdAt: row.createdAt.toISOString(),
    files: row.files,
    diffStat: diffStatOf(row.diff),
    changes: changedLinesOf(row.diff, QUEUE_CHANGED_LINES),
    summaryText: text.length > 280 ? `${text.slice(0, 279)}…` : text,
    gatesPassed: provenChecks(evidence).passed,
    gatesTotal: evidence.gates.length,
    proof: evidence.proof && evidence.proof.status !== 'proven' ? { label: evidence.proof.label, detail: evidence.proof.detail } : null,
    isHistory: row.change.origin === 'DEMO_HISTORY',
  };
}

// ───── the files of a fix, whole, for the diff viewer ─────

export interface FixFile {
  path: string;
  oldPath: string | null;
  status: 'added' | 'deleted' | 'renamed' | 'modified';
  language: string;
  original: string;
  modified: string;
  /**
   * true: both sides are the whole file (read at the fix's revision, patch
   * applied). false: only what the hunks show, because the original could not
   * be read or did not match; such a file cannot be edited.
   */
  complete: boolean;
  binary: boolean;
}
