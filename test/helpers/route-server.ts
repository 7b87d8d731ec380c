import http from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { NextRequest } from 'next/server';
import { GET as forBranchRoute } from '@/app/api/changes/for-branch/route';
import { POST as previewRoute } from '@/app/api/fixes/[id]/preview/route';
import { GET as patchRoute } from '@/app/api/fixes/[id]/patch/route';
import { GET as filesRoute } from '@/app/api/fixes/[id]/files/route';
import { POST as acceptRoute } from '@/app/api/fixes/[id]/accept/route';
import { POST as rejectRoute } from '@/app/api/fixes/[id]/reject/route';
import { GET as eventsRoute } from '@/app/api/runs/[id]/events/route';

// Route handlers served over real HTTP by a node:http server that hands each
// request to the real handler (and so to the process's database handle): the
// one way a test or a bench puts a real client (the CLI in a child process,
// the editor extension's core) in front of the server code. The extension's
// routes are listed here for test/integration/extension/ and bench/editor.ts;
// another test names its own (test/integration/cli/fix.test.ts).

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
export interface ServedRoute {
  method: string;
  /** the path; its first group, if any, is the route's `id` */
  pattern: RegExp;
  handler: Handler;
}

const EXTENSION_ROUTES: ServedRoute[] = [
  { method: 'GET', pattern: /^\/api\/changes\/for-branch$/, handler: forBranchRoute as Handler },
  { method: 'POST', pattern: /^\/api\/fixes\/([^/]+)\/preview$/, handler: previewRoute as Handler },
  { method: 'GET', pattern: /^\/api\/fixes\/([^/]+)\/patch$/, handler: patchRoute as Handler },
  { method: 'GET', pattern: /^\/api\/fixes\/([^/]+)\/files$/, handler: filesRoute as Handler },
  { method: 'POST', pattern: /^\/api\/fixes\/([^/]+)\/accept$/, handler: acceptRoute as Handler },
  { method: 'POST', pattern: /^\/api\/fixes\/([^/]+)\/reject$/, handler: rejectRoute as Handler },
  { method: 'GET', pattern: /^\/api\/runs\/([^/]+)\/events$/, handler: eventsRoute as Handler },
];

export function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const s = http.createServer(handler);
  // the client keeps connections alive between calls; a slow machine must not see them closed under it
  s.keepAliveTimeout = 120_000;
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve({ server: s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` })));
}

/** The extension's routes on 127.0.0.1 (a free port). */
export function serveExtensionRoutes(): Promise<{ server: http.Server; url: string }> {
  return serveRoutes(EXTENSION_ROUTES);
}

/** These routes on 127.0.0.1 (a free port); anything else is a 404. */
export function serveRoutes(routes: readonly ServedRoute[]): Promise<{ server: http.Server; url: string }> {
  let base = '';
  const started = listen((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (!route) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const init = {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
      duplex: 'half',
    } as ConstructorParameters<typeof NextRequest>[1];
    const id = route.pattern.exec(url.pathname)![1];
    route
      .handler(new NextRequest(url, init), { params: Promise.resolve<Record<string, string>>(id ? { id } : {}) })
      .then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        if (!answer.body) return res.end();
        // stream (the run's events arrive as they are read)
        for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
        res.end();
      })
      .catch((err: unknown) => {
        // a stream the client left (an aborted SSE follow) fails after its headers went out
        if (res.headersSent) return void res.destroy();
        res.writeHead(500);
        res.end(String(err));
      });
  });
  return started.then((s) => ((base = s.url), s));
}
