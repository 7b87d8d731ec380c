import type { Prisma, PrismaClient } from '../generated/prisma/client';
import { ChangeStatus, FixStatus, RunStatus } from '../generated/prisma/enums';
import { writeAudit } from '../audit';
import { tokenCoversRepository, type TokenPrincipal } from '../tokens/auth';
import { AppError, isUniqueViolation } from '../errors';
import { triageNewRevision } from '../triage/new-revision';
import { cohortSliceOf } from '../insights/rollup';
import { writeTx, type WriteLog } from '../writes';
import { inferAuthorKind } from './author';
import type { IngestUpload } from './body';
import { collectFailures, type CollectedFailures, type FailureDraft } from './failures';
import type { IngestMetadata } from './schema';
import { cleanText, truncateHeadTail } from './text';
import { capChars } from '../../common/text';
import type { Tx } from '../db';

// Stores one failing revision of a change: the change (upserted by its CI
// id), the revision (by head revision) and its failures (by test id), all in
// one transaction, so a request that fails stores nothing.
//
// Concurrency: every write for one change happens under a transaction-scoped
// advisory lock on (repository, external id). Duplicate posts of the same
// revision (CI retries, parallel shards) therefore run one after the other and
// the later ones find the rows the first one wrote: exactly one change,
// revision and failure set. The unique constraints stay the last line of
// defence; a violation or a serialisation failure is retried.

export interface IngestResult {
  changeId: string;
  revisionId: string;
  revisionNumber: number;
  /** failures stored on this revision after the request */
  failures: number;
  /** true when this request created the revision (201), false for a repost (200) */
  created: boolean;
  /** true when the revision is not the change's current one (a late report of an older revision) */
  superseded: boolean;
  /** failures beyond the per-revision cap that were not stored */
  droppedFailures: number;
  /**
   * The failing tests this upload named, in its order: the first
   * ANSWER_TESTS, each message cut at ANSWER_MESSAGE_CHARS (the answer stays
   * small however many tests failed; the change's page has them whole).
   */
  failingTests: Array<{ testId: string; message: string }>;
  /** failing tests of this upload beyond failingTests */
  failingTestsNotListed: number;
}

/** What storing a revision decides; the answer adds what the upload itself said. */
type StoredRevision = Omit<IngestResult, 'droppedFailures' | 'failingTests' | 'failingTestsNotListed'>;

// enough for a CI log to show what failed at a glance
const ANSWER_TESTS = 100;
const ANSWER_MESSAGE_CHARS = 1_000;

export interface IngestLimits {
  maxLogBytes: number;
}

/**
 * Who reports: a CI token (POST /api/v1/failures), or a code host's webhook
 * delivery for the repository it is linked to (lib/code-review/process.ts).
 */
export type IngestReporter = { token: TokenPrincipal } | { host: { hostId: string; repositoryId: string; deliveryId: string } };

function reporterCovers(reporter: IngestReporter, repositoryId: string): boolean {
  return 'token' in reporter ? tokenCoversRepository(reporter.token, repositoryId) : reporter.host.repositoryId === repositoryId;
}

// first key of the two-key advisory lock: keeps our locks apart from other users of hashtext keys
const CHANGE_LOCK_NAMESPACE = 0x66667831; // "ffx1"
const MAX_ATTEMPTS = 5;

