import 'server-only';
import { getDb } from '../db';
import { AppError } from '../errors';
import { CodeHostKind } from '../generated/prisma/enums';
import type { GitCredentials } from '../git/runner';
import { githubInstallationClient, gitlabClient, hostErrorStatus, hostGitCredentials } from './clients';
import { forkRefusalMessage } from './fork';
import { recordForkWritability } from './fork-writability';

// Where an accepted fix is pushed for a repository linked to a code host,
// and with what: a short-lived installation token (GitHub App, user
// x-access-token) or the connection's project/group access token (GitLab,
// user oauth2), handed to the git runner's push profile and nothing else.
// A pull request from a fork is pushed to the fork's branch only when the
// host says its author lets maintainers edit it; otherwise the accept is
// refused (409) with how to apply by hand (lib/hosts/fork.ts), nothing is
// written, and the change records it so its comment says the same.

export interface PushTarget {
  gitUrl: string;
  credentials: GitCredentials;
}

const isNotFound = (err: unknown) => hostErrorStatus(err) === 404;

/** What the host says now about the request's fork, recorded on the change; throws the refusal when flowfix may not push there. */
async function forkChecked({
  repositoryId,
  externalId,
  kind,
  fork,
  writable,
  fixId,
  branch,
}: {
  repositoryId: string;
  externalId: string;
  kind: 'GITHUB' | 'GITLAB';
  fork: string;
  writable: boolean;
  fixId?: string;
  branch?: string;
}): Promise<void> {
  const change = await getDb().change.findUnique({ where: { repositoryId_externalId: { repositoryId, externalId } }, select: { id: true } });
  if (change) await recordForkWritability({ changeId: change.id, forkNotWritable: writable ? null : fork });
  if (!writable) throw new AppError('conflict', forkRefusalMessage({ kind, fork, branch, fixId }));
}

/** The repository's link to a code host with the host, while the host is enabled; else null. */
export async function enabledHostLink({ repositoryId }: { repositoryId: string }) {
  const link = await getDb().codeHostRepository.findUnique({ where: { repositoryId }, include: { host: true } });
  return link && !link.host.disabledAt ? link : null;
}

/**
 * null: the repository is not linked to a code host (the server's own git
 * credentials, as before). `fixId` and `branch` only make a refusal's
 * message say how to apply by hand.
 */
export async function hostPushTarget({
  repositoryId,
  gitUrl,
  externalId,
  fixId,
  branch,
}: {
  repositoryId: string;
  gitUrl: string;
  externalId: string;
  fixId?: string;
  branch?: string;
}): Promise<PushTarget | null> {
  const link = await enabledHostLink({ repositoryId });
  if (!link) return null;
  const number = /^\d+$/.test(externalId) ? Number(externalId) : null;
  const credentials = await hostGitCredentials(link.host, link.installationId);

  if (link.host.kind === CodeHostKind.GITHUB) {
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
    if (head && head.full_name === link.fullName) return { gitUrl, credentials };
    // a deleted fork (head.repo null) cannot be written either
    await forkChecked({
      repositoryId,
      externalId,
      kind: 'GITHUB',
      fork: head?.full_name ?? '(a deleted fork)',
      writable: !!head && pr.maintainer_can_modify,
      fixId,
      branch,
    });
    return { gitUrl: head!.clone_url, credentials };
  }

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
  let source: { path_with_namespace?: unknown; http_url_to_repo?: unknown } | null = null;
  try {
    source = await api.Projects.show(Number(mr.source_project_id));
  } catch (err) {
    // a private fork the token cannot see: it cannot be pushed to either
    if (!isNotFound(err)) throw err;
  }
  const fork = source ? String(source.path_with_namespace) : `project ${String(mr.source_project_id)}`;
  await forkChecked({ repositoryId, externalId, kind: 'GITLAB', fork, writable: !!source && !!mr.allow_collaboration, fixId, branch });
  return { gitUrl: String(source!.http_url_to_repo), credentials };
}
