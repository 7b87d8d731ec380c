/**
 * TEST DOUBLE — a stand-in for the GitHub REST API, for the parts flowfix's
 * GitHub App uses. Not GitHub: it holds the state a test gives it (the App,
 * its installations, repositories, pull requests, workflow runs with their
 * artifacts and jobs) and answers the real `@octokit/rest` client over real
 * HTTP with the published response shapes (typed against
 * `@octokit/openapi-types`, so a wrong field name or type fails `tsc`).
 *
 * Authentication is checked as GitHub does: App endpoints want a JWT signed
 * RS256 with the App's private key (iss = the App id, short expiry);
 * installation endpoints want an installation token this double issued for
 * that installation. Artifact and log downloads answer 302 to a short-lived
 * blob URL, as GitHub does. A completed check run cannot be set back to
 * queued or in progress (422): GitHub does not allow it either, a re-run is a
 * new check run. Faults can be scripted per path (a 502, a 429 with
 * Retry-After), and every request is recorded.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { components } from '@octokit/openapi-types';

type Schemas = components['schemas'];

export interface DoubleRepository {
  id: number;
  owner: string;
  name: string;
  installationId: number;
  defaultBranch?: string;
  cloneUrl?: string;
}

export interface DoublePull {
  number: number;
  title: string;
  body?: string;
  user: { login: string; type?: 'User' | 'Bot' };
  /** repoFullName/cloneUrl: a fork's, when the pull request comes from one */
  head: { ref: string; sha: string; repoFullName?: string; cloneUrl?: string };
  base: { ref: string; sha: string };
  additions?: number;
  deletions?: number;
  changedFiles?: number;
  maintainerCanModify?: boolean;
  /** a draft pull request (GitHub's `draft`) */
  draft?: boolean;
  /** the pull request's own diff, per file (GET /pulls/{n}/files) */
  files?: Array<{ filename: string; patch?: string }>;
}

export interface DoubleArtifact {
  id: number;
  name: string;
  /** the archive served (a zip); its length is the size unless declaredSize says otherwise */
  zip: Buffer;
  declaredSize?: number;
  expired?: boolean;
}

export interface DoubleJob {
  id: number;
  name: string;
  conclusion: 'success' | 'failure' | 'timed_out' | 'cancelled' | 'skipped';
  log?: string;
}

export interface DoubleRun {
  id: number;
  repositoryId: number;
  headSha: string;
  artifacts: DoubleArtifact[];
  jobs: DoubleJob[];
  checkSuiteId?: number;
  conclusion?: 'failure' | 'success';
  /** the pull request the run belongs to */
  pullNumber?: number;
}

export interface Fault {
  method?: string;
  path: RegExp;
  status: number;
  /** how many matching requests fail; then the fault is spent */
  times: number;
  headers?: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  auth: 'app' | 'installation' | 'none' | 'bad';
  status: number;
}

export interface DoubleCheckRun {
  id: number;
  repositoryId: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  details_url?: string;
  output: { title?: string; summary?: string };
  /** every state it went through, in order */
  history: Array<{ status: string; conclusion: string | null; title?: string; at: number }>;
}

export interface DoubleComment {
  id: number;
  repositoryId: number;
  issueNumber: number;
  body: string;
  user: string;
  edits: number;
}

export interface DoubleReview {
  pullNumber: number;
  commitId: string;
  body: string;
  comments: Array<{ path: string; line: number; start_line?: number; side?: string; body: string }>;
}

export interface GitHubApiDouble {
  url: string;
  reviews: DoubleReview[];
  /** each user's permission on every repository (absent: none) */
  permissions: Map<string, 'admin' | 'maintain' | 'write' | 'triage' | 'read'>;
  checkRuns: DoubleCheckRun[];
  comments: DoubleComment[];
  appId: string;
  privateKey: string;
  repositories: DoubleRepository[];
  pulls: Map<string, DoublePull>;
  runs: Map<number, DoubleRun>;
  faults: Fault[];
  requests: RecordedRequest[];
  /** installation tokens issued, newest last */
  issuedTokens: Array<{ token: string; installationId: number }>;
  close(): Promise<void>;
}

const now = () => new Date().toISOString();

