/**
 * TEST DOUBLE — a stand-in for the GitLab REST API (v4), for the parts
 * flowfix uses. Not GitLab: it holds what a test gives it (projects, merge
 * requests, pipelines with their test report and jobs) and answers the real
 * `@gitbeaker/rest` client over real HTTP with GitLab's response shapes
 * (the fields flowfix reads typed against `@gitbeaker/core`'s schemas).
 * Requests need the registered token in PRIVATE-TOKEN, as GitLab's do.
 * Faults can be scripted per path, and every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type {
  CommitStatusSchema,
  MemberSchema,
  NoteSchema,
  ExpandedMergeRequestSchema,
  ExpandedPipelineSchema,
  JobSchema,
  PipelineTestReportSchema,
  SimpleProjectSchema,
} from '@gitbeaker/core';

export interface GitLabDoubleProject {
  id: number;
  path: string;
  /** where its repository is served over HTTP (a git server double); default: under this double's URL */
  httpUrlToRepo?: string;
}

export interface GitLabDoubleMergeRequest {
  projectId: number;
  iid: number;
  title: string;
  author: string;
  sourceBranch: string;
  baseSha: string;
  headSha: string;
  state?: 'opened' | 'merged' | 'closed';
  /** a draft ("Draft:") merge request: GitLab answers draft and, for older clients, work_in_progress */
  draft?: boolean;
  /** a fork's project, when the merge request comes from one (default: the target project) */
  sourceProjectId?: number;
  /** "Allow commits from members who can merge to the target branch" */
  allowCollaboration?: boolean;
}

export interface GitLabDoubleTestCase {
  status: 'success' | 'failed' | 'error' | 'skipped';
  name: string;
  classname: string;
  file?: string;
  system_output?: string;
  stack_trace?: string;
}

export interface GitLabDoublePipeline {
  id: number;
  projectId: number;
  sha: string;
  status: 'failed' | 'running' | 'success';
  testCases: GitLabDoubleTestCase[];
  jobs: Array<{ id: number; name: string; status: 'failed' | 'success'; trace?: string }>;
}

