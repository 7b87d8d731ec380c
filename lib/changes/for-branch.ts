import 'server-only';
import path from 'node:path';
import { z } from 'zod';
import { BRANCH_FAILURES_SHOWN, type BranchChange, type BranchRun, type BranchState } from '../../common/branch-state';
import { getDb } from '../db';
import { publicOrigin } from '../env';
import { AppError } from '../errors';
import { summaryToText } from '../fixes/text';
import { OWN_FIXES } from '../fixes/views';
import { noFixCategory } from '../../common/exit-reasons';
import { getActiveRunsForChanges } from '../runs/queries';
import { formatRemainingRange } from '../../common/run-estimate';

// The editor's question: "what is flowfix doing about the branch I have
// checked out?" The extension knows the workspace's git remotes and its
// branch, not flowfix's ids; this finds the registered repository whose git
// URL is one of those remotes (or, failing that, whose name is the remote's
// path), and that repository's newest change on the branch, with its failing
// tests, newest run (time left, or why it found no fix) and newest fix.

export const ForBranchQuerySchema = z.object({
  remote: z.array(z.string().trim().min(1).max(2000)).min(1, "Send the checkout's git remote URL(s) as ?remote=").max(10),
  branch: z.string().trim().min(1, 'Send the checked-out branch as ?branch=').max(500),
});
export type ForBranchQuery = z.infer<typeof ForBranchQuerySchema>;

/**
 * A git URL reduced to what identifies the repository: host and path for a
 * URL or an scp-like address (git@host:owner/name), the absolute path for a
 * local one; no scheme, user, port, trailing slash or ".git".
 */
export function normaliseGitUrl(url: string): string {
  let u = url.trim();
  let out: string;
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/.exec(u);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) {
    try {
      const parsed = new URL(u);
      out =
        parsed.protocol === 'file:'
          ? path.resolve(decodeURIComponent(parsed.pathname))
          : `${parsed.hostname.toLowerCase()}${decodeURIComponent(parsed.pathname)}`;
    } catch {
      out = u;
    }
  } else if (scp && !u.startsWith('/') && !/^[a-z]:[\\/]/i.test(u)) {
    out = `${scp[1].toLowerCase()}/${scp[2].replace(/^\/+/, '')}`;
  } else {
    out = path.resolve(u);
  }
  u = out
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
  return u;
}

async function findRepository(remotes: string[]): Promise<{ id: string; name: string }> {
  const repos = await getDb().repository.findMany({ where: { archivedAt: null }, select: { id: true, name: true, gitUrl: true } });
  const wanted = new Set(remotes.map(normaliseGitUrl));
  const byUrl = repos.filter((r) => wanted.has(normaliseGitUrl(r.gitUrl)));
  if (byUrl.length >= 1) return byUrl[0];
  // a server that clones over another URL than the developer's (https vs ssh,
  // a mirror): the repository's name is the remote's path ("acme/shop")
  const byName = repos.filter((r) => [...wanted].some((w) => w === r.name || w.endsWith(`/${r.name}`)));
  if (byName.length === 1) return byName[0];
  throw new AppError(
    'not_found',
    byName.length > 1
      ? `Several repositories on this flowfix server match ${remotes.join(', ')} by name; an admin can set a repository's git URL to this remote to tell them apart`
      : `This flowfix server has no repository with the remote ${remotes.join(', ')}; an admin registers it on the admin page`,
  );
}

/** The summary's first sentence, as plain text on one line. */
function oneLine(summaryHtml: string): string {
  const text = summaryToText(summaryHtml).replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  return sentence.length > 300 ? `${sentence.slice(0, 299)}…` : sentence;
}

async function runView(
  run: { id: string; status: string; exitReason: string | null; exitDetail: string | null; finishedAt: Date | null },
  changeId: string,
): Promise<BranchRun> {
  const base: BranchRun = {
    id: run.id,
    status: run.status as BranchRun['status'],
    phase: null,
    timeLeft: null,
    remainingMs: null,
    exitReason: run.exitReason,
    exitDetail: run.exitDetail,
    noFixCategory: null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
  if (run.status === 'QUEUED' || run.status === 'RUNNING') {
    const active = (await getActiveRunsForChanges({ changeIds: [changeId] })).get(changeId);
    if (active && active.id === run.id) {
      base.phase = active.phase;
      base.remainingMs = active.remainingMs;
      base.timeLeft = formatRemainingRange({ lowMs: active.remainingLowMs, highMs: active.remainingHighMs });
    }
  } else if (run.status === 'NO_FIX' || run.status === 'FAILED') {
    const reachedGreen =
      run.exitReason === 'no_candidate' &&
      (await getDb().runEvent.count({ where: { runId: run.id, type: 'gate', payload: { path: ['gate'], equals: 'green' } } })) > 0;
    base.noFixCategory = noFixCategory(run.exitReason, reachedGreen);
  }
  return base;
}

export async function getBranchState({ remote, branch }: ForBranchQuery): Promise<BranchState> {
  const repository = await findRepository(remote);
  const db = getDb();
  // generated demo history has no branch behind it
  const change = await db.change.findFirst({
    where: { repositoryId: repository.id, branch, origin: { not: 'DEMO_HISTORY' } },
    orderBy: [{ lastFailureAt: 'desc' }, { id: 'desc' }],
    select: {
      id: true,
      externalId: true,
      title: true,
      url: true,
      status: true,
      statusReason: true,
      headRev: true,
      failingTestCount: true,
    },
  });
  if (!change) return { repository, branch, change: null };
  // the fix is read after the run, never beside it: a run's end writes both in
  // one transaction, so a finished run read first always finds its fix
  const [failureRevision, run] = await Promise.all([
    // the failures of the newest revision that had any (an "all passed" newer revision keeps showing them)
    db.changeRevision.findFirst({
      where: { changeId: change.id, failures: { some: {} } },
      orderBy: { number: 'desc' },
      select: {
        failures: {
          orderBy: [{ kind: 'asc' }, { testId: 'asc' }],
          take: BRANCH_FAILURES_SHOWN,
          select: { testId: true, testName: true, file: true, line: true, message: true },
        },
      },
    }),
    db.run.findFirst({
      where: { changeId: change.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { id: true, status: true, exitReason: true, exitDetail: true, finishedAt: true },
    }),
  ]);
  const fix = await db.fix.findFirst({
    where: { changeId: change.id, ...OWN_FIXES },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true, status: true, runId: true, summaryHtml: true, files: true, dropReason: true, revision: { select: { headRev: true } } },
  });
  const view: BranchChange = {
    ...change,
    failures: failureRevision?.failures ?? [],
    run: run ? await runView(run, change.id) : null,
    fix: fix
      ? {
          id: fix.id,
          status: fix.status,
          runId: fix.runId,
          headRev: fix.revision.headRev,
          rootCause: oneLine(fix.summaryHtml),
          files: fix.files,
          dropReason: fix.dropReason,
        }
      : null,
    dashboardUrl: `${publicOrigin()}/changes/${change.id}`,
  };
  return { repository, branch, change: view };
}
