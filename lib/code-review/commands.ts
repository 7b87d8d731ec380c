import 'server-only';
import type { CodeHost, CodeHostRepository } from '../generated/prisma/client';
import { getDb } from '../db';
import { AppError } from '../errors';
import { acceptFix } from '../fixes/apply';
import { DECIDABLE, rejectFix, type Decider } from '../fixes/decisions';
import { githubInstallationClient, gitlabClient, type GitHubClient } from '../hosts/clients';
import type { ProcessOutcome } from '../hosts/schemas';
import { codeReviewIdentity } from '../users/code-review';

// Comment commands on a pull request: `/flowfix apply` and
// `/flowfix reject <reason>`. Who may: a user with write permission on the
// repository, asked of the host's API for that user (never read from the
// delivery's payload, whose author_association says nothing about write
// access). The decision is recorded with the surface CODE_REVIEW, as the
// host's user (a code-review identity made for that login, lib/users/code-review.ts:
// the host's permission check, not a flowfix role, authorises it). The answer is a
// reply in the pull request's conversation.

export type CommentCommand = { kind: 'apply' } | { kind: 'reject'; reason: string };

/** The first line that is a flowfix command, if any. */
export function parseCommentCommand(body: string): CommentCommand | null {
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    const m = /^\/flowfix\s+(apply|reject)\b\s*(.*)$/i.exec(line);
    if (!m) continue;
    if (m[1].toLowerCase() === 'apply') return { kind: 'apply' };
    return { kind: 'reject', reason: m[2].trim() };
  }
  return null;
}

const WRITE_ROLES = new Set(['admin', 'maintain', 'write']);

async function reply(client: GitHubClient, fullName: string, number: number, body: string): Promise<void> {
  const [owner, repo] = fullName.split('/');
  await client.rest.issues.createComment({ owner, repo, issue_number: number, body });
}

export async function processGitHubComment({
  host,
  link,
  payload,
}: {
  host: CodeHost;
  link: CodeHostRepository;
  payload: Record<string, unknown>;
}): Promise<ProcessOutcome> {
  const issue = payload.issue as { number: number; pull_request?: unknown };
  const comment = payload.comment as { body?: string; user?: { login?: string; type?: string } };
  if (payload.action !== 'created' || !issue?.pull_request) return { status: 'IGNORED', detail: 'not a new comment on a pull request' };
  const command = parseCommentCommand(comment.body ?? '');
  const login = comment.user?.login;
  if (!command || !login) return { status: 'IGNORED', detail: 'no flowfix command' };
  if (comment.user?.type === 'Bot') return { status: 'IGNORED', detail: `a bot (${login}) cannot give commands` };
  const client = githubInstallationClient(host, link.installationId ?? '');
  const [owner, repo] = link.fullName.split('/');
  const answer = async (text: string, status: ProcessOutcome['status'], detail: string): Promise<ProcessOutcome> => {
    await reply(client, link.fullName, issue.number, `@${login} ${text}`);
    return { status, detail };
  };

  // the permission, from the API, for this user on this repository
  const { data: permission } = await client.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: login });
  if (!WRITE_ROLES.has(permission.role_name) && !WRITE_ROLES.has(permission.permission)) {
    return answer(
      `\`/flowfix ${command.kind}\` needs write permission on ${link.fullName}; yours is ${permission.role_name || permission.permission}. Nothing was done.`,
      'IGNORED',
      `refused: ${login} has ${permission.permission}`,
    );
  }
  return decideInThread({ host, link, number: issue.number, thread: 'pull request', login, command, answer });
}

/** GitLab's Developer role: may push to unprotected branches. */
const GITLAB_DEVELOPER = 30;

