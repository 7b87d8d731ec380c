import 'server-only';
import { getDb } from '../db';
import { actorFrom, writeAudit } from '../audit';
import { AppError, isUniqueViolation } from '../errors';
import { CodeHostKind } from '../generated/prisma/enums';
import type { CodeHost } from '../generated/prisma/client';
import { githubAppClient, githubInstallationClient, gitlabClient, SECRET_PURPOSE } from './clients';
import { LinkRepositorySchema, RegisterHostSchema, type LinkRepositoryInput, type RegisterHostInput } from './schemas';
import { secretBox } from './secrets';
import { hostView, type HostRepositoryView, type HostView } from './views';

// Registering code hosts and linking flowfix repositories to their projects
// (admin only). Secrets are encrypted before the row is written and the
// audit entries name what changed, never a secret.

export async function registerHost({ actorId, input }: { actorId: string | null; input: RegisterHostInput }): Promise<HostView> {
  const parsed = RegisterHostSchema.parse(input);
  const box = secretBox();
  const db = getDb();
  try {
    const host = await db.$transaction(async (tx) => {
      // the id is part of each secret's purpose, so the row exists before its secrets
      const created = await tx.codeHost.create({
        data: {
          kind: parsed.kind,
          name: parsed.name,
          apiBaseUrl: parsed.apiBaseUrl.replace(/\/+$/, ''),
          webhookSecretCipher: 'pending',
          createdById: actorId,
          ...(parsed.kind === 'GITHUB' ? { appId: parsed.appId, appSlug: parsed.appSlug ?? null } : {}),
        },
      });
      const updated = await tx.codeHost.update({
        where: { id: created.id },
        data: {
          webhookSecretCipher: box.encrypt(parsed.webhookSecret, SECRET_PURPOSE.webhookSecret(created.id)),
          ...(parsed.kind === 'GITHUB'
            ? { privateKeyCipher: box.encrypt(parsed.privateKey, SECRET_PURPOSE.privateKey(created.id)) }
            : { tokenCipher: box.encrypt(parsed.token, SECRET_PURPOSE.token(created.id)) }),
        },
        include: { links: { include: { repository: { select: { name: true } } } } },
      });
      await writeAudit(
        {
          ...actorFrom(actorId),
          action: 'host.register',
          targetType: 'code_host',
          targetId: created.id,
          data: { kind: parsed.kind, name: parsed.name, apiBaseUrl: updated.apiBaseUrl },
        },
        tx,
      );
      return updated;
    });
    return hostView(host);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('conflict', `A code host named "${parsed.name}" is already registered`);
    throw err;
  }
}

export async function listHosts(): Promise<HostView[]> {
  const hosts = await getDb().codeHost.findMany({
    orderBy: { createdAt: 'asc' },
    include: { links: { include: { repository: { select: { name: true } } }, orderBy: { fullName: 'asc' } } },
  });
  return hosts.map(hostView);
}

export async function requireHost(id: string): Promise<CodeHost> {
  const host = await getDb().codeHost.findUnique({ where: { id } });
  if (!host) throw new AppError('not_found', 'Code host not found');
  return host;
}

/** The projects the host lets flowfix see: a GitHub App's installations' repositories, or a GitLab token's projects. */
export async function listHostRepositories(hostId: string): Promise<HostRepositoryView[]> {
  const host = await requireHost(hostId);
  const links = await getDb().codeHostRepository.findMany({ where: { hostId }, select: { externalId: true, repository: { select: { name: true } } } });
  const linked = new Map(links.map((l) => [l.externalId, l.repository.name]));
  const out: HostRepositoryView[] = [];
  try {
    if (host.kind === CodeHostKind.GITHUB) {
      const installations = await githubAppClient(host).paginate('GET /app/installations', { per_page: 100 });
      for (const installation of installations) {
        const client = githubInstallationClient(host, String(installation.id));
        const repos = await client.paginate('GET /installation/repositories', { per_page: 100 });
        for (const r of repos) {
          out.push({
            externalId: String(r.id),
            fullName: r.full_name,
            cloneUrl: r.clone_url,
            defaultBranch: r.default_branch,
            installationId: String(installation.id),
            linkedTo: linked.get(String(r.id)) ?? null,
          });
        }
      }
    } else {
      const projects = await gitlabClient(host).Projects.all({ membership: true, simple: true, perPage: 100, maxPages: 20 });
      for (const p of projects) {
        out.push({
          externalId: String(p.id),
          fullName: String(p.path_with_namespace),
          cloneUrl: String(p.http_url_to_repo),
          defaultBranch: String(p.default_branch ?? 'main'),
          installationId: null,
          linkedTo: linked.get(String(p.id)) ?? null,
        });
      }
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const status =
      (err as { status?: number; cause?: { response?: { status?: number } } }).status ??
      (err as { cause?: { response?: { status?: number } } }).cause?.response?.status;
    throw new AppError(
      'conflict',
      `${host.name} did not list its repositories (${status ? `HTTP ${status}` : (err as Error).message}); check the connection's credentials`,
      { cause: err },
    );
  }
  return out.sort((a, b) => a.fullName.localeCompare(b.fullName));
}

/** Links a flowfix repository to a project from the host's list (never a typed name). */
export async function linkRepository({ actorId, hostId, input }: { actorId: string | null; hostId: string; input: LinkRepositoryInput }): Promise<HostView> {
  const parsed = LinkRepositorySchema.parse(input);
  const db = getDb();
  const repository = await db.repository.findUnique({ where: { id: parsed.repositoryId } });
  if (!repository) throw new AppError('not_found', 'Repository not found');
  const project = (await listHostRepositories(hostId)).find((p) => p.externalId === parsed.externalId);
  if (!project) throw new AppError('not_found', 'The host does not list that project for flowfix (is the App installed on it, or the token a member?)');
  try {
    await db.$transaction(async (tx) => {
      await tx.codeHostRepository.create({
        data: {
          hostId,
          repositoryId: repository.id,
          externalId: project.externalId,
          fullName: project.fullName,
          installationId: project.installationId,
          ...(parsed.artifactName ? { artifactName: parsed.artifactName } : {}),
          ...(parsed.junitGlob ? { junitGlob: parsed.junitGlob } : {}),
        },
      });
      await writeAudit(
        {
          ...actorFrom(actorId),
          action: 'host.link',
          targetType: 'repository',
          targetId: repository.id,
          data: { hostId, project: project.fullName, externalId: project.externalId },
        },
        tx,
      );
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('conflict', `${repository.name} or ${project.fullName} is already linked`);
    throw err;
  }
  const host = await db.codeHost.findUniqueOrThrow({
    where: { id: hostId },
    include: { links: { include: { repository: { select: { name: true } } }, orderBy: { fullName: 'asc' } } },
  });
  return hostView(host);
}
