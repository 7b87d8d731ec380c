import 'server-only';
import type { CodeHost, CodeHostRepository } from '../generated/prisma/client';
import { getDb } from '../db';
import { getEnv } from '../env';
import { AppError } from '../errors';
import { ingestFailureReport } from '../ingest/ingest-failure';
import { IngestMetadataSchema, type TestInput } from '../ingest/schema';
import { cleanText } from '../ingest/text';
import { gitlabClient, hostErrorStatus, type GitLabClient } from '../hosts/clients';
import type { ProcessOutcome } from '../hosts/schemas';
import { endPendingWork, recordDraftState, repairWhenReady, staleOlderHeads } from './pull-requests';
import { recordForkWritability } from '../hosts/fork-writability';
import { processGitLabNote } from './commands';

// GitLab deliveries → flowfix. A failed merge-request pipeline: the
// pipeline's test report (what `artifacts:reports:junit` feeds GitLab's own
// parser) as the failing tests and the failed jobs' logs, ingested through
// lib/ingest; a failed job is followed to its pipeline once that has finished.
// Merge-request events keep the change's revisions right.

type Payload = Record<string, unknown>;
type Link = CodeHostRepository & { repository: { name: string } };

interface PipelineAttrs {
  id: number;
  status: string;
  sha: string;
  url?: string;
}