/** The same commands in a merge-request note (GitLab): Developer access or more, asked of the members API. */
export async function processGitLabNote({
  host,
  link,
  payload,
}: {
  host: CodeHost;
  link: CodeHostRepository;
  payload: Record<string, unknown>;
}): Promise<ProcessOutcome> {
  const attrs = payload.object_attributes as { noteable_type?: string; note?: string; system?: boolean } | undefined;
  const mr = payload.merge_request as { iid?: number } | undefined;
  const user = payload.user as { id?: number; username?: string; bot?: boolean } | undefined;
  if (attrs?.noteable_type !== 'MergeRequest' || !mr?.iid || attrs.system) return { status: 'IGNORED', detail: 'not a note on a merge request' };
  const command = parseCommentCommand(attrs.note ?? '');
  if (!command || !user?.id || !user.username) return { status: 'IGNORED', detail: 'no flowfix command' };
  if (user.bot) return { status: 'IGNORED', detail: `a bot (${user.username}) cannot give commands` };
  const api = gitlabClient(host);
  const login = user.username;
  const answer = async (text: string, status: ProcessOutcome['status'], detail: string): Promise<ProcessOutcome> => {
    await api.MergeRequestNotes.create(link.externalId, mr.iid!, `@${login} ${text}`);
    return { status, detail };
  };
  let level = 0;
  try {
    const member = await api.ProjectMembers.show(link.externalId, user.id, { includeInherited: true });
    level = Number(member.access_level ?? 0);
  } catch (err) {
    const status = (err as { cause?: { response?: { status?: number } } }).cause?.response?.status;
    if (status !== 404) throw err;
  }
  if (level < GITLAB_DEVELOPER) {
    return answer(
      `\`/flowfix ${command.kind}\` needs the Developer role or more on ${link.fullName}. Nothing was done.`,
      'IGNORED',
      `refused: ${login} has access level ${level}`,
    );
  }
  return decideInThread({ host, link, number: mr.iid, thread: 'merge request', login, command, answer });
}

/**
 * The decision a permitted user's command asks for, on the newest fix of the
 * change still waiting for one, answered in the thread by `answer`; a refusal
 * the product explains (the branch moved, the fix went stale) is answered,
 * not thrown.
 */
async function decideInThread({
  host,
  link,
  number,
  thread,
  login,
  command,
  answer,
}: {
  host: CodeHost;
  link: CodeHostRepository;
  number: number;
  thread: 'pull request' | 'merge request';
  login: string;
  command: CommentCommand;
  answer: (text: string, status: ProcessOutcome['status'], detail: string) => Promise<ProcessOutcome>;
}): Promise<ProcessOutcome> {
  const change = await getDb().change.findUnique({
    where: { repositoryId_externalId: { repositoryId: link.repositoryId, externalId: String(number) } },
    select: { id: true },
  });
  const fix = change
    ? await getDb().fix.findFirst({ where: { changeId: change.id, ...DECIDABLE }, orderBy: { createdAt: 'desc' }, select: { id: true } })
    : null;
  if (!fix) return answer(`there is no fix of flowfix waiting for a decision on this ${thread}.`, 'IGNORED', 'no decidable fix');
  const decider: Decider = await codeReviewIdentity({ host, login });
  try {
    if (command.kind === 'apply') {
      const result = await acceptFix({ fixId: fix.id, userId: decider.id, surface: 'CODE_REVIEW', decider });
      return answer(`applied the fix as ${result.commit.slice(0, 12)} on \`${result.branch}\`.`, 'PROCESSED', `applied ${fix.id} as ${result.commit}`);
    }
    if (!command.reason) return answer('say why: `/flowfix reject <reason>`.', 'IGNORED', 'reject without a reason');
    await rejectFix({ fixId: fix.id, userId: decider.id, reason: 'OTHER', text: command.reason.slice(0, 2000), surface: 'CODE_REVIEW', decider });
    return answer('rejected the fix. It will not be applied.', 'PROCESSED', `rejected ${fix.id}`);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return answer(err.message, 'IGNORED', `refused: ${err.message}`);
    throw err;
  }
}
