import 'server-only';
import type { ProcessOutcome } from '../hosts/schemas';
import type { CodeHost, CodeHostRepository } from '../generated/prisma/client';
import { getDb } from '../db';
import { getEnv } from '../env';
import { AppError } from '../errors';
import type { IngestUpload } from '../ingest/body';
import { ingestFailureReport } from '../ingest/ingest-failure';
import { IngestMetadataSchema } from '../ingest/schema';
import { cleanText } from '../ingest/text';
import { githubInstallationClient, type GitHubClient } from '../hosts/clients';
import { endPendingWork, recordDraftState, repairWhenReady, staleOlderHeads } from './pull-requests';
import { recordForkWritability } from '../hosts/fork-writability';
import { processGitHubComment } from './commands';
import { globToRegExp, readZip, ZipError } from '../hosts/zip';

// GitHub deliveries → flowfix. A failed workflow run (or check suite) of a
// pull request: its JUnit artifacts (the link's artifact-name glob, the
// report files inside by the path glob) and its failed jobs' logs, ingested
// through lib/ingest like a report from CI. Pull-request events keep the
// change's revisions right.

type Payload = Record<string, unknown>;
type Link = CodeHostRepository & { repository: { name: string } };

interface WorkflowRunLike {
  id: number;
  head_sha: string;
  head_branch: string | null;
  conclusion: string | null;
  html_url: string;
  pull_requests: Array<{ number: number }> | null;
}

const FAILED = new Set(['failure', 'timed_out']);

function splitFullName(fullName: string): { owner: string; repo: string } {
  const [owner, repo] = fullName.split('/');
  return { owner, repo };
}

export async function processGitHubDelivery({
  host,
  link,
  event,
  payload,
  deliveryId,
}: {
  host: CodeHost;
  link: Link;
  event: string;
  payload: Payload;
  deliveryId: string;
}): Promise<ProcessOutcome> {
  const client = githubInstallationClient(host, link.installationId ?? '');
  switch (event) {
    case 'workflow_run': {
      const run = payload.workflow_run as WorkflowRunLike;
      if (payload.action !== 'completed' || !FAILED.has(run.conclusion ?? ''))
        return { status: 'IGNORED', detail: `workflow run ${payload.action as string} (${run.conclusion ?? 'no conclusion'})` };
      return ingestWorkflowRuns({ client, link, runs: [run], deliveryId });
    }
    case 'check_suite': {
      const suite = payload.check_suite as { id: number; conclusion: string | null; app?: { slug?: string } };
      if (payload.action !== 'completed' || !FAILED.has(suite.conclusion ?? ''))
        return { status: 'IGNORED', detail: `check suite ${payload.action as string} (${suite.conclusion ?? 'no conclusion'})` };
      const { owner, repo } = splitFullName(link.fullName);
      const { data } = await client.rest.actions.listWorkflowRunsForRepo({ owner, repo, check_suite_id: suite.id, per_page: 20 });
      const failed = data.workflow_runs.filter((r) => FAILED.has(r.conclusion ?? ''));
      if (failed.length === 0) return { status: 'IGNORED', detail: `check suite ${suite.id} has no failed GitHub Actions run` };
      return ingestWorkflowRuns({ client, link, runs: failed, deliveryId });
    }
    case 'pull_request': {
      const pr = payload.pull_request as { number: number; head: { sha: string }; merged?: boolean; draft?: boolean };
      const externalId = String(pr.number);
      const draft = typeof pr.draft === 'boolean' ? await recordDraftState({ repositoryId: link.repositoryId, externalId, draft: pr.draft }) : 'unknown';
      if (payload.action === 'synchronize') {
        const n = await staleOlderHeads({
          repositoryId: link.repositoryId,
          externalId,
          headRev: pr.head.sha,
          why: `new commits pushed (${pr.head.sha.slice(0, 12)})`,
        });
        return { status: 'PROCESSED', detail: `pull request #${pr.number} synchronized: ${n} pending fix(es) made stale` };
      }
      if (payload.action === 'closed') {
        const n = await endPendingWork({
          repositoryId: link.repositoryId,
          externalId,
          why: pr.merged ? 'the pull request was merged' : 'the pull request was closed',
        });
        return { status: 'PROCESSED', detail: `pull request #${pr.number} ${pr.merged ? 'merged' : 'closed'}: ${n} pending fix(es) ended` };
      }
      if (payload.action === 'ready_for_review' || draft === 'left') {
        const what = await repairWhenReady({ repositoryId: link.repositoryId, externalId, headRev: pr.head.sha });
        return { status: 'PROCESSED', detail: `pull request #${pr.number} ready for review: ${what}` };
      }
      if (draft === 'entered')
        return { status: 'PROCESSED', detail: `pull request #${pr.number} converted to draft: its next failures are skipped by the draft filter` };
      return { status: 'IGNORED', detail: `pull request ${payload.action as string}${draft === 'unknown' ? '' : ` (draft: ${String(pr.draft)}, ${draft})`}` };
    }
    case 'issue_comment':
      return processGitHubComment({ host, link, payload });
    default:
      return { status: 'IGNORED', detail: `flowfix does not act on ${event} events` };
  }
}

