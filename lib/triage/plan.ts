import { getDb } from '../db';
import { AppError } from '../errors';
import { repairTargets, runPreFilters, type PreFilterDecision } from './pre-filters';
import { ModelSettingsSchema, resolveEffectiveSettings, type FilterPolicy, type ModelSettings, type RepositorySettings } from '../../common/settings';
import { readFlowfixFileAtRevision } from '../repositories/flowfix-file';

// The plan of a revision's repair: what triage decides on before queueing a
// run and what the worker builds the run from. One function for both, so the
// settings a run uses (the admin's over `.flowfix.json` at the base revision)
// and the tests it targets are the ones triage filtered on.

export interface RevisionRepairPlan {
  /** where the server clones from: a local path when the git URL is one */
  source: { repoPath: string } | { gitUrl: string };
  baseRev: string;
  headRev: string;
  settings: RepositorySettings;
  filterPolicy: FilterPolicy;
  modelSettings: ModelSettings;
  /** `.flowfix.json` problems that were ignored */
  warnings: string[];
  /** the failing tests a run repairs: known-flaky ones left out when the policy says so and others remain */
  targets: string[];
  /** the pre-execution filters' verdict; triage follows it, a run started by hand does not */
  decision: PreFilterDecision;
}

/** A local path the server can clone from (not a URL). */
export function localRepoPath(gitUrl: string): string | undefined {
  if (gitUrl.startsWith('file://')) return gitUrl.slice('file://'.length);
  return gitUrl.startsWith('/') ? gitUrl : undefined;
}

export async function planRevisionRepair({ revisionId }: { revisionId: string }): Promise<RevisionRepairPlan> {
  const revision = await getDb().changeRevision.findUnique({
    where: { id: revisionId },
    include: {
      failures: { select: { testId: true }, orderBy: { testId: 'asc' } },
      change: { include: { repository: { include: { flakyTests: { select: { testId: true } } } } } },
    },
  });
  if (!revision) throw new AppError('not_found', `Revision ${revisionId} not found`);
  const { change } = revision;
  const repo = change.repository;
  const repoPath = localRepoPath(repo.gitUrl);
  const flowfixFileText = repoPath ? await readFlowfixFileAtRevision({ repoPath, rev: revision.baseRev }) : null;
  const effective = resolveEffectiveSettings({ adminSettings: repo.settings, adminFilterPolicy: repo.filterPolicy, flowfixFileText });
  const failingTests = revision.failures.map((f) => f.testId);
  const knownFlaky = repo.flakyTests.map((t) => t.testId);
  const decision = runPreFilters({
    policy: effective.filterPolicy,
    change: {
      author: change.author,
      authorEmail: change.authorEmail,
      authorKind: change.authorKind,
      draft: change.draft,
      filesChanged: change.filesChanged,
      language: effective.settings.language ?? repo.language,
      headRev: revision.headRev,
      latestHeadRev: change.headRev,
    },
    failingTests,
    knownFlaky,
  });
  return {
    source: repoPath ? { repoPath } : { gitUrl: repo.gitUrl },
    baseRev: revision.baseRev,
    headRev: revision.headRev,
    settings: effective.settings,
    filterPolicy: effective.filterPolicy,
    modelSettings: ModelSettingsSchema.parse(repo.modelSettings ?? {}),
    warnings: effective.warnings,
    targets: repairTargets({ failingTests, knownFlaky, dropKnownFlaky: effective.filterPolicy.pre.knownFlaky }),
    decision,
  };
}