export interface GitLabApiDouble {
  url: string;
  token: string;
  projects: GitLabDoubleProject[];
  mergeRequests: GitLabDoubleMergeRequest[];
  pipelines: Map<number, GitLabDoublePipeline>;
  /** commit statuses set, in order */
  statuses: Array<{ projectId: number; sha: string; state: string; name: string; description?: string; targetUrl?: string; at: number }>;
  notes: Array<{ id: number; projectId: number; iid: number; body: string; edits: number }>;
  /** access level per user id on every project (10 guest, 20 reporter, 30 developer, 40 maintainer) */
  members: Map<number, { username: string; accessLevel: number }>;
  faults: Array<{ path: RegExp; status: number; times: number }>;
  requests: Array<{ method: string; path: string; status: number }>;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startGitLabApiDouble({ token = 'glpat-test-token-000' }: { token?: string } = {}): Promise<GitLabApiDouble> {
  let base = '';
  const state: Omit<GitLabApiDouble, 'url' | 'close'> = {
    token,
    projects: [],
    mergeRequests: [],
    pipelines: new Map(),
    statuses: [],
    notes: [],
    members: new Map(),
    faults: [],
    requests: [],
  };
  let nextId = 7000;

  function projectShape(
    p: GitLabDoubleProject,
  ): Pick<SimpleProjectSchema, 'id' | 'name' | 'path' | 'path_with_namespace' | 'http_url_to_repo' | 'default_branch' | 'web_url'> {
    return {
      id: p.id,
      name: p.path.split('/').at(-1)!,
      path: p.path.split('/').at(-1)!,
      path_with_namespace: p.path,
      http_url_to_repo: p.httpUrlToRepo ?? `${base}/${p.path}.git`,
      default_branch: 'main',
      web_url: `${base}/${p.path}`,
    };
  }
  function mrShape(
    p: GitLabDoubleProject,
    m: GitLabDoubleMergeRequest,
  ): Pick<
    ExpandedMergeRequestSchema,
    | 'iid'
    | 'title'
    | 'description'
    | 'source_branch'
    | 'web_url'
    | 'sha'
    | 'state'
    | 'author'
    | 'diff_refs'
    | 'source_project_id'
    | 'target_project_id'
    | 'draft'
    | 'work_in_progress'
    | 'allow_collaboration'
  > {
    return {
      allow_collaboration: m.allowCollaboration ?? false,
      draft: m.draft ?? false,
      work_in_progress: m.draft ?? false,
      source_project_id: m.sourceProjectId ?? p.id,
      target_project_id: p.id,
      iid: m.iid,
      title: m.title,
      description: '',
      source_branch: m.sourceBranch,
      web_url: `${base}/${p.path}/-/merge_requests/${m.iid}`,
      sha: m.headSha,
      state: m.state ?? 'opened',
      author: { id: 5, name: m.author, username: m.author, state: 'active', avatar_url: '', web_url: `${base}/${m.author}` },
      diff_refs: { base_sha: m.baseSha, head_sha: m.headSha, start_sha: m.baseSha },
    };
  }
  function reportShape(pl: GitLabDoublePipeline): PipelineTestReportSchema {
    const count = (s: string) => pl.testCases.filter((c) => c.status === s).length;
    return {
      total_time: 1,
      total_count: pl.testCases.length,
      success_count: count('success'),
      failed_count: count('failed'),
      skipped_count: count('skipped'),
      error_count: count('error'),
      test_suites: [
        {
          name: 'test',
          total_time: 1,
          total_count: pl.testCases.length,
          success_count: count('success'),
          failed_count: count('failed'),
          skipped_count: count('skipped'),
          error_count: count('error'),
          test_cases: pl.testCases.map((c) => ({ ...c, execution_time: 0.02 })),
        },
      ],
    };
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: Buffer, record: (status: number) => void): void {
    const url = new URL(req.url ?? '/', base);
    const path = url.pathname;
    const send = (status: number, body: unknown, headers?: Record<string, string>) => {
      json(res, status, body, headers);
      record(status);
    };
    if (req.headers['private-token'] !== token) return send(401, { message: '401 Unauthorized' });
    const fault = state.faults.find((f) => f.times > 0 && f.path.test(path));
    if (fault) {
      fault.times -= 1;
      return send(fault.status, { message: `${fault.status}` });
    }
    if (path === '/api/v4/projects') {
      return send(200, state.projects.map(projectShape), { 'x-page': '1', 'x-total-pages': '1', 'x-next-page': '' });
    }
    const single = /^\/api\/v4\/projects\/(\d+)$/.exec(path);
    if (single) {
      const p = state.projects.find((x) => x.id === Number(single[1]));
      return p ? send(200, projectShape(p)) : send(404, { message: '404 Project Not Found' });
    }
    const m = /^\/api\/v4\/projects\/(\d+)(\/.*)$/.exec(path);
    const project = m ? state.projects.find((p) => p.id === Number(m[1])) : undefined;
    if (!m || !project) return send(404, { message: '404 Project Not Found' });
    const rest = m[2];
    let r: RegExpExecArray | null;
    // gitbeaker sends JSON bodies
    const input = (): Record<string, unknown> => (body.length ? (JSON.parse(body.toString()) as Record<string, unknown>) : {});
    if (req.method === 'POST' && (r = /^\/statuses\/([0-9a-f]{40})$/.exec(rest))) {
      const b = input();
      const entry = {
        projectId: project.id,
        sha: r[1],
        state: String(b.state),
        name: String(b.name ?? 'default'),
        description: b.description as string | undefined,
        targetUrl: b.target_url as string | undefined,
        at: Date.now(),
      };
      state.statuses.push(entry);
      const shape: Pick<CommitStatusSchema, 'id' | 'sha' | 'ref' | 'status' | 'name' | 'target_url' | 'description'> = {
        id: nextId++,
        sha: entry.sha,
        ref: 'feature',
        status: entry.state as CommitStatusSchema['status'],
        name: entry.name,
        target_url: entry.targetUrl ?? '',
        description: entry.description,
      };
      return send(201, shape);
    }
    if (req.method === 'POST' && (r = /^\/merge_requests\/(\d+)\/notes$/.exec(rest))) {
      const note = { id: nextId++, projectId: project.id, iid: Number(r[1]), body: String(input().body), edits: 0 };
      state.notes.push(note);
      const shape: Pick<NoteSchema, 'id' | 'body' | 'noteable_type' | 'system'> = {
        id: note.id,
        body: note.body,
        noteable_type: 'MergeRequest',
        system: false,
      };
      return send(201, shape);
    }
    if (req.method === 'PUT' && (r = /^\/merge_requests\/(\d+)\/notes\/(\d+)$/.exec(rest))) {
      const note = state.notes.find((n) => n.projectId === project.id && n.iid === Number(r![1]) && n.id === Number(r![2]));
      if (!note) return send(404, { message: '404 Note Not Found' });
      note.body = String(input().body);
      note.edits += 1;
      return send(200, { id: note.id, body: note.body, noteable_type: 'MergeRequest', system: false });
    }
    if ((r = /^\/pipelines\/(\d+)$/.exec(rest))) {
      const pl = state.pipelines.get(Number(r[1]));
      if (!pl || pl.projectId !== project.id) return send(404, { message: '404 Not found' });
      const shape: Pick<ExpandedPipelineSchema, 'id' | 'sha' | 'status' | 'web_url' | 'project_id'> = {
        id: pl.id,
        sha: pl.sha,
        status: pl.status,
        web_url: `${base}/${project.path}/-/pipelines/${pl.id}`,
        project_id: project.id,
      };
      return send(200, shape);
    }
    if ((r = /^\/pipelines\/(\d+)\/test_report$/.exec(rest))) {
      const pl = state.pipelines.get(Number(r[1]));
      if (!pl || pl.projectId !== project.id) return send(404, { message: '404 Not found' });
      return send(200, reportShape(pl));
    }
    if ((r = /^\/pipelines\/(\d+)\/jobs$/.exec(rest))) {
      const pl = state.pipelines.get(Number(r[1]));
      if (!pl || pl.projectId !== project.id) return send(404, { message: '404 Not found' });
      const scope = url.searchParams.get('scope');
      const jobs: Array<Pick<JobSchema, 'id' | 'name' | 'status' | 'stage' | 'web_url'>> = pl.jobs
        .filter((j) => !scope || j.status === scope)
        .map((j) => ({ id: j.id, name: j.name, status: j.status, stage: 'test', web_url: `${base}/${project.path}/-/jobs/${j.id}` }));
      return send(200, jobs, { 'x-page': '1', 'x-total-pages': '1', 'x-next-page': '' });
    }
    if ((r = /^\/jobs\/(\d+)\/trace$/.exec(rest))) {
      const job = [...state.pipelines.values()].flatMap((p) => p.jobs).find((j) => j.id === Number(r![1]));
      if (!job) return send(404, { message: '404 Not found' });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(job.trace ?? '');
      return record(200);
    }
    if ((r = /^\/members\/all\/(\d+)$/.exec(rest))) {
      const member = state.members.get(Number(r[1]));
      if (!member) return send(404, { message: '404 Member Not Found' });
      const shape: Pick<MemberSchema, 'id' | 'username' | 'name' | 'state' | 'access_level'> = {
        id: Number(r[1]),
        username: member.username,
        name: member.username,
        state: 'active',
        access_level: member.accessLevel as MemberSchema['access_level'],
      };
      return send(200, shape);
    }
    if ((r = /^\/merge_requests\/(\d+)$/.exec(rest))) {
      const mr = state.mergeRequests.find((x) => x.projectId === project.id && x.iid === Number(r![1]));
      if (!mr) return send(404, { message: '404 Not found' });
      return send(200, mrShape(project, mr));
    }
    if ((r = /^\/repository\/commits\/([0-9a-f]+)\/merge_requests$/.exec(rest))) {
      const sha = r[1];
      return send(
        200,
        state.mergeRequests.filter((x) => x.projectId === project.id && x.headSha === sha).map((x) => mrShape(project, x)),
        { 'x-page': '1', 'x-total-pages': '1', 'x-next-page': '' },
      );
    }
    return send(404, { message: '404 Not found' });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      handle(req, res, Buffer.concat(chunks), (status) => state.requests.push({ method: req.method ?? 'GET', path, status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  return Object.assign(state, {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