async function ingestWorkflowRuns({
  client,
  link,
  runs,
  deliveryId,
}: {
  client: GitHubClient;
  link: Link;
  runs: WorkflowRunLike[];
  deliveryId: string;
}): Promise<ProcessOutcome> {
  const details: string[] = [];
  let ingested = 0;
  for (const run of runs) {
    const number = run.pull_requests?.[0]?.number;
    if (number === undefined) {
      details.push(`run ${run.id}: not a pull request's run`);
      continue;
    }
    const evidence = await collectRunEvidence({ client, link, runId: run.id });
    details.push(...evidence.notes);
    if (evidence.junitReports.length === 0) {
      details.push(
        `run ${run.id}: no JUnit report found (artifacts named ${link.artifactName}, files ${link.junitGlob}); report from CI with flowfix report, or upload the reports as an artifact`,
      );
      continue;
    }
    const { upload, forkNotWritable } = await uploadFor({ client, link, run, number, evidence });
    try {
      const env = getEnv();
      const result = await ingestFailureReport({
        db: getDb(),
        host: { hostId: link.hostId, repositoryId: link.repositoryId, deliveryId },
        upload,
        limits: { maxLogBytes: env.FLOWFIX_MAX_LOG_BYTES },
      });
      ingested += 1;
      // ingestion and the fork's writability queue the pull request's sync themselves (lib/writes.ts)
      await recordForkWritability({ changeId: result.changeId, forkNotWritable });
      details.push(
        `run ${run.id}: ${result.failures} failure(s) on revision ${result.revisionNumber} of #${number}${result.created ? '' : ' (already known)'}`,
      );
    } catch (err) {
      // a report that holds no failure, or a refused one, is an answer, not a reason to retry
      if (err instanceof AppError && err.status < 500) details.push(`run ${run.id}: ${err.message}`);
      else throw err;
    }
  }
  return { status: ingested > 0 ? 'PROCESSED' : 'IGNORED', detail: details.join('\n') };
}

interface RunEvidence {
  junitReports: Uint8Array[];
  log: string;
  notes: string[];
}

