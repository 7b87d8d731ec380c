import 'server-only';
import { createHash } from 'node:crypto';
import { getDb } from '../db';
import { publicOrigin } from '../env';
import { readFixEvidence } from '../fixes/evidence';
import { summaryToText } from '../fixes/text';
import { inertDiff } from '../../common/text';
import { ChangeStatus, FixStatus, RunStatus } from '../generated/prisma/enums';
import { forkHandApplyMarkdown } from '../hosts/fork';
import { estimateRemaining, formatRemainingRange, progressFromPhaseEvents } from '../../common/run-estimate';
import { loadPhaseMedians } from '../runs/estimate';

// What the pull (merge) request shows of a change, decided from the
// database alone: the check's state (GitHub check run / GitLab commit
// status) and the one comment's text. Pure rendering lives here; calling the
// hosts is lib/code-review/sync.ts.

export type CheckState =
  | { status: 'queued' | 'in_progress'; title: string; summary: string }
  | { status: 'completed'; conclusion: 'success' | 'neutral' | 'skipped' | 'cancelled'; title: string; summary: string };

export interface ReviewState {
  changeId: string;
  headRev: string;
  check: CheckState;
  /** what the comment says, rendered by renderComment once the suggestions are known; null: no fix yet */
  comment: Omit<CommentInput, 'suggestionsPosted'> | null;
  detailsUrl: string;
}

const MARKER = (changeId: string) => `<!-- flowfix:change:${changeId} -->`;

export function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}

