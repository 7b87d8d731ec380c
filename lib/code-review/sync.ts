import 'server-only';
import { getDb } from '../db';
import { CodeHostKind } from '../generated/prisma/enums';
import { getRunQueue, HOST_SYNC_QUEUE } from '../queue';
import { githubInstallationClient, gitlabClient } from '../hosts/clients';
import { describeForReview, digest, renderComment, type CheckState } from './review-view';
import { suggestionsFor } from './suggestions';
import { FixStatus } from '../generated/prisma/enums';

// Brings a change's pull (merge) request up to date with flowfix: the
// "flowfix" check run on the head commit (GitHub) or commit status (GitLab),
// and the one comment per change, created once and then edited in place.
// Runs as a job (HOST_SYNC_QUEUE), never inside a request: every write of the
// lifecycle (ingestion, a run queued, claimed or finished, a fix, a decision)
// queues it through the write hook's code-host subscriber (lib/writes.ts),
// which calls notifyCodeHost after the commit. What was last written is kept,
// so a sync that would change nothing calls no API.

/** Queues a sync of the change's pull request if its repository is linked to a code host. Never throws. */
export async function notifyCodeHost(changeId: string): Promise<void> {
  try {
    const linked = await getDb().change.findFirst({ where: { id: changeId, repository: { hostLink: { isNot: null } } }, select: { id: true } });
    if (linked) await (await getRunQueue()).enqueueHostJob(HOST_SYNC_QUEUE, changeId);
  } catch (err) {
    // the lifecycle goes on; the next transition queues the sync again
    console.error(`flowfix: could not queue the code-host sync of change ${changeId}`, err);
  }
}

/** The same for the change a run belongs to. Never throws. */
export async function notifyCodeHostOfRun(runId: string): Promise<void> {
  const run = await getDb()
    .run.findUnique({ where: { id: runId }, select: { changeId: true } })
    .catch(() => null);
  if (run) await notifyCodeHost(run.changeId);
}

function gitlabState(check: CheckState): 'pending' | 'running' | 'success' | 'failed' | 'canceled' {
  if (check.status !== 'completed') return check.status === 'queued' ? 'pending' : 'running';
  // a commit status has no "neutral": flowfix's own outcome never fails the pipeline
  return check.conclusion === 'cancelled' ? 'canceled' : 'success';
}