/** The run's JUnit reports from its artifacts, and its failed jobs' logs. */
async function collectRunEvidence({ client, link, runId }: { client: GitHubClient; link: Link; runId: number }): Promise<RunEvidence> {
  const env = getEnv();
  const { owner, repo } = splitFullName(link.fullName);
  const nameMatches = globToRegExp(link.artifactName);
  const fileMatches = globToRegExp(link.junitGlob);
  const notes: string[] = [];
  const junitReports: Uint8Array[] = [];
  let budget = env.FLOWFIX_MAX_UPLOAD_BYTES;

  const artifacts = await client.paginate(client.rest.actions.listWorkflowRunArtifacts, { owner, repo, run_id: runId, per_page: 100 });
  for (const artifact of artifacts.filter((a) => nameMatches.test(a.name))) {
    if (artifact.expired) {
      notes.push(`artifact ${artifact.name}: expired`);
      continue;
    }
    if (artifact.size_in_bytes > budget) {
      notes.push(
        `artifact ${artifact.name}: ${artifact.size_in_bytes} bytes is over the ${env.FLOWFIX_MAX_UPLOAD_BYTES}-byte limit (FLOWFIX_MAX_UPLOAD_BYTES); not downloaded`,
      );
      continue;
    }
    const { data } = await client.rest.actions.downloadArtifact({ owner, repo, artifact_id: artifact.id, archive_format: 'zip' });
    const zip = Buffer.from(data as ArrayBuffer);
    if (zip.length > budget) {
      notes.push(`artifact ${artifact.name}: ${zip.length} bytes downloaded, over the limit; not read`);
      continue;
    }
    try {
      for (const entry of readZip(zip, { maxEntryBytes: budget })) {
        if (!fileMatches.test(entry.name)) continue;
        const bytes = entry.read();
        budget -= bytes.length;
        junitReports.push(bytes);
      }
    } catch (err) {
      if (!(err instanceof ZipError)) throw err;
      notes.push(`artifact ${artifact.name}: ${err.message}`);
    }
  }

  const jobs = await client.paginate(client.rest.actions.listJobsForWorkflowRun, { owner, repo, run_id: runId, filter: 'latest', per_page: 100 });
  const logs: string[] = [];
  for (const job of jobs.filter((j) => j.conclusion === 'failure' || j.conclusion === 'timed_out')) {
    const { data } = await client.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: job.id });
    const text = typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer).toString('utf8');
    logs.push(`=== ${job.name} (job ${job.id}) ===\n${text}`);
  }
  return { junitReports, log: cleanText(logs.join('\n\n')), notes };
}

/**
 * The report as /api/v1/failures would receive it, the change's description
 * from the pull request; and the fork holding its head when flowfix may not
 * push there (lib/hosts/fork.ts).
 */
async function uploadFor({
  client,
  link,
  run,
  number,
  evidence,
}: {
  client: GitHubClient;
  link: Link;
  run: WorkflowRunLike;
  number: number;
  evidence: RunEvidence;
}): Promise<{ upload: IngestUpload; forkNotWritable: string | null }> {
  const { owner, repo } = splitFullName(link.fullName);
  const { data: pr } = await client.rest.pulls.get({ owner, repo, pull_number: number });
  const metadata = IngestMetadataSchema.parse({
    repository: link.repository.name,
    change: {
      externalId: String(number),
      title: pr.title,
      description: pr.body ?? '',
      author: pr.user.login,
      authorKind: pr.user.type === 'Bot' ? 'bot' : 'human',
      branch: pr.head.ref,
      url: pr.html_url,
      // read now, not from the delivery: the draft filter decides on the state when the failure is triaged
      draft: pr.draft ?? false,
    },
    baseRev: pr.base.sha,
    // the run's commit, which is the pull request's head unless it moved since
    headRev: run.head_sha,
    ...(pr.additions !== undefined && pr.deletions !== undefined && pr.changed_files !== undefined
      ? { diffStat: { files: pr.changed_files, additions: pr.additions, deletions: pr.deletions } }
      : {}),
    ciUrl: run.html_url,
    origin: 'ci',
  });
  const head = pr.head.repo;
  const fromFork = !head || head.full_name !== link.fullName;
  const forkNotWritable = fromFork && !(head && pr.maintainer_can_modify) ? (head?.full_name ?? '(a deleted fork)') : null;
  return { upload: { metadata, junitReports: evidence.junitReports, log: evidence.log }, forkNotWritable };
}
