import 'server-only';
import { createHash, timingSafeEqual } from 'node:crypto';
import { verify as verifyGitHubSignature } from '@octokit/webhooks-methods';
import { getDb } from '../db';
import { getEnv } from '../env';
import { AppError, isUniqueViolation } from '../errors';
import { CodeHostKind } from '../generated/prisma/enums';
import type { CodeHost, Prisma } from '../generated/prisma/client';
import { readLimitedBody } from '../ingest/body';
import { getRunQueue, HOST_EVENT_QUEUE } from '../queue';
import { SECRET_PURPOSE } from './clients';
import { secretBox } from './secrets';

// Webhook deliveries in. A delivery is authenticated by its signature, never
// by anything else it says: GitHub's X-Hub-Signature-256 (HMAC SHA-256 of the
// raw body with the App's webhook secret), GitLab's X-Gitlab-Token (the
// hook's secret token); both compared in constant time. The delivery is then
// recorded under its id (a replay of that id is refused) and handed to the job
// queue; the answer goes back at once and lib/code-review/process.ts does the work.

export type HostKindName = 'github' | 'gitlab';

export interface VerifiedWebhook {
  host: CodeHost;
  deliveryId: string;
  event: string;
  payload: Record<string, unknown>;
}

/** Events flowfix acts on; anything else is acknowledged and not recorded. */
const HANDLED: Record<HostKindName, ReadonlySet<string>> = {
  github: new Set(['workflow_run', 'check_suite', 'pull_request', 'issue_comment']),
  gitlab: new Set(['Pipeline Hook', 'Job Hook', 'Merge Request Hook', 'Note Hook']),
};

function unauthenticated(message: string): AppError {
  return new AppError('unauthenticated', message);
}

