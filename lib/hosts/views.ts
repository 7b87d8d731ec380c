import type { CodeHost, CodeHostRepository } from '../generated/prisma/client';

// What the admin page sees of a code host: an allow-list of columns, so a
// secret column (or one added tomorrow) never reaches the browser.

export interface HostLinkView {
  id: string;
  repositoryId: string;
  repositoryName: string;
  externalId: string;
  fullName: string;
  installationId: string | null;
  artifactName: string;
  junitGlob: string;
}

export interface HostView {
  id: string;
  kind: 'GITHUB' | 'GITLAB';
  name: string;
  apiBaseUrl: string;
  appId: string | null;
  appSlug: string | null;
  createdAt: string;
  disabledAt: string | null;
  links: HostLinkView[];
}

export interface HostRepositoryView {
  externalId: string;
  fullName: string;
  cloneUrl: string;
  defaultBranch: string;
  installationId: string | null;
  /** the flowfix repository it is linked to, if any */
  linkedTo: string | null;
}

type HostRow = CodeHost & { links: Array<CodeHostRepository & { repository: { name: string } }> };

export function hostView(host: HostRow): HostView {
  return {
    id: host.id,
    kind: host.kind,
    name: host.name,
    apiBaseUrl: host.apiBaseUrl,
    appId: host.appId,
    appSlug: host.appSlug,
    createdAt: host.createdAt.toISOString(),
    disabledAt: host.disabledAt?.toISOString() ?? null,
    links: host.links.map((l) => ({
      id: l.id,
      repositoryId: l.repositoryId,
      repositoryName: l.repository.name,
      externalId: l.externalId,
      fullName: l.fullName,
      installationId: l.installationId,
      artifactName: l.artifactName,
      junitGlob: l.junitGlob,
    })),
  };
}