export async function processGitLabDelivery({
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
  const api = gitlabClient(host);
  switch (event) {
    case 'Pipeline Hook': {
      const pipeline = payload.object_attributes as PipelineAttrs;
      const mr = payload.merge_request as { iid: number } | null | undefined;
      if (pipeline.status !== 'failed') return { status: 'IGNORED', detail: `pipeline ${pipeline.id} ${pipeline.status}` };
      if (!mr) return { status: 'IGNORED', detail: `pipeline ${pipeline.id} is not a merge request's pipeline` };
      return ingestPipeline({ api, link, pipelineId: pipeline.id, sha: pipeline.sha, mrIid: mr.iid, deliveryId });
    }
    case 'Job Hook': {
      if (payload.build_status !== 'failed') return { status: 'IGNORED', detail: `job ${String(payload.build_id)} ${String(payload.build_status)}` };
      const pipelineId = Number((payload.pipeline_id as number | undefined) ?? (payload.commit as { id?: number } | undefined)?.id);
      const pipeline = await api.Pipelines.show(link.externalId, pipelineId);
      if (pipeline.status !== 'failed')
        return { status: 'IGNORED', detail: `job failed; pipeline ${pipelineId} is ${String(pipeline.status)}, its own hook reports it when it ends` };
      const mrs = await api.Commits.allMergeRequests(link.externalId, String(pipeline.sha));
      const mr = mrs.find((m) => m.state === 'opened');
      if (!mr) return { status: 'IGNORED', detail: `pipeline ${pipelineId} belongs to no open merge request` };
      return ingestPipeline({ api, link, pipelineId, sha: String(pipeline.sha), mrIid: mr.iid, deliveryId });
    }
    case 'Merge Request Hook': {
      const attrs = payload.object_attributes as {
        iid: number;
        action?: string;
        oldrev?: string;
        last_commit?: { id: string };
        draft?: boolean;
        work_in_progress?: boolean;
      };
      const externalId = String(attrs.iid);
      // `draft` since GitLab 13.x; older hooks say work_in_progress
      const isDraft = typeof attrs.draft === 'boolean' ? attrs.draft : typeof attrs.work_in_progress === 'boolean' ? attrs.work_in_progress : undefined;
      const draft = isDraft === undefined ? 'unknown' : await recordDraftState({ repositoryId: link.repositoryId, externalId, draft: isDraft });
      if (attrs.action === 'update' && attrs.oldrev && attrs.last_commit) {
        const n = await staleOlderHeads({
          repositoryId: link.repositoryId,
          externalId,
          headRev: attrs.last_commit.id,
          why: `new commits pushed (${attrs.last_commit.id.slice(0, 12)})`,
        });
        return { status: 'PROCESSED', detail: `merge request !${attrs.iid} updated: ${n} pending fix(es) made stale` };
      }
      if (attrs.action === 'close' || attrs.action === 'merge') {
        const n = await endPendingWork({
          repositoryId: link.repositoryId,
          externalId,
          why: attrs.action === 'merge' ? 'the merge request was merged' : 'the merge request was closed',
        });
        return { status: 'PROCESSED', detail: `merge request !${attrs.iid} ${attrs.action}d: ${n} pending fix(es) ended` };
      }
      if (draft === 'left') {
        const what = await repairWhenReady({ repositoryId: link.repositoryId, externalId, headRev: attrs.last_commit?.id ?? null });
        return { status: 'PROCESSED', detail: `merge request !${attrs.iid} ready for review: ${what}` };
      }
      if (draft === 'entered')
        return { status: 'PROCESSED', detail: `merge request !${attrs.iid} marked as draft: its next failures are skipped by the draft filter` };
      return { status: 'IGNORED', detail: `merge request ${attrs.action ?? 'event'}` };
    }
    case 'Note Hook':
      return processGitLabNote({ host, link, payload });
    default:
      return { status: 'IGNORED', detail: `flowfix does not act on ${event} events` };
  }
}

/** The fork holding the merge request's branch when flowfix may not push there (lib/hosts/fork.ts); null otherwise. */
async function forkNotWritable(
  api: GitLabClient,
  mr: { source_project_id?: unknown; target_project_id?: unknown; allow_collaboration?: unknown },
): Promise<string | null> {
  if (mr.source_project_id === mr.target_project_id || mr.allow_collaboration) return null;
  try {
    return String((await api.Projects.show(Number(mr.source_project_id))).path_with_namespace);
  } catch (err) {
    // a private fork the token cannot see is not writable either; its name is unknown
    if (hostErrorStatus(err) === 404) return `project ${String(mr.source_project_id)}`;
    throw err;
  }
}

async function ingestPipeline({
  api,
  link,
  pipelineId,
  sha,
  mrIid,
  deliveryId,
}: {
  api: GitLabClient;
  link: Link;
  pipelineId: number;
  sha: string;
  mrIid: number;
  deliveryId: string;
}): Promise<ProcessOutcome> {
  const report = await api.Pipelines.showTestReport(link.externalId, pipelineId);
  const tests: TestInput[] = [];
  for (const suite of report.test_suites ?? []) {
    for (const c of suite.test_cases ?? []) {
      if (c.status !== 'failed' && c.status !== 'error') continue;
      const output = c.system_output ?? '';
      tests.push({
        name: c.name,
        classname: c.classname || suite.name,
        ...((c as { file?: string }).file ? { file: (c as { file?: string }).file } : {}),
        message: output.split('\n')[0]?.slice(0, 2000) ?? '',
        details: [c.stack_trace, output].filter(Boolean).join('\n'),
        durationMs: Math.round((c.execution_time ?? 0) * 1000),
        kind: c.status === 'error' ? 'error' : 'failure',
      });
    }
  }
  if (tests.length === 0) {
    return {
      status: 'IGNORED',
      detail: `pipeline ${pipelineId}: its test report lists no failed test (is artifacts:reports:junit set?); report from CI with flowfix report instead`,
    };
  }
  const mr = await api.MergeRequests.show(link.externalId, mrIid);
  const jobs = await api.Jobs.all(link.externalId, { pipelineId, scope: 'failed' });
  const logs: string[] = [];
  for (const job of jobs) {
    const trace = await api.Jobs.showLog(link.externalId, job.id);
    logs.push(`=== ${job.name} (job ${job.id}) ===\n${String(trace)}`);
  }
  const diffRefs = mr.diff_refs as { base_sha?: string } | undefined;
  const metadata = IngestMetadataSchema.parse({
    repository: link.repository.name,
    change: {
      externalId: String(mrIid),
      title: String(mr.title),
      description: String(mr.description ?? ''),
      author: String((mr.author as { username?: string } | undefined)?.username ?? 'unknown'),
      branch: String(mr.source_branch),
      url: String(mr.web_url),
      draft: Boolean(mr.draft ?? mr.work_in_progress),
    },
    baseRev: diffRefs?.base_sha ?? String(mr.sha),
    headRev: sha,
    tests,
    ciUrl: `${String(mr.web_url).replace(/\/-\/merge_requests\/\d+$/, '')}/-/pipelines/${pipelineId}`,
    origin: 'ci',
  });
  try {
    const env = getEnv();
    const result = await ingestFailureReport({
      db: getDb(),
      host: { hostId: link.hostId, repositoryId: link.repositoryId, deliveryId },
      upload: { metadata, junitReports: [], log: cleanText(logs.join('\n\n')) },
      limits: { maxLogBytes: env.FLOWFIX_MAX_LOG_BYTES },
    });
    // ingestion and the fork's writability queue the merge request's sync themselves (lib/writes.ts)
    await recordForkWritability({ changeId: result.changeId, forkNotWritable: await forkNotWritable(api, mr) });
    return { status: 'PROCESSED', detail: `pipeline ${pipelineId}: ${result.failures} failure(s) on revision ${result.revisionNumber} of !${mrIid}` };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return { status: 'IGNORED', detail: `pipeline ${pipelineId}: ${err.message}` };
    throw err;
  }
}