/** Ingests an upload on behalf of a CI token or a code host. Throws AppError for every refusal. */
export async function ingestFailureReport({
  db,
  upload,
  limits,
  ...reporter
}: {
  db: PrismaClient;
  upload: IngestUpload;
  limits: IngestLimits;
} & IngestReporter): Promise<IngestResult> {
  const { metadata } = upload;
  const repository = await db.repository.findUnique({ where: { name: metadata.repository } });
  // unknown, archived and out of the token's scope answer alike: a different
  // status or message would tell a token which repository names exist
  if (!repository || repository.archivedAt || !reporterCovers(reporter, repository.id)) {
    throw new AppError('not_found', `No repository "${metadata.repository}" this CI token may report to`);
  }

  // parse outside the transaction: it is CPU work and may refuse the upload (400)
  const collected = collectFailures({ junitReports: upload.junitReports, tests: metadata.tests });
  if (collected.failures.length === 0) {
    throw new AppError(
      'validation',
      collected.testsSeen === 0
        ? 'Nothing failed: the upload holds no test results'
        : `Nothing failed: none of the ${collected.testsSeen} tests in the upload failed`,
      { details: { testsSeen: collected.testsSeen } },
    );
  }
  const log = truncateHeadTail({ text: cleanText(upload.log ?? ''), maxBytes: limits.maxLogBytes });

  const stored = await withRetry(() =>
    writeTx(
      (tx, written) =>
        storeRevision({
          tx,
          written,
          repositoryId: repository.id,
          metadata,
          failures: collected.failures,
          reports: collected.reports,
          log,
          reporter,
        }),
      // duplicates queue behind the advisory lock: give them room to wait
      { db, maxWait: 15_000, timeout: 30_000 },
    ),
  );
  // After the commit, never inside it: the pre-execution filters and the run
  // queue read what this transaction stored (and the worker is another process).
  if (stored.created && !stored.superseded) await triageStoredRevision({ changeId: stored.changeId, revisionId: stored.revisionId });
  const listed = collected.failures.slice(0, ANSWER_TESTS);
  return {
    ...stored,
    droppedFailures: collected.droppedFailures,
    failingTests: listed.map((f) => ({ testId: f.testId, message: capChars(f.message, ANSWER_MESSAGE_CHARS) })),
    failingTestsNotListed: collected.failures.length - listed.length,
  };
}

/**
 * A new current revision was stored: triage it (pre-execution filters, then
 * SKIPPED or an AUTO run on the queue). Called here, by every process that
 * ingests, so no process can store a failure that is never triaged.
 */
async function triageStoredRevision(input: { changeId: string; revisionId: string }): Promise<void> {
  try {
    await triageNewRevision(input);
  } catch (err) {
    // the failure is stored; a run can still be started by hand
    console.error(`flowfix: could not triage revision ${input.revisionId} of change ${input.changeId}`, err);
  }
}

function isRetryable(err: unknown): boolean {
  if (isUniqueViolation(err)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'P2034') return true; // write conflict or deadlock, per Prisma
  // serialization_failure / deadlock_detected surfacing through the driver adapter
  return /\b(40001|40P01)\b/.test(String((err as Error | null)?.message ?? ''));
}

async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(err)) throw err;
      await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
    }
  }
}

interface RevisionMeta {
  files?: number;
  additions?: number;
  deletions?: number;
  headCommittedAt?: string;
}

function revisionMeta(metadata: IngestMetadata): RevisionMeta {
  return { ...(metadata.diffStat ?? {}), ...(metadata.headCommittedAt ? { headCommittedAt: metadata.headCommittedAt } : {}) };
}

function committedAtOf(diffStat: Prisma.JsonValue): number | undefined {
  if (diffStat === null || typeof diffStat !== 'object' || Array.isArray(diffStat)) return undefined;
  const value = (diffStat as Record<string, unknown>).headCommittedAt;
  const time = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(time) ? time : undefined;
}

/** Change columns that describe the change itself (not its latest revision). */
function changeDescription(metadata: IngestMetadata) {
  const c = metadata.change;
  return {
    title: c.title,
    description: c.description,
    author: c.author,
    authorEmail: c.authorEmail ?? null,
    authorKind: inferAuthorKind({ author: c.author, authorEmail: c.authorEmail, declared: c.authorKind }),
    url: c.url ?? null,
    ...(c.draft !== undefined ? { draft: c.draft } : {}),
  };
}

/** Change columns denormalised from its current revision, for the triage list. */
function currentRevisionColumns({
  metadata,
  revisionNumber,
  failingTestCount,
  now,
}: {
  metadata: IngestMetadata;
  revisionNumber: number;
  failingTestCount: number;
  now: Date;
}) {
  const stat = metadata.diffStat;
  return {
    branch: metadata.change.branch,
    baseRev: metadata.baseRev,
    headRev: metadata.headRev,
    revisionNumber,
    failingTestCount,
    filesChanged: stat?.files ?? 0,
    linesChanged: stat ? stat.additions + stat.deletions : 0,
    lastFailureAt: now,
  };
}

