import 'server-only';
import { getDb } from '../db';
import { AppError } from '../errors';
import { CodeHostKind } from '../generated/prisma/enums';
import type { GitCredentials } from '../git/runner';
import { githubInstallationClient, githubInstallationToken, gitlabClient, gitlabToken } from './clients';

// Where an accepted fix is pushed for a repository linked to a code host,
// and with what: a short-lived installation token (GitHub App, user
// x-access-token) or the connection's project/group access token (GitLab,
// user oauth2), handed to the git runner's push profile and nothing else.
// A pull request from a fork is pushed to the fork's branch only when the
// host says its author lets maintainers edit it; otherwise the accept is
// refused (409) and nothing is written.

export interface PushTarget {
  gitUrl: string;
  credentials: GitCredentials;
}

function isNotFound(err: unknown): boolean {
  const e = err as { status?: number; cause?: { response?: { status?: number } } };
  return e.status === 404 || e.cause?.response?.status === 404;
}

/** null: the repository is not linked to a code host (the server's own git credentials, as before). */
export async function hostPushTarget({ repositoryId, gitUrl, externalId }: { repositoryId: string; gitUrl: string; externalId: string }): Promise<PushTarget | null> {
  const link = await getDb().codeHostRepository.findUnique({ where: { repositoryId }, include: { host: true } });
  if (!link || link.host.disabledAt) return null;
  const number = /^\d+$/.test(externalId) ? Number(externalId) : null;

  if (link.host.kind === CodeHostKind.GITHUB) {
    const credentials = { username: 'x-access-token', password: await githubInstallationToken(link.host, link.installationId ?? '') };
    if (number === null) return { gitUrl, credentials };
    const [owner, repo] = link.fullName.split('/');
    let pr;
    try {
      pr = (await githubInstallationClient(link.host, link.installationId ?? '').rest.pulls.get({ owner, repo, pull_number: number })).data;
    } catch (err) {
      // a change reported from CI under an id that is not a pull request number
      if (isNotFound(err)) return { gitUrl, credentials };
      throw err;
    }
    const head = pr.head.repo;
    if (!head || head.full_name === link.fullName) return { gitUrl, credentials };
    if (!pr.maintainer_can_modify) {
      throw new AppError('conflict', `The pull request comes from the fork ${head?.full_name ?? '(deleted)'}, whose author does not allow maintainers to edit it: flowfix cannot push there. Apply the patch in the fork instead.`);
    }
    return { gitUrl: head.clone_url, credentials };
  }

  const credentials = { username: 'oauth2', password: gitlabToken(link.host) };
  if (number === null) return { gitUrl, credentials };
  const api = gitlabClient(link.host);
  let mr;
  try {
    mr = await api.MergeRequests.show(link.externalId, number);
  } catch (err) {
    if (isNotFound(err)) return { gitUrl, credentials };
    throw err;
  }
  if (mr.source_project_id === mr.target_project_id) return { gitUrl, credentials };
  if (!mr.allow_collaboration) {
    throw new AppError('conflict', 'The merge request comes from a fork whose author does not allow commits from members who can merge: flowfix cannot push there. Apply the patch in the fork instead.');
  }
  const source = await api.Projects.show(Number(mr.source_project_id));
  return { gitUrl: String(source.http_url_to_repo), credentials };
}