function fence(text: string): string {
  // a fence longer than any backtick run inside, so the diff cannot close it
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

export interface CommentInput {
  changeId: string;
  detailsUrl: string;
  fix: { id: string; status: FixStatus; diff: string; summary: string; appliedCommit: string | null };
  /** set when the diff was posted as suggested changes on the pull request's own diff */
  suggestionsPosted: boolean;
  rejectedBecause?: string | null;
  staleBecause?: string | null;
  /** flowfix may not push to the fork holding the branch: how to apply by hand (lib/hosts/fork.ts) */
  handApply?: string | null;
  /** the fix's proof when it is not "proven" (a flaky target): said above the root cause, with the evidence */
  unproven?: { label: string; detail: string } | null;
}

/** The one comment: root cause first, then the diff, then links; the state of the fix on top when it is no longer pending. */
export function renderComment(input: CommentInput): string {
  const { fix } = input;
  const lines: string[] = [MARKER(input.changeId), '### flowfix'];
  if (fix.status === FixStatus.APPLIED)
    lines.push(`**Applied** as ${fix.appliedCommit ? `\`${fix.appliedCommit.slice(0, 12)}\`` : 'a commit on this branch'}.`);
  if (fix.status === FixStatus.REJECTED) lines.push(`**Rejected**${input.rejectedBecause ? `: ${input.rejectedBecause}` : ''}. It will not be applied.`);
  if (fix.status === FixStatus.STALE)
    lines.push(`**Stale**${input.staleBecause ? `: ${input.staleBecause}` : ''}. This fix was made for an older head and can no longer be applied.`);
  const handApply = fix.status === FixStatus.READY ? (input.handApply ?? null) : null;
  if (handApply) lines.push(handApply);
  // a fix whose target also passes without it is not shown as proven anywhere
  if (input.unproven && fix.status !== FixStatus.APPLIED)
    lines.push(`⚠️ **${input.unproven.label[0]!.toUpperCase()}${input.unproven.label.slice(1)}**: ${input.unproven.detail}`);
  lines.push('', '**Root cause**', '', fix.summary || '(no summary)', '');
  if (input.suggestionsPosted && fix.status === FixStatus.READY && !handApply) {
    lines.push('The fix is posted as suggested changes on this pull request’s diff: commit them there, or apply it from flowfix.');
  } else if (fix.status === FixStatus.READY || fix.status === FixStatus.APPLIED) {
    const f = fence(fix.diff);
    lines.push('<details><summary>The fix (diff)</summary>', '', `${f}diff`, fix.diff.trimEnd(), f, '', '</details>');
  } else {
    const text = inertDiff(fix.diff);
    const f = fence(text);
    lines.push('<details><summary>Its changes, indented so that no tool applies it</summary>', '', `${f}text`, text, f, '', '</details>');
  }
  lines.push(
    '',
    handApply ? `[Preview in flowfix](${input.detailsUrl})` : `[Preview in flowfix](${input.detailsUrl}) · [Apply in flowfix](${input.detailsUrl})`,
  );
  return lines.join('\n');
}

/**
 * Why a pre-execution filter skipped the change, as the check says it: the
 * title names the reason, the summary says what would change it. A skipped
 * change gets this completed "skipped" check and nothing else: never
 * "in progress", never a comment.
 */
export function describeSkip(reason: string | null, thread: 'pull request' | 'merge request'): { title: string; summary: string } {
  const policy = (key: string) => `the repository's filter policy, \`pre.${key}\`, which an admin can change`;
  switch (reason) {
    case 'draft':
      return {
        title: `Skipped: draft ${thread}`,
        summary: `flowfix does not repair drafts (${policy('draft')}). Mark the ${thread} ready for review: if its last CI run failed, flowfix repairs that failure then; otherwise the next failure.`,
      };
    case 'bot_author':
      return { title: 'Skipped: the author is a bot', summary: `flowfix does not repair changes written by bots (${policy('botAuthor')}).` };
    case 'too_many_files_changed':
      return { title: 'Skipped: too many files changed', summary: `The change is larger than a repair run handles (${policy('maxFilesChanged')}).` };
    case 'too_many_failing_tests':
      return {
        title: 'Skipped: too many failing tests',
        summary: `So many tests failing usually means the infrastructure, not the change (${policy('maxFailingTests')}).`,
      };
    case 'known_flaky':
      return { title: 'Skipped: only known-flaky tests failed', summary: 'Every failing test is marked as known flaky for this repository.' };
    case 'unsupported_language':
      return { title: 'Skipped: unsupported language', summary: `flowfix does not repair this repository's language (${policy('supportedLanguages')}).` };
    case 'stale_revision':
      return { title: 'Skipped: a newer commit exists', summary: 'The failure is of an older head; the newer one is what counts.' };
    default:
      return { title: 'Skipped', summary: reason ? `A filter skipped this change (${reason}).` : 'A filter skipped this change.' };
  }
}

/** The state of the change's review surfaces now. */
export async function describeForReview(changeId: string): Promise<ReviewState | null> {
  const db = getDb();
  const change = await db.change.findUnique({
    where: { id: changeId },
    select: {
      id: true,
      headRev: true,
      branch: true,
      status: true,
      statusReason: true,
      repositoryId: true,
      forkNotWritable: true,
      repository: { select: { hostLink: { select: { host: { select: { kind: true } } } } } },
    },
  });
  if (!change) return null;
  const detailsUrl = `${publicOrigin()}/changes/${encodeURIComponent(change.id)}`;
  // The run first, then the fix, never side by side: a run's end writes its
  // status and its fix in one transaction, so a fix read after a finished run
  // is always there. Read in parallel, the fix's query can run just before
  // that commit and the run's just after, and the pull request would be told
  // "No fix" for a run that ended fixed.
  const run = await db.run.findFirst({
    where: { changeId, revision: { headRev: change.headRev } },
    orderBy: { createdAt: 'desc' },
    select: { id: true, status: true, exitReason: true, policy: true },
  });
  const fix = await db.fix.findFirst({
    where: { changeId, status: { not: FixStatus.DROPPED } },
    orderBy: { createdAt: 'desc' },
    select: {
      id: true,
      status: true,
      diff: true,
      summaryHtml: true,
      appliedCommit: true,
      evidence: true,
      revision: { select: { headRev: true } },
      decisions: { where: { kind: 'REJECT' }, orderBy: { createdAt: 'desc' }, take: 1, select: { reason: true, reasonText: true } },
    },
  });

  const proof = fix ? readFixEvidence(fix.evidence).proof : null;
  const unproven = proof && proof.status !== 'proven' ? { label: proof.label, detail: proof.detail } : null;

  let check: CheckState;
  if (run && (run.status === RunStatus.QUEUED || run.status === RunStatus.RUNNING)) {
    const estimate = await loadPhaseMedians({ repositoryId: change.repositoryId, policy: run.policy, db });
    const events =
      run.status === RunStatus.RUNNING
        ? (await db.runEvent.findMany({ where: { runId: run.id, type: 'phase' }, orderBy: { seq: 'asc' }, select: { payload: true, createdAt: true } })).map(
            (e) => ({
              payload: e.payload as Record<string, unknown>,
              at: e.createdAt.toISOString(),
            }),
          )
        : [];
    const left = formatRemainingRange(estimateRemaining({ estimate, progress: progressFromPhaseEvents(events), now: Date.now() }));
    check = {
      status: 'in_progress',
      title: `Working on it (${left})`,
      summary: `flowfix is ${run.status === RunStatus.QUEUED ? 'about to reproduce' : 'repairing'} the failing tests of this commit: ${left}.\n\nFollow it live: ${detailsUrl}`,
    };
  } else if (fix && fix.revision.headRev === change.headRev) {
    const summary = summaryToText(fix.summaryHtml);
    const root = `Root cause: ${firstLine(summary) || 'see flowfix'}`;
    check =
      fix.status === FixStatus.APPLIED
        ? {
            status: 'completed',
            conclusion: 'success',
            title: `Fix applied${fix.appliedCommit ? ` as ${fix.appliedCommit.slice(0, 12)}` : ''}`,
            summary: `${root}\n\n${detailsUrl}`,
          }
        : fix.status === FixStatus.REJECTED
          ? { status: 'completed', conclusion: 'neutral', title: 'Fix rejected', summary: `${root}\n\n${detailsUrl}` }
          : fix.status === FixStatus.STALE
            ? { status: 'completed', conclusion: 'neutral', title: 'Fix stale', summary: `${root}\n\n${detailsUrl}` }
            : unproven
              ? {
                  status: 'completed',
                  conclusion: 'neutral',
                  title: `A fix is ready, ${unproven.label}`,
                  summary: `${root}\n\n${unproven.detail}\n\nPreview and apply: ${detailsUrl}`,
                }
              : { status: 'completed', conclusion: 'neutral', title: 'A fix is ready', summary: `${root}\n\nPreview and apply: ${detailsUrl}` };
  } else if (run) {
    const outcome = run.status === RunStatus.CANCELLED ? 'cancelled' : `no fix (${run.exitReason ?? run.status.toLowerCase()})`;
    check = {
      status: 'completed',
      conclusion: run.status === RunStatus.CANCELLED ? 'cancelled' : 'neutral',
      title: `No fix: ${outcome}`,
      summary: `flowfix ended with ${outcome}.\n\n${detailsUrl}`,
    };
  } else if (change.status === ChangeStatus.SKIPPED) {
    const skip = describeSkip(change.statusReason, change.repository.hostLink?.host.kind === 'GITLAB' ? 'merge request' : 'pull request');
    check = { status: 'completed', conclusion: 'skipped', title: skip.title, summary: `${skip.summary}\n\n${detailsUrl}` };
  } else if (change.status === ChangeStatus.STALE) {
    check = { status: 'completed', conclusion: 'neutral', title: 'Stale', summary: `${change.statusReason ?? 'The change moved on.'}\n\n${detailsUrl}` };
  } else {
    check = { status: 'queued', title: 'Queued', summary: `flowfix received the failure.\n\n${detailsUrl}` };
  }

  const comment = fix
    ? {
        changeId,
        detailsUrl,
        fix: { id: fix.id, status: fix.status, diff: fix.diff, summary: summaryToText(fix.summaryHtml), appliedCommit: fix.appliedCommit },
        rejectedBecause: fix.decisions[0] ? (fix.decisions[0].reasonText ?? fix.decisions[0].reason?.toLowerCase().replace(/_/g, ' ')) : null,
        staleBecause: change.status === ChangeStatus.STALE ? change.statusReason : null,
        unproven,
        handApply: change.forkNotWritable
          ? forkHandApplyMarkdown({
              kind: change.repository.hostLink?.host.kind ?? 'GITHUB',
              fork: change.forkNotWritable,
              branch: change.branch,
              fixId: fix.id,
            })
          : null,
      }
    : null;
  return { changeId, headRev: change.headRev, check, comment, detailsUrl };
}
