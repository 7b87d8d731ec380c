/**
 * TEST DOUBLE — a git server over HTTP for the code-host tests: real
 * repositories under `root`, served by git's own `git http-backend` (CGI)
 * behind a small Node server that asks the test whether the HTTP Basic user
 * and password (null: none sent) may read or push that repository (the
 * GitHub double's installation tokens, a GitLab token; anonymous reads for a
 * public repository) and answers 401 with a Basic challenge otherwise, as the
 * hosts do. So flowfix's push with a short-lived token goes through git's
 * real smart-HTTP protocol.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';

export interface GitHttpServer {
  url: string;
  /** every request: who, which repository, allowed or not */
  requests: Array<{ user: string | null; repo: string; service: string; allowed: boolean }>;
  close(): Promise<void>;
}

export async function startGitHttpServer({
  root,
  authorize,
}: {
  root: string;
  /** may this user (password) read (git-upload-pack) or push (git-receive-pack) the repository at this path? null: no credentials sent */
  authorize(input: { user: string | null; password: string | null; repo: string; service: string }): boolean;
}): Promise<GitHttpServer> {
  const requests: GitHttpServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const service =
      url.searchParams.get('service') ??
      (url.pathname.endsWith('/git-receive-pack') ? 'git-receive-pack' : url.pathname.endsWith('/git-upload-pack') ? 'git-upload-pack' : 'other');
    const repo = url.pathname.replace(/\/(info\/refs|git-upload-pack|git-receive-pack|HEAD|objects\/.*)$/, '').replace(/^\//, '');
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [user, password] = basic ? Buffer.from(basic[1], 'base64').toString().split(/:(.*)/s) : [null, null];
    const allowed = authorize({ user: user ?? null, password: password ?? null, repo, service });
    requests.push({ user, repo, service, allowed });
    if (!allowed) {
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: '/nonexistent',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        // http-backend enables receive-pack for an authenticated user only
        ...(user ? { REMOTE_USER: user } : {}),
        REMOTE_ADDR: '127.0.0.1',
        NODE_ENV: 'test',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const at = line.indexOf(':');
        const name = line.slice(0, at).trim();
        const value = line.slice(at + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
