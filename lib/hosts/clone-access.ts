import 'server-only';
import { CodeHostKind } from '../generated/prisma/enums';
import type { GitCredentials } from '../git/runner';
import { hostErrorStatus, hostGitCredentials } from './clients';
import { enabledHostLink } from './push-target';

// How a repair run's workspace reaches a repository linked to a code host:
// with the same credentials an accepted fix is pushed with (a fresh
// installation token, a GitLab connection's token), since a team's
// repository is usually private; and where the host keeps a pull/merge
// request's head, since a fork's head is on none of the repository's
// branches. Asked for by the worker just before the run clones (an
// installation token lasts an hour); the token goes to the git runner's clone
// and fetch and nowhere else (agent/workspace/workspace.ts).

export interface HostCloneAccess {
  credentials: GitCredentials;
  /** refs/pull/<n>/head (GitHub), refs/merge-requests/<iid>/head (GitLab): fetched when the clone's branches lack the head */
  headRef?: string;
  /** the repository and the host, as an error names them ("acme/shop on GitHub (gh)"); never the token */
  label: string;
}

/** The host gave no token (the App uninstalled from the repository, the host down): the run cannot clone. */
export class HostAccessError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'HostAccessError';
  }
}

/** null: the repository is linked to no enabled code host (cloned without credentials, as before). */
export async function hostCloneAccess({ repositoryId, externalId }: { repositoryId: string; externalId: string }): Promise<HostCloneAccess | null> {
  const link = await enabledHostLink({ repositoryId });
  if (!link) return null;
  const github = link.host.kind === CodeHostKind.GITHUB;
  // a change reported from CI under an id that is not a pull request number has no such ref
  const number = /^\d+$/.test(externalId) ? externalId : null;
  const label = `${link.fullName} on ${github ? 'GitHub' : 'GitLab'} (${link.host.name})`;
  let credentials: GitCredentials;
  try {
    credentials = await hostGitCredentials(link.host, link.installationId);
  } catch (err) {
    const status = hostErrorStatus(err);
    throw new HostAccessError(`${label}: the host gave no token to clone the repository with${status ? ` (HTTP ${status})` : ''}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return {
    credentials,
    ...(number ? { headRef: github ? `refs/pull/${number}/head` : `refs/merge-requests/${number}/head` } : {}),
    label,
  };
}
