import { z } from 'zod';
import { getDb } from '../db';
import { addJunitCounts, type JunitCounts } from '../junit/parse';
import { AppError } from '../errors';
import { FIX_VIEW_INCLUDE, OWN_FIXES, toFixView, type FixView } from '../fixes/views';
import { latestRevalidations } from '../fixes/queries';
// A pure function over text (no I/O, no state): the same reading of assertion
// messages the agent uses, so the page and the agent never disagree.
import { parseExpectedActual } from '../../common/test-results';

// Everything the change page shows, in one read: the change, its latest
// revision's failures and log, the runs, and the fixes. Text from CI (test
// names, messages, logs) is returned as plain strings; the page renders it as
// text, never as HTML.

export interface FailureView {
  id: string;
  testId: string;
  testName: string;
  suite: string | null;
  file: string | null;
  line: number | null;
  kind: string;
  message: string;
  /** every <failure> and <error> of the test case, in order (a case may have both) */
  problems: Array<{ kind: 'failure' | 'error'; message?: string }>;
  logExcerpt: string;
  durationMs: number | null;
  ciUrl: string | null;
  expectedActual: { expected: string; actual: string; operator: string | null } | null;
}

export interface RunView {
  id: string;
  status: string;
  trigger: string;
  policy: string;
  model: string | null;
  exitReason: string | null;
  exitDetail: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  toolCalls: number;
  tokens: number;
  /** null: unknown (a model call had no price) */
  costUsd: number | null;
  revisionNumber: number;
  requestedBy: string | null;
  fixId: string | null;
}

export interface ChangeDetail {
  change: {
    id: string;
    title: string;
    description: string;
    externalId: string;
    author: string;
    authorEmail: string | null;
    authorKind: 'HUMAN' | 'BOT';
    branch: string;
    url: string | null;
    status: string;
    statusReason: string | null;
    revisionNumber: number;
    baseRev: string;
    headRev: string;
    failingTestCount: number;
    lastFailureAt: string;
    isHistory: boolean;
    repository: { id: string; name: string };
  };
  revision: {
    id: string;
    number: number;
    headRev: string;
    ciUrl: string | null;
    ciLog: string;
    logTruncatedBytes: number;
    createdAt: string;
  } | null;
  failures: FailureView[];
  /** the whole reports' counts for the revision whose failures are shown; null when CI sent no JUnit report */
  testCounts: TestCountsView | null;
  runs: RunView[];
  /** newest first */
  fixes: FixView[];
}

/** A revision's JUnit reports added up */
export interface TestCountsView extends JunitCounts {
  /** how many reports the counts add up */
  reports: number;
}

const MAX_RUNS = 50;
const FAILURE_REVISION_INCLUDE = {
  failures: { orderBy: [{ kind: 'asc' as const }, { testId: 'asc' as const }] },
  testReports: true,
};
const MAX_FIXES = 20;

export async function getChangeDetail({ id }: { id: string }): Promise<ChangeDetail> {
  const db = getDb();
  const change = await db.change.findUnique({
    where: { id },
    include: { repository: { select: { id: true, name: true } } },
  });
  if (!change) throw new AppError('not_found', 'No such change');

  const [revision, runs, fixes] = await Promise.all([
    db.changeRevision.findFirst({
      where: { changeId: id },
      orderBy: { number: 'desc' },
      include: FAILURE_REVISION_INCLUDE,
    }),
    db.run.findMany({
      where: { changeId: id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: MAX_RUNS,
      include: {
        revision: { select: { number: true } },
        requestedBy: { select: { name: true } },
        fix: { select: { id: true } },
      },
    }),
    db.fix.findMany({
      where: { changeId: id, ...OWN_FIXES },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: MAX_FIXES,
      include: FIX_VIEW_INCLUDE,
    }),
  ]);

  const revalidations = await latestRevalidations({ fixIds: fixes.map((f) => f.id) });

  // The failures of the revision the latest report is about; an "all passed"
  // newer revision (a stale fix's change) still shows the failures it replaced.
  const failureRevision =
    revision && revision.failures.length === 0
      ? await db.changeRevision.findFirst({
          where: { changeId: id, failures: { some: {} } },
          orderBy: { number: 'desc' },
          include: FAILURE_REVISION_INCLUDE,
        })
      : revision;
  const reports = failureRevision?.testReports ?? [];

  return {
    change: {
      id: change.id,
      title: change.title,
      description: change.description,
      externalId: change.externalId,
      author: change.author,
      authorEmail: change.authorEmail,
      authorKind: change.authorKind,
      branch: change.branch,
      url: change.url,
      status: change.status,
      statusReason: change.statusReason,
      revisionNumber: change.revisionNumber,
      baseRev: change.baseRev,
      headRev: change.headRev,
      failingTestCount: change.failingTestCount,
      lastFailureAt: change.lastFailureAt.toISOString(),
      isHistory: change.origin === 'DEMO_HISTORY',
      repository: change.repository,
    },
    revision: revision
      ? {
          id: revision.id,
          number: revision.number,
          headRev: revision.headRev,
          ciUrl: revision.ciUrl,
          ciLog: revision.ciLog,
          logTruncatedBytes: revision.logTruncatedBytes,
          createdAt: revision.createdAt.toISOString(),
        }
      : null,
    failures: (failureRevision?.failures ?? []).map(toFailureView),
    testCounts: reports.length === 0 ? null : { reports: reports.length, ...addJunitCounts(reports) },
    runs: runs.map((r) => ({
      id: r.id,
      status: r.status,
      trigger: r.trigger,
      policy: r.policy,
      model: r.model,
      exitReason: r.exitReason,
      exitDetail: r.exitDetail,
      createdAt: r.createdAt.toISOString(),
      startedAt: r.startedAt?.toISOString() ?? null,
      finishedAt: r.finishedAt?.toISOString() ?? null,
      durationMs: r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
      toolCalls: r.toolCalls,
      tokens: r.promptTokens + r.completionTokens,
      costUsd: r.costUsd,
      revisionNumber: r.revision.number,
      requestedBy: r.requestedBy?.name ?? null,
      fixId: r.fix?.id ?? null,
    })),
    fixes: fixes.map((f) => toFixView(f, revalidations.get(f.id) ?? null)),
  };
}

/** A stored failure as the pages show it (the change page, the grading page). */
export function toFailureView(f: {
  id: string;
  testId: string;
  testName: string;
  suite: string | null;
  file: string | null;
  line: number | null;
  kind: string;
  message: string;
  problems: unknown;
  logExcerpt: string;
  durationMs: number | null;
  ciUrl: string | null;
}): FailureView {
  const ea = parseExpectedActual(f.testId, `${f.message}\n${f.logExcerpt}`);
  return {
    id: f.id,
    testId: f.testId,
    testName: f.testName,
    suite: f.suite,
    file: f.file,
    line: f.line,
    kind: f.kind,
    message: f.message,
    problems: ProblemsSchema.parse(f.problems),
    logExcerpt: f.logExcerpt,
    durationMs: f.durationMs,
    ciUrl: f.ciUrl,
    expectedActual: ea ? { expected: ea.expected, actual: ea.actual, operator: ea.operator ?? null } : null,
  };
}

// the JSON column as ingestion stores it; rows from before it existed, or anything unreadable, read as []
const ProblemsSchema = z.array(z.object({ kind: z.enum(['failure', 'error']), message: z.string().optional() })).catch([]);
