import { diffStatFromNumstat } from '../common/diffstat';
import { parseJunitXml } from '../lib/junit/parse';
import type { BuiltChange, BuiltRepo } from './build-repos';
import { demoGit } from './git';
import { runSuiteAt, type SuiteRun } from './run-tests';

// The demo's CI: for each demo change, run the repository's test suite at the
// change's head in a throw-away worktree, and post the real JUnit report and
// log to /api/v1/failures with the CI token, exactly as a CI step would.

export interface FailureReportBody {
  repository: string;
  change: {
    externalId: string;
    title: string;
    description: string;
    author: string;
    authorEmail: string;
    authorKind: 'human' | 'bot';
    branch: string;
  };
  baseRev: string;
  headRev: string;
  headCommittedAt: string;
  diffStat: { files: number; additions: number; deletions: number };
  junit: string;
  log: string;
}

export type CollectOutcome =
  | { kind: 'failing'; body: FailureReportBody; runs: number; failingTests: string[] }
  /** the suite passed every time (a flaky test that never failed within the bound) */
  | { kind: 'passing'; runs: number };

export interface ReportOutcome {
  repository: string;
  externalId: string;
  branch: string;
  /** HTTP status from the server, or undefined when nothing was posted */
  status?: number;
  response?: unknown;
  failingTests: string[];
  runs: number;
  note?: string;
}

type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

function failingIdsOf(run: SuiteRun): string[] {
  if (!run.junitXml) return [];
  return parseJunitXml(run.junitXml)
    .results.filter((r) => r.status === 'failed' || r.status === 'error')
    .map((r) => r.id);
}

function ciLog({ repo, change, run, attempt }: { repo: BuiltRepo; change: BuiltChange; run: SuiteRun; attempt: number }): string {
  const header = [
    `# flowfix demo CI: ${repo.spec.name} ${change.spec.branch} @ ${change.headSha}`,
    `$ ${run.command}`,
    attempt > 1 ? `# attempt ${attempt} (earlier attempts passed)` : undefined,
  ].filter(Boolean);
  return `${header.join('\n')}\n${run.log}\n# exit code ${run.exitCode} after ${run.durationMs} ms\n`;
}

/**
 * Runs the change's suite for real and builds the body CI would post. A
 * flaky change is rerun until it fails, at most `maxRuns` times: the report is
 * whatever that real failing run produced.
 */
export async function collectDemoReport({ repo, change, maxRuns = 20 }: { repo: BuiltRepo; change: BuiltChange; maxRuns?: number }): Promise<CollectOutcome> {
  const attempts = change.spec.flaky ? maxRuns : 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const run = await runSuiteAt({
      repoDir: repo.dir,
      rev: change.headSha,
      testCommand: repo.spec.testCommand,
      junitPath: repo.spec.junitPath,
    });
    const failingTests = failingIdsOf(run);
    if (failingTests.length === 0) continue;
    const { spec } = change;
    const body: FailureReportBody = {
      repository: repo.spec.name,
      change: {
        externalId: spec.externalId,
        title: spec.title,
        description: spec.description,
        author: spec.author.name,
        authorEmail: spec.author.email,
        authorKind: spec.authorKind === 'BOT' ? 'bot' : 'human',
        branch: spec.branch,
      },
      baseRev: change.baseSha,
      headRev: change.headSha,
      headCommittedAt: new Date(spec.date).toISOString(),
      diffStat: diffStatFromNumstat(await demoGit(repo.dir, ['diff', '--numstat', change.baseSha, change.headSha])),
      junit: run.junitXml,
      log: ciLog({ repo, change, run, attempt }),
    };
    return { kind: 'failing', body, runs: attempt, failingTests };
  }
  return { kind: 'passing', runs: attempts };
}

/** POSTs one report; retries network errors and 5xx a few times (the server may still be warming up). */
export async function postFailureReport({
  baseUrl,
  token,
  body,
  fetchImpl = fetch,
  retries = 3,
}: {
  baseUrl: string;
  token: string;
  body: FailureReportBody;
  fetchImpl?: FetchLike;
  retries?: number;
}): Promise<{ status: number; response: unknown }> {
  const url = new URL('/api/v1/failures', baseUrl).toString();
  let lastError: unknown;
  for (let attempt = 0; attempt <= retries; attempt++) {
    try {
      const res = await fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      let response: unknown = text;
      try {
        response = JSON.parse(text);
      } catch {
        // keep the text: an HTML error page says more than nothing
      }
      if (res.status < 500) return { status: res.status, response };
      lastError = new Error(`HTTP ${res.status}: ${text.slice(0, 500)}`);
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
  }
  throw new Error(`POST ${url} failed: ${(lastError as Error)?.message ?? lastError}`, { cause: lastError });
}

/** Runs and reports every demo change of every repository. */
export async function reportDemoFailures({
  repos,
  baseUrl,
  token,
  fetchImpl = fetch,
  maxFlakyRuns = 20,
  onProgress,
}: {
  repos: BuiltRepo[];
  baseUrl: string;
  token: string;
  fetchImpl?: FetchLike;
  maxFlakyRuns?: number;
  onProgress?: (outcome: ReportOutcome) => void;
}): Promise<ReportOutcome[]> {
  const outcomes: ReportOutcome[] = [];
  for (const repo of repos) {
    for (const change of repo.changes) {
      const base = { repository: repo.spec.name, externalId: change.spec.externalId, branch: change.spec.branch };
      const collected = await collectDemoReport({ repo, change, maxRuns: maxFlakyRuns });
      let outcome: ReportOutcome;
      if (collected.kind === 'passing') {
        outcome = { ...base, failingTests: [], runs: collected.runs, note: `tests passed in all ${collected.runs} runs; nothing to report` };
      } else {
        const { status, response } = await postFailureReport({ baseUrl, token, body: collected.body, fetchImpl });
        outcome = { ...base, status, response, failingTests: collected.failingTests, runs: collected.runs };
      }
      outcomes.push(outcome);
      onProgress?.(outcome);
    }
  }
  return outcomes;
}