export async function syncChange(changeId: string): Promise<string[]> {
  const db = getDb();
  const change = await db.change.findUnique({
    where: { id: changeId },
    select: { id: true, externalId: true, repository: { select: { hostLink: { include: { host: true } } } } },
  });
  const link = change?.repository.hostLink;
  if (!change || !link || link.host.disabledAt) return [];
  const view = await describeForReview(changeId);
  if (!view) return [];
  const thread =
    (await db.codeReviewThread.findUnique({ where: { changeId } })) ??
    (await db.codeReviewThread.upsert({ where: { changeId }, create: { changeId, hostId: link.hostId }, update: {} }));
  const done: string[] = [];
  const checkDigest = digest({ head: view.headRev, check: view.check });

  if (link.host.kind === CodeHostKind.GITHUB) {
    const client = githubInstallationClient(link.host, link.installationId ?? '');
    const [owner, repo] = link.fullName.split('/');
    if (thread.lastCheckState !== checkDigest) {
      const output = { title: view.check.title, summary: view.check.summary };
      const check = view.check;
      const isCompleted = check.status === 'completed';
      const completed =
        check.status === 'completed'
          ? { status: 'completed' as const, conclusion: check.conclusion, completed_at: new Date().toISOString() }
          : { status: check.status };
      const create = async () => {
        const { data } = await client.rest.checks.create({
          owner,
          repo,
          name: 'flowfix',
          head_sha: view.headRev,
          details_url: view.detailsUrl,
          external_id: changeId,
          output,
          ...completed,
        });
        await db.codeReviewThread.update({ where: { changeId }, data: { checkRunId: String(data.id), checkRunHeadRev: view.headRev } });
        done.push('check_run.created');
      };
      // a completed check run never goes back to in progress on GitHub (a repair after a skip, a run started again): a new one then
      const reopens = thread.checkRunCompleted && !isCompleted;
      if (thread.checkRunId && thread.checkRunHeadRev === view.headRev && !reopens) {
        try {
          await client.rest.checks.update({ owner, repo, check_run_id: Number(thread.checkRunId), details_url: view.detailsUrl, output, ...completed });
          done.push('check_run.updated');
        } catch (err) {
          // a thread written before flowfix recorded completion: GitHub answers 422 to the reopening
          if ((err as { status?: number }).status !== 422 || isCompleted) throw err;
          await create();
        }
      } else {
        await create();
      }
      await db.codeReviewThread.update({ where: { changeId }, data: { lastCheckState: checkDigest, checkRunCompleted: isCompleted } });
    }
    let suggestionsPosted = view.comment !== null && thread.suggestionsFixId === view.comment.fix.id;
    if (view.comment && !suggestionsPosted && view.comment.fix.status === FixStatus.READY) {
      // the diff as suggested changes, in one review, when every hunk sits inside the pull request's own diff
      const files = await client.paginate(client.rest.pulls.listFiles, { owner, repo, pull_number: Number(change.externalId), per_page: 100 });
      const suggestions = suggestionsFor(view.comment.fix.diff, files);
      if (suggestions) {
        await client.rest.pulls.createReview({
          owner,
          repo,
          pull_number: Number(change.externalId),
          commit_id: view.headRev,
          event: 'COMMENT',
          body: `flowfix suggests this fix (root cause in the flowfix comment): ${view.detailsUrl}`,
          comments: suggestions.map((sg) => ({
            path: sg.path,
            line: sg.line,
            side: 'RIGHT' as const,
            ...(sg.startLine < sg.line ? { start_line: sg.startLine, start_side: 'RIGHT' as const } : {}),
            body: sg.body,
          })),
        });
        await db.codeReviewThread.update({ where: { changeId }, data: { suggestionsFixId: view.comment.fix.id } });
        suggestionsPosted = true;
        done.push('suggestions.posted');
      }
    }
    const body = view.comment ? renderComment({ ...view.comment, suggestionsPosted }) : null;
    const commentDigest = body === null ? null : digest(body);
    if (body !== null && thread.lastCommentDigest !== commentDigest) {
      if (thread.commentId) {
        await client.rest.issues.updateComment({ owner, repo, comment_id: Number(thread.commentId), body });
        done.push('comment.updated');
      } else {
        const { data } = await client.rest.issues.createComment({ owner, repo, issue_number: Number(change.externalId), body });
        await db.codeReviewThread.update({ where: { changeId }, data: { commentId: String(data.id) } });
        done.push('comment.created');
      }
      await db.codeReviewThread.update({ where: { changeId }, data: { lastCommentDigest: commentDigest } });
    }
  } else {
    const api = gitlabClient(link.host);
    if (thread.lastCheckState !== checkDigest) {
      await api.Commits.editStatus(link.externalId, view.headRev, gitlabState(view.check), {
        name: 'flowfix',
        targetUrl: view.detailsUrl,
        description: view.check.title.slice(0, 255),
      });
      await db.codeReviewThread.update({ where: { changeId }, data: { lastCheckState: checkDigest, checkRunHeadRev: view.headRev } });
      done.push('commit_status.set');
    }
    const body = view.comment ? renderComment({ ...view.comment, suggestionsPosted: false }) : null;
    const commentDigest = body === null ? null : digest(body);
    if (body !== null && thread.lastCommentDigest !== commentDigest) {
      if (thread.commentId) {
        await api.MergeRequestNotes.edit(link.externalId, Number(change.externalId), Number(thread.commentId), { body });
        done.push('note.updated');
      } else {
        const note = await api.MergeRequestNotes.create(link.externalId, Number(change.externalId), body);
        await db.codeReviewThread.update({ where: { changeId }, data: { commentId: String(note.id) } });
        done.push('note.created');
      }
      await db.codeReviewThread.update({ where: { changeId }, data: { lastCommentDigest: commentDigest } });
    }
  }
  await db.codeReviewThread.update({ where: { changeId }, data: { syncedAt: new Date() } });
  return done;
}