async function lockChange({ tx, repositoryId, externalId }: { tx: Tx; repositoryId: string; externalId: string }) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${CHANGE_LOCK_NAMESPACE}::int4, hashtext(${`${repositoryId}\u0001${externalId}`}))`;
}

async function insertFailures({
  tx,
  changeId,
  revisionId,
  failures,
  ciUrl,
}: {
  tx: Tx;
  changeId: string;
  revisionId: string;
  failures: FailureDraft[];
  ciUrl?: string;
}): Promise<number> {
  const { count } = await tx.failure.createMany({
    data: failures.map((f) => ({ ...f, problems: f.problems as unknown as Prisma.InputJsonValue, changeId, revisionId, ciUrl: ciUrl ?? null })),
    // a repost may add tests another shard did not report; existing ones stay as first stored
    skipDuplicates: true,
  });
  return count;
}

async function storeRevision({
  tx,
  written,
  repositoryId,
  metadata,
  failures,
  reports,
  log,
  reporter,
}: {
  tx: Tx;
  written: WriteLog;
  repositoryId: string;
  metadata: IngestMetadata;
  failures: FailureDraft[];
  reports: CollectedFailures['reports'];
  log: { text: string; truncatedBytes: number };
  reporter: IngestReporter;
}): Promise<StoredRevision> {
  const externalId = metadata.change.externalId;
  await lockChange({ tx, repositoryId, externalId });
  const now = new Date();
  const origin = metadata.origin === 'cli' ? 'CLI' : 'CI';
  const revisionData = {
    baseRev: metadata.baseRev,
    headRev: metadata.headRev,
    branch: metadata.change.branch,
    ciLog: log.text,
    logTruncatedBytes: log.truncatedBytes,
    ciUrl: metadata.ciUrl ?? null,
    diffStat: revisionMeta(metadata) as Prisma.InputJsonValue,
  };

  const change = await tx.change.findUnique({ where: { repositoryId_externalId: { repositoryId, externalId } } });

  let result: StoredRevision;
  if (!change) {
    const created = await tx.change.create({
      data: {
        repositoryId,
        externalId,
        origin,
        status: ChangeStatus.NEW,
        ...changeDescription(metadata),
        ...currentRevisionColumns({ metadata, revisionNumber: 1, failingTestCount: failures.length, now }),
      },
    });
    const revision = await tx.changeRevision.create({ data: { changeId: created.id, number: 1, ...revisionData } });
    const count = await insertFailures({ tx, changeId: created.id, revisionId: revision.id, failures, ciUrl: metadata.ciUrl });
    result = { changeId: created.id, revisionId: revision.id, revisionNumber: 1, failures: count, created: true, superseded: false };
  } else {
    const existing = await tx.changeRevision.findUnique({
      where: { changeId_headRev: { changeId: change.id, headRev: metadata.headRev } },
    });
    result = existing
      ? await repostRevision({ tx, change, revision: existing, metadata, failures, log, now })
      : await addRevision({ tx, change, metadata, failures, revisionData, now });
  }

  if (reports.length > 0) {
    await tx.testReport.createMany({
      data: reports.map(({ digest, counts }) => ({ revisionId: result.revisionId, digest, ...counts })),
      // the same report posted again (a CI retry) is counted once
      skipDuplicates: true,
    });
  }

  await writeAudit(
    {
      actorKind: 'token' in reporter ? 'token' : 'system',
      action: 'failure.ingest',
      targetType: 'change',
      targetId: result.changeId,
      data: {
        ...('token' in reporter ? { tokenId: reporter.token.tokenId } : { hostId: reporter.host.hostId, deliveryId: reporter.host.deliveryId }),
        revisionId: result.revisionId,
        headRev: metadata.headRev,
        created: result.created,
        failures: result.failures,
      },
    },
    tx,
  );
  // a new change, a revision that supersedes another, a skipped change back
  // to NEW, or an author kind that moved the change to another slice
  written.wrote('change', { changeId: result.changeId });
  if (change) written.moved(cohortSliceOf(change));
  return result;
}

type ChangeRow = Prisma.ChangeGetPayload<object>;
type RevisionRow = Prisma.ChangeRevisionGetPayload<object>;

/** The same head revision again: store only what is new (tests another shard reported, a missing log). */
async function repostRevision({
  tx,
  change,
  revision,
  metadata,
  failures,
  log,
  now,
}: {
  tx: Tx;
  change: ChangeRow;
  revision: RevisionRow;
  metadata: IngestMetadata;
  failures: FailureDraft[];
  log: { text: string; truncatedBytes: number };
  now: Date;
}): Promise<StoredRevision> {
  const added = await insertFailures({ tx, changeId: change.id, revisionId: revision.id, failures, ciUrl: metadata.ciUrl });
  if (revision.ciLog === '' && log.text !== '') {
    await tx.changeRevision.update({
      where: { id: revision.id },
      data: { ciLog: log.text, logTruncatedBytes: log.truncatedBytes },
    });
  }
  const total = await tx.failure.count({ where: { revisionId: revision.id } });
  const current = revision.supersededAt === null && change.headRev === revision.headRev;
  if (current) {
    await tx.change.update({
      where: { id: change.id },
      data: {
        ...changeDescription(metadata),
        ...(added > 0 ? { failingTestCount: total, lastFailureAt: now } : {}),
      },
    });
  }
  return {
    changeId: change.id,
    revisionId: revision.id,
    revisionNumber: revision.number,
    failures: total,
    created: false,
    superseded: !current,
  };
}

/**
 * A head revision not seen before. Normally it is newer: it becomes the
 * change's current revision and the older revisions' pending work goes stale.
 * When both carry a commit time and it is older than the current revision's,
 * it is a late report: stored, but already superseded, and the change keeps
 * its current revision and status.
 */
async function addRevision({
  tx,
  change,
  metadata,
  failures,
  revisionData,
  now,
}: {
  tx: Tx;
  change: ChangeRow;
  metadata: IngestMetadata;
  failures: FailureDraft[];
  revisionData: Omit<Prisma.ChangeRevisionUncheckedCreateInput, 'changeId' | 'number'>;
  now: Date;
}): Promise<StoredRevision> {
  const [last, current] = await Promise.all([
    tx.changeRevision.findFirst({ where: { changeId: change.id }, orderBy: { number: 'desc' }, select: { number: true } }),
    tx.changeRevision.findUnique({
      where: { changeId_headRev: { changeId: change.id, headRev: change.headRev } },
      select: { diffStat: true },
    }),
  ]);
  const number = (last?.number ?? 0) + 1;
  const incomingTime = metadata.headCommittedAt ? Date.parse(metadata.headCommittedAt) : undefined;
  const currentTime = current ? committedAtOf(current.diffStat) : undefined;
  const late = incomingTime !== undefined && currentTime !== undefined && incomingTime < currentTime;

  const revision = await tx.changeRevision.create({
    data: { ...revisionData, changeId: change.id, number, supersededAt: late ? now : null },
  });
  const count = await insertFailures({ tx, changeId: change.id, revisionId: revision.id, failures, ciUrl: metadata.ciUrl });
  if (!late) {
    await supersedeOlderRevisions({ tx, changeId: change.id, currentRevisionId: revision.id, now });
    await tx.change.update({
      where: { id: change.id },
      data: {
        ...changeDescription(metadata),
        ...currentRevisionColumns({ metadata, revisionNumber: number, failingTestCount: count, now }),
        status: ChangeStatus.NEW,
        statusReason: null,
      },
    });
  }
  return { changeId: change.id, revisionId: revision.id, revisionNumber: number, failures: count, created: true, superseded: late };
}

/** Marks every other revision superseded, asks their active runs to cancel and stales their ready fixes. */
async function supersedeOlderRevisions({
  tx,
  changeId,
  currentRevisionId,
  now,
}: {
  tx: Tx;
  changeId: string;
  currentRevisionId: string;
  now: Date;
}): Promise<void> {
  const older = { changeId, revisionId: { not: currentRevisionId } };
  await tx.changeRevision.updateMany({
    where: { changeId, id: { not: currentRevisionId }, supersededAt: null },
    data: { supersededAt: now },
  });
  // the worker turns cancelRequestedAt into an abort; we never flip a run's status from here
  await tx.run.updateMany({
    where: { ...older, status: { in: [RunStatus.QUEUED, RunStatus.RUNNING] }, cancelRequestedAt: null },
    data: { cancelRequestedAt: now },
  });
  await tx.fix.updateMany({ where: { ...older, status: FixStatus.READY }, data: { status: FixStatus.STALE } });
}