/** An artifact's archive: a zip made by Info-ZIP's zip from these files, as actions/upload-artifact makes one. */
export function zipOf(files: Record<string, string | Buffer>): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-zip-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, 'in', name)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'in', name), content);
    }
    execFileSync('zip', ['-q', '-r', path.join(dir, 'a.zip'), '.'], { cwd: path.join(dir, 'in') });
    return fs.readFileSync(path.join(dir, 'a.zip'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function simpleUser(login: string, id: number, type: string): Schemas['simple-user'] {
  const url = `https://api.github.invalid/users/${login}`;
  return {
    login,
    id,
    node_id: `U_${id}`,
    avatar_url: '',
    gravatar_id: null,
    url,
    html_url: `https://github.invalid/${login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    site_admin: false,
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function verifyJwt(jwt: string, publicKey: string, appId: string): boolean {
  const [header, payload, signature] = jwt.split('.');
  if (!header || !payload || !signature) return false;
  const ok = createVerify('RSA-SHA256').update(`${header}.${payload}`).verify(publicKey, Buffer.from(signature, 'base64url'));
  if (!ok) return false;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { iss?: unknown; exp?: number; iat?: number };
  const t = Math.floor(Date.now() / 1000);
  return String(claims.iss) === appId && typeof claims.exp === 'number' && claims.exp > t && claims.exp - (claims.iat ?? t) <= 11 * 60;
}

export async function startGitHubApiDouble({ appId = '4242' }: { appId?: string } = {}): Promise<GitHubApiDouble> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const tokens = new Map<string, number>();
  const blobs = new Map<string, { body: Buffer; type: string }>();
  const state: Omit<GitHubApiDouble, 'url' | 'close'> = {
    appId,
    privateKey,
    repositories: [],
    pulls: new Map(),
    runs: new Map(),
    faults: [],
    requests: [],
    issuedTokens: [],
    checkRuns: [],
    comments: [],
    permissions: new Map(),
    reviews: [],
  };
  let nextId = 5000;
  let base = '';

  const repoByName = (owner: string, name: string) => state.repositories.find((r) => r.owner === owner && r.name === name);
  const fullName = (r: DoubleRepository) => `${r.owner}/${r.name}`;

  function repositoryShape(r: DoubleRepository) {
    const shape = {
      id: r.id,
      node_id: `R_${r.id}`,
      name: r.name,
      full_name: fullName(r),
      private: true,
      html_url: `${base}/${fullName(r)}`,
      url: `${base}/repos/${fullName(r)}`,
      clone_url: r.cloneUrl ?? `${base}/${fullName(r)}.git`,
      default_branch: r.defaultBranch ?? 'main',
      fork: false,
      archived: false,
      disabled: false,
      visibility: 'private',
      owner: simpleUser(r.owner, 1, 'Organization'),
    } satisfies Partial<Schemas['repository']>;
    return shape;
  }

  function pullShape(r: DoubleRepository, p: DoublePull) {
    const headRepo = p.head.repoFullName ?? fullName(r);
    // the fields flowfix reads, typed as the published schema; head and base carry the fields it reads of theirs
    const fields: Pick<
      Schemas['pull-request'],
      'number' | 'title' | 'body' | 'state' | 'draft' | 'html_url' | 'user' | 'additions' | 'deletions' | 'changed_files' | 'maintainer_can_modify' | 'merged'
    > = {
      number: p.number,
      title: p.title,
      body: p.body ?? null,
      state: 'open',
      draft: p.draft ?? false,
      html_url: `${base}/${fullName(r)}/pull/${p.number}`,
      user: simpleUser(p.user.login, 7, p.user.type ?? 'User'),
      additions: p.additions ?? 1,
      deletions: p.deletions ?? 1,
      changed_files: p.changedFiles ?? 1,
      maintainer_can_modify: p.maintainerCanModify ?? false,
      merged: false,
    };
    const own = headRepo === fullName(r);
    const head: Pick<Schemas['pull-request']['head'], 'ref' | 'sha' | 'label'> & {
      repo: Pick<Schemas['repository'], 'id' | 'full_name' | 'name' | 'clone_url' | 'fork'>;
    } = {
      ref: p.head.ref,
      sha: p.head.sha,
      label: `${headRepo.split('/')[0]}:${p.head.ref}`,
      repo: {
        id: own ? r.id : r.id + 100_000,
        full_name: headRepo,
        name: headRepo.split('/')[1],
        clone_url: own ? (r.cloneUrl ?? `${base}/${fullName(r)}.git`) : (p.head.cloneUrl ?? `${base}/${headRepo}.git`),
        fork: !own,
      },
    };
    const baseRef: Pick<Schemas['pull-request']['base'], 'ref' | 'sha' | 'label'> & {
      repo: Pick<Schemas['repository'], 'id' | 'full_name' | 'name' | 'clone_url'>;
    } = {
      ref: p.base.ref,
      sha: p.base.sha,
      label: `${r.owner}:${p.base.ref}`,
      repo: { id: r.id, full_name: fullName(r), name: r.name, clone_url: r.cloneUrl ?? `${base}/${fullName(r)}.git` },
    };
    const shape = { ...fields, head, base: baseRef };
    return shape;
  }

  function artifactShape(r: DoubleRepository, run: DoubleRun, a: DoubleArtifact): Schemas['artifact'] {
    return {
      id: a.id,
      node_id: `A_${a.id}`,
      name: a.name,
      size_in_bytes: a.declaredSize ?? a.zip.length,
      url: `${base}/repos/${fullName(r)}/actions/artifacts/${a.id}`,
      archive_download_url: `${base}/repos/${fullName(r)}/actions/artifacts/${a.id}/zip`,
      expired: a.expired ?? false,
      created_at: now(),
      expires_at: now(),
      updated_at: now(),
      workflow_run: { id: run.id, repository_id: r.id, head_repository_id: r.id, head_branch: 'feature', head_sha: run.headSha },
    };
  }

  function jobShape(r: DoubleRepository, run: DoubleRun, j: DoubleJob): Schemas['job'] {
    return {
      id: j.id,
      run_id: run.id,
      run_url: `${base}/repos/${fullName(r)}/actions/runs/${run.id}`,
      node_id: `J_${j.id}`,
      head_sha: run.headSha,
      url: `${base}/repos/${fullName(r)}/actions/jobs/${j.id}`,
      html_url: `${base}/${fullName(r)}/actions/runs/${run.id}/job/${j.id}`,
      status: 'completed',
      conclusion: j.conclusion,
      created_at: now(),
      started_at: now(),
      completed_at: now(),
      name: j.name,
      check_run_url: `${base}/repos/${fullName(r)}/check-runs/${j.id}`,
      labels: ['ubuntu-latest'],
      runner_id: 1,
      runner_name: 'runner',
      runner_group_id: 1,
      runner_group_name: 'default',
      workflow_name: 'CI',
      head_branch: 'feature',
    };
  }

  function blobUrl(body: Buffer, type: string): string {
    const key = randomBytes(12).toString('hex');
    blobs.set(key, { body, type });
    return `${base}/_blobs/${key}`;
  }

  function checkRunShape(
    r: DoubleRepository,
    c: DoubleCheckRun,
  ): Pick<Schemas['check-run'], 'id' | 'head_sha' | 'node_id' | 'external_id' | 'url' | 'html_url' | 'details_url' | 'status' | 'conclusion' | 'name'> {
    return {
      id: c.id,
      node_id: `CR_${c.id}`,
      head_sha: c.head_sha,
      external_id: null,
      url: `${base}/repos/${fullName(r)}/check-runs/${c.id}`,
      html_url: `${base}/${fullName(r)}/runs/${c.id}`,
      details_url: c.details_url ?? null,
      status: c.status as Schemas['check-run']['status'],
      conclusion: c.conclusion as Schemas['check-run']['conclusion'],
      name: c.name,
    };
  }

  function commentShape(
    r: DoubleRepository,
    c: DoubleComment,
  ): Pick<
    Schemas['issue-comment'],
    'id' | 'node_id' | 'url' | 'html_url' | 'body' | 'user' | 'created_at' | 'updated_at' | 'issue_url' | 'author_association'
  > {
    return {
      id: c.id,
      node_id: `IC_${c.id}`,
      url: `${base}/repos/${fullName(r)}/issues/comments/${c.id}`,
      html_url: `${base}/${fullName(r)}/pull/${c.issueNumber}#issuecomment-${c.id}`,
      body: c.body,
      user: simpleUser(c.user, 9, 'Bot'),
      created_at: now(),
      updated_at: now(),
      issue_url: `${base}/repos/${fullName(r)}/issues/${c.issueNumber}`,
      author_association: 'NONE',
    };
  }

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    record: (auth: RecordedRequest['auth'], status: number) => void,
  ): Promise<void> {
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    const path = url.pathname.replace(/^\/api\/v3/, '');

    // blob downloads: no auth, as GitHub's pre-signed URLs
    const blob = /^\/_blobs\/([0-9a-f]+)$/.exec(path);
    if (blob) {
      const b = blobs.get(blob[1]);
      if (!b) return json(res, 404, { message: 'Not Found' });
      res.writeHead(200, { 'content-type': b.type, 'content-length': String(b.body.length) });
      res.end(b.body);
      return record('none', 200);
    }

    const fault = state.faults.find((f) => f.times > 0 && f.path.test(path) && (!f.method || f.method === method));
    const authz = req.headers.authorization ?? '';
    let auth: RecordedRequest['auth'] = 'none';
    let installationId: number | undefined;
    if (/^bearer /i.test(authz)) auth = verifyJwt(authz.slice(7), publicKey, appId) ? 'app' : 'bad';
    else if (/^token /i.test(authz)) {
      installationId = tokens.get(authz.slice(6));
      auth = installationId === undefined ? 'bad' : 'installation';
    }
    if (fault) {
      fault.times -= 1;
      json(res, fault.status, { message: fault.status === 429 ? 'API rate limit exceeded' : 'Server Error' }, fault.headers);
      return record(auth, fault.status);
    }
    const deny = (status: number, message: string) => {
      json(res, status, { message, documentation_url: 'https://docs.github.com/rest' });
      record(auth, status);
    };

    // ── the App (JWT) ──
    if (method === 'GET' && path === '/app/installations') {
      if (auth !== 'app') return deny(401, 'A JSON web token could not be decoded');
      const ids = [...new Set(state.repositories.map((r) => r.installationId))];
      json(
        res,
        200,
        ids.map((id) => ({ id, account: { login: 'acme', id: 1 }, app_id: Number(appId), target_type: 'Organization', permissions: {}, events: [] })),
      );
      return record(auth, 200);
    }
    const tokenRequest = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (method === 'POST' && tokenRequest) {
      if (auth !== 'app') return deny(401, 'A JSON web token could not be decoded');
      const id = Number(tokenRequest[1]);
      if (!state.repositories.some((r) => r.installationId === id)) return deny(404, 'Not Found');
      const token = `ghs_${randomBytes(18).toString('base64url')}`;
      tokens.set(token, id);
      state.issuedTokens.push({ token, installationId: id });
      const body: Schemas['installation-token'] = {
        token,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        permissions: { checks: 'write', contents: 'write', pull_requests: 'write', actions: 'read', metadata: 'read' },
        repository_selection: 'selected',
      };
      json(res, 201, body);
      return record(auth, 201);
    }

    // ── an installation (installation token) ──
    if (auth !== 'installation') return deny(401, 'Bad credentials');
    if (method === 'GET' && path === '/installation/repositories') {
      const repos = state.repositories.filter((r) => r.installationId === installationId).map(repositoryShape);
      json(res, 200, { total_count: repos.length, repository_selection: 'selected', repositories: repos });
      return record(auth, 200);
    }
    const inRepo = /^\/repos\/([^/]+)\/([^/]+)(\/.*)$/.exec(path);
    const repo = inRepo ? repoByName(inRepo[1], inRepo[2]) : undefined;
    if (!inRepo || !repo || repo.installationId !== installationId) return deny(404, 'Not Found');
    const rest = inRepo[3];

    let m: RegExpExecArray | null;
    const input = (): Record<string, unknown> => (body.length ? (JSON.parse(body.toString()) as Record<string, unknown>) : {});
    if (method === 'GET' && (m = /^\/collaborators\/([^/]+)\/permission$/.exec(rest))) {
      const login = decodeURIComponent(m[1]);
      const role = state.permissions.get(login);
      // GitHub's legacy "permission" folds maintain into write and triage into read
      const legacy = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : (role ?? 'none');
      const body: Schemas['repository-collaborator-permission'] = {
        permission: legacy,
        role_name: role ?? 'none',
        user: {
          ...simpleUser(login, 11, 'User'),
          permissions: {
            admin: role === 'admin',
            maintain: role === 'maintain',
            push: legacy === 'write' || legacy === 'admin',
            triage: role === 'triage',
            pull: role !== undefined,
          },
          role_name: role ?? 'none',
        },
      };
      json(res, 200, body);
      return record(auth, 200);
    }
    if (method === 'POST' && rest === '/check-runs') {
      const b = input();
      const output = (b.output ?? {}) as DoubleCheckRun['output'];
      const c: DoubleCheckRun = {
        id: nextId++,
        repositoryId: repo.id,
        name: String(b.name),
        head_sha: String(b.head_sha),
        status: String(b.status ?? 'queued'),
        conclusion: (b.conclusion as string | undefined) ?? null,
        details_url: b.details_url as string | undefined,
        output,
        history: [],
      };
      c.history.push({ status: c.status, conclusion: c.conclusion, title: output.title, at: Date.now() });
      state.checkRuns.push(c);
      json(res, 201, checkRunShape(repo, c));
      return record(auth, 201);
    }
    if (method === 'PATCH' && (m = /^\/check-runs\/(\d+)$/.exec(rest))) {
      const c = state.checkRuns.find((x) => x.id === Number(m![1]) && x.repositoryId === repo.id);
      if (!c) return deny(404, 'Not Found');
      const b = input();
      // GitHub: once a check run is completed its status cannot go back (a re-run is a new check run)
      if (c.status === 'completed' && b.status && b.status !== 'completed')
        return deny(422, 'A completed check run cannot be set back to queued or in_progress');
      if (b.status) c.status = String(b.status);
      if (b.conclusion !== undefined) {
        c.conclusion = b.conclusion as string;
        c.status = 'completed';
      }
      if (b.output) c.output = b.output as DoubleCheckRun['output'];
      if (b.details_url) c.details_url = String(b.details_url);
      c.history.push({ status: c.status, conclusion: c.conclusion, title: c.output.title, at: Date.now() });
      json(res, 200, checkRunShape(repo, c));
      return record(auth, 200);
    }
    if (method === 'POST' && (m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const c: DoubleComment = { id: nextId++, repositoryId: repo.id, issueNumber: Number(m[1]), body: String(input().body), user: 'flowfix[bot]', edits: 0 };
      state.comments.push(c);
      json(res, 201, commentShape(repo, c));
      return record(auth, 201);
    }
    if (method === 'PATCH' && (m = /^\/issues\/comments\/(\d+)$/.exec(rest))) {
      const c = state.comments.find((x) => x.id === Number(m![1]) && x.repositoryId === repo.id);
      if (!c) return deny(404, 'Not Found');
      c.body = String(input().body);
      c.edits += 1;
      json(res, 200, commentShape(repo, c));
      return record(auth, 200);
    }
    if (method === 'GET' && (m = /^\/pulls\/(\d+)\/files$/.exec(rest))) {
      const pull = state.pulls.get(`${fullName(repo)}#${m[1]}`);
      if (!pull) return deny(404, 'Not Found');
      const files: Array<
        Pick<Schemas['diff-entry'], 'sha' | 'filename' | 'status' | 'additions' | 'deletions' | 'changes' | 'blob_url' | 'raw_url' | 'contents_url' | 'patch'>
      > = (pull.files ?? []).map((f) => ({
        sha: null,
        filename: f.filename,
        status: 'modified',
        additions: 1,
        deletions: 1,
        changes: 2,
        blob_url: `${base}/${fullName(repo)}/blob/${pull.head.sha}/${f.filename}`,
        raw_url: `${base}/${fullName(repo)}/raw/${pull.head.sha}/${f.filename}`,
        contents_url: `${base}/repos/${fullName(repo)}/contents/${f.filename}`,
        ...(f.patch !== undefined ? { patch: f.patch } : {}),
      }));
      json(res, 200, files);
      return record(auth, 200);
    }
    if (method === 'POST' && (m = /^\/pulls\/(\d+)\/reviews$/.exec(rest))) {
      const b = input() as { commit_id?: string; body?: string; comments?: DoubleReview['comments']; event?: string };
      const review: DoubleReview = { pullNumber: Number(m[1]), commitId: String(b.commit_id), body: String(b.body ?? ''), comments: b.comments ?? [] };
      state.reviews.push(review);
      const shape: Pick<
        Schemas['pull-request-review'],
        'id' | 'node_id' | 'body' | 'state' | 'commit_id' | 'html_url' | 'pull_request_url' | 'author_association'
      > = {
        id: nextId++,
        node_id: 'PRR_1',
        body: review.body,
        state: 'COMMENTED',
        commit_id: review.commitId,
        html_url: `${base}/${fullName(repo)}/pull/${review.pullNumber}#review`,
        pull_request_url: `${base}/repos/${fullName(repo)}/pulls/${review.pullNumber}`,
        author_association: 'NONE',
      };
      json(res, 200, shape);
      return record(auth, 200);
    }
    if (method === 'GET' && (m = /^\/pulls\/(\d+)$/.exec(rest))) {
      const pull = state.pulls.get(`${fullName(repo)}#${m[1]}`);
      if (!pull) return deny(404, 'Not Found');
      json(res, 200, pullShape(repo, pull));
      return record(auth, 200);
    }
    if (method === 'GET' && rest === '/actions/runs') {
      const suite = Number(url.searchParams.get('check_suite_id'));
      const runs = [...state.runs.values()].filter((r) => r.repositoryId === repo.id && (!suite || r.checkSuiteId === suite));
      json(res, 200, {
        total_count: runs.length,
        workflow_runs: runs.map((r) => ({
          id: r.id,
          head_sha: r.headSha,
          conclusion: r.conclusion ?? 'failure',
          status: 'completed',
          html_url: `${base}/${fullName(repo)}/actions/runs/${r.id}`,
          pull_requests: r.pullNumber === undefined ? [] : [{ number: r.pullNumber }],
        })),
      });
      return record(auth, 200);
    }
    const runPath = /^\/actions\/runs\/(\d+)\/(artifacts|jobs)$/.exec(rest);
    if (method === 'GET' && runPath) {
      const run = state.runs.get(Number(runPath[1]));
      if (!run || run.repositoryId !== repo.id) return deny(404, 'Not Found');
      if (runPath[2] === 'artifacts') {
        json(res, 200, { total_count: run.artifacts.length, artifacts: run.artifacts.map((a) => artifactShape(repo, run, a)) });
      } else {
        json(res, 200, { total_count: run.jobs.length, jobs: run.jobs.map((j) => jobShape(repo, run, j)) });
      }
      return record(auth, 200);
    }
    if (method === 'GET' && (m = /^\/actions\/artifacts\/(\d+)\/zip$/.exec(rest))) {
      const id = Number(m[1]);
      const found = [...state.runs.values()]
        .filter((r) => r.repositoryId === repo.id)
        .flatMap((r) => r.artifacts)
        .find((a) => a.id === id);
      if (!found) return deny(404, 'Not Found');
      if (found.expired) return deny(410, 'Artifact has expired');
      res.writeHead(302, { location: blobUrl(found.zip, 'application/zip') });
      res.end();
      return record(auth, 302);
    }
    if (method === 'GET' && (m = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest))) {
      const id = Number(m[1]);
      const job = [...state.runs.values()]
        .filter((r) => r.repositoryId === repo.id)
        .flatMap((r) => r.jobs)
        .find((j) => j.id === id);
      if (!job) return deny(404, 'Not Found');
      res.writeHead(302, { location: blobUrl(Buffer.from(job.log ?? ''), 'text/plain') });
      res.end();
      return record(auth, 302);
    }
    return deny(404, 'Not Found');
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const record = (auth: RecordedRequest['auth'], status: number) => state.requests.push({ method: req.method ?? 'GET', path, auth, status });
      handle(req, res, Buffer.concat(chunks), record).catch((err: unknown) => {
        json(res, 500, { message: String(err) });
        record('none', 500);
      });
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