function sameSecret(a: string, b: string): boolean {
  // digests first: equal lengths for timingSafeEqual, and no early exit on length
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

async function activeHosts(kind: CodeHostKind): Promise<CodeHost[]> {
  return getDb().codeHost.findMany({ where: { kind, disabledAt: null }, orderBy: { createdAt: 'asc' } });
}

function webhookSecretOf(host: CodeHost): string {
  return secretBox().decrypt(host.webhookSecretCipher, SECRET_PURPOSE.webhookSecret(host.id));
}

function parsePayload(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new AppError('bad_request', 'The delivery body is not a JSON object');
}

/** The route access of a host's webhook route: `withRoute(webhookAccess('github'), …)` verifies each delivery first. */
export function webhookAccess<K extends HostKindName>(host: K) {
  return { auth: 'webhook' as const, host, verify: (req: Request) => verifyWebhook(host, req) };
}

/** Authenticates a delivery by its signature or token; 401 for anything that does not verify. */
export async function verifyWebhook(kind: HostKindName, req: Request): Promise<VerifiedWebhook> {
  const bytes = await readLimitedBody({ req, maxBytes: getEnv().FLOWFIX_MAX_UPLOAD_BYTES });
  const text = Buffer.from(bytes).toString('utf8');
  if (kind === 'github') {
    const signature = req.headers.get('x-hub-signature-256');
    if (!signature || !/^sha256=[0-9a-f]{64}$/.test(signature))
      throw unauthenticated('X-Hub-Signature-256 is missing: GitHub signs every delivery with the App webhook secret');
    let host: CodeHost | undefined;
    for (const candidate of await activeHosts(CodeHostKind.GITHUB)) {
      if (text.length > 0 && (await verifyGitHubSignature(webhookSecretOf(candidate), text, signature))) {
        host = candidate;
        break;
      }
    }
    if (!host) throw unauthenticated('The signature does not match any registered GitHub App webhook secret');
    const deliveryId = req.headers.get('x-github-delivery');
    const event = req.headers.get('x-github-event');
    if (!deliveryId || !event) throw new AppError('bad_request', 'X-GitHub-Delivery and X-GitHub-Event are required');
    return { host, deliveryId, event, payload: parsePayload(text) };
  }
  const token = req.headers.get('x-gitlab-token');
  if (!token) throw unauthenticated('X-Gitlab-Token is missing: set the webhook secret token in GitLab');
  let host: CodeHost | undefined;
  for (const candidate of await activeHosts(CodeHostKind.GITLAB)) {
    if (sameSecret(webhookSecretOf(candidate), token)) {
      host = candidate;
      break;
    }
  }
  if (!host) throw unauthenticated('The secret token does not match any registered GitLab webhook secret');
  const deliveryId = req.headers.get('x-gitlab-event-uuid') ?? req.headers.get('idempotency-key');
  const event = req.headers.get('x-gitlab-event');
  if (!deliveryId || !event) throw new AppError('bad_request', 'X-Gitlab-Event-UUID and X-Gitlab-Event are required');
  return { host, deliveryId, event, payload: parsePayload(text) };
}

function projectIdOf(kind: HostKindName, payload: Record<string, unknown>): string | null {
  if (kind === 'github') {
    const repo = payload.repository as { id?: unknown } | undefined;
    return repo && (typeof repo.id === 'number' || typeof repo.id === 'string') ? String(repo.id) : null;
  }
  const project = payload.project as { id?: unknown } | undefined;
  const id = project?.id ?? payload.project_id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : null;
}

function actionOf(payload: Record<string, unknown>): string | null {
  if (typeof payload.action === 'string') return payload.action;
  const attrs = payload.object_attributes as { action?: unknown; status?: unknown } | undefined;
  if (typeof attrs?.action === 'string') return attrs.action;
  if (typeof attrs?.status === 'string') return attrs.status;
  return typeof payload.build_status === 'string' ? payload.build_status : null;
}

export type AcceptedDelivery = { status: 'queued'; id: string; deliveryId: string } | { status: 'ignored'; deliveryId: string; reason: string };

export type RecordedDelivery = { status: 'recorded'; id: string; deliveryId: string } | Extract<AcceptedDelivery, { status: 'ignored' }>;

/**
 * Records a verified delivery (the first half of acceptDelivery). Refused: a
 * delivery id already recorded for this host (409), a repository or project
 * not linked to it, or under another installation (404).
 */
export async function recordDelivery(kind: HostKindName, hook: VerifiedWebhook): Promise<RecordedDelivery> {
  const { host, deliveryId, event, payload } = hook;
  if (!HANDLED[kind].has(event)) return { status: 'ignored', deliveryId, reason: `flowfix does not act on ${event} events` };
  const projectId = projectIdOf(kind, payload);
  const link = projectId ? await getDb().codeHostRepository.findUnique({ where: { hostId_externalId: { hostId: host.id, externalId: projectId } } }) : null;
  if (!link) {
    throw new AppError(
      'not_found',
      `${kind === 'github' ? 'Repository' : 'Project'} ${projectId ?? '(none named)'} is not linked to a flowfix repository on ${host.name}`,
    );
  }
  if (kind === 'github') {
    const installation = (payload.installation as { id?: unknown } | undefined)?.id;
    if (installation === undefined || String(installation) !== link.installationId) {
      throw new AppError(
        'not_found',
        `Installation ${installation === undefined ? '(none named)' : String(installation)} is unknown to flowfix for ${link.fullName}`,
      );
    }
  }
  try {
    const row = await getDb().webhookDelivery.create({
      data: { hostId: host.id, deliveryId, event, action: actionOf(payload), payload: payload as Prisma.InputJsonValue },
      select: { id: true },
    });
    return { status: 'recorded', id: row.id, deliveryId };
  } catch (err) {
    if (isUniqueViolation(err)) {
      const first = await getDb().webhookDelivery.findUnique({ where: { hostId_deliveryId: { hostId: host.id, deliveryId } }, select: { receivedAt: true } });
      throw new AppError(
        'conflict',
        `Delivery ${deliveryId} was already received${first ? ` at ${first.receivedAt.toISOString()}` : ''}; a replay is not processed again`,
      );
    }
    throw err;
  }
}

/**
 * Records a verified delivery and queues it. A process that dies between the
 * two leaves the delivery RECEIVED with no job: the sweeper (sweepStuckDeliveries
 * in lib/code-review/process.ts) queues it again.
 */
export async function acceptDelivery(kind: HostKindName, hook: VerifiedWebhook): Promise<AcceptedDelivery> {
  const recorded = await recordDelivery(kind, hook);
  if (recorded.status === 'ignored') return recorded;
  try {
    await (await getRunQueue()).enqueueHostJob(HOST_EVENT_QUEUE, recorded.id);
  } catch (err) {
    // not queued: forget the delivery, so the host's redelivery of the same id is taken rather than refused as a replay
    await getDb()
      .webhookDelivery.delete({ where: { id: recorded.id } })
      .catch(() => undefined);
    throw err;
  }
  return { status: 'queued', id: recorded.id, deliveryId: recorded.deliveryId };
}
