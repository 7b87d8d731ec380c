import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { NextRequest } from 'next/server';
import { encode } from 'next-auth/jwt';
import { SESSION_COOKIE, sessionCookie } from './http-helpers';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { ALL_ROLES, type RoleName } from '../../../lib/auth/session';
import type { Access } from '../../../lib/http/route';
import { issueCiToken, revokeCiToken } from '../../../lib/tokens/ci-tokens';
import { issuePersonalToken, revokePersonalToken } from '../../../lib/tokens/personal-tokens';

// Every route handler × every role and anonymous. The route files are found at
// test time, so a route someone adds tomorrow is covered without editing this
// file. Each handler must be made with withRoute (it carries `.access`), must
// follow the access policy its path implies, and must actually enforce it:
// anonymous → 401, a role it does not allow → 403, a role it allows → neither
// (404/422 for the made-up params and body are fine, a 500 is not).

const APP_DIR = path.resolve('app');
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
type Method = (typeof METHODS)[number];

// next-auth's own endpoints: public by design and not built with withRoute
const NOT_WRAPPED = new Set(['app/api/auth/[...nextauth]/route.ts']);
// routes anyone may call; everything else needs a session or a CI token
const PUBLIC_ROUTES = new Set(['app/api/health/route.ts']);

type Handler = ((req: NextRequest, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>) & {
  access?: Access;
};

interface RouteFile {
  /** repository-relative, e.g. app/api/admin/users/[id]/route.ts */
  file: string;
  /** the URL it serves, with made-up values for dynamic segments */
  url: string;
  params: Record<string, string | string[]>;
  handlers: Partial<Record<Method, Handler>>;
}

function findRouteFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /^route\.(ts|tsx|js|mjs)$/.test(e.name))
    .map((e) => path.relative(process.cwd(), path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

function describeRoute(file: string): { url: string; params: Record<string, string | string[]> } {
  const segments = file.split('/').slice(1, -1); // drop "app" and "route.ts"
  const params: Record<string, string | string[]> = {};
  const urlParts: string[] = [];
  for (const seg of segments) {
    if (/^\(.*\)$/.test(seg) || seg.startsWith('@')) continue; // route groups and parallel slots
    const catchAll = /^\[\[?\.\.\.(.+?)\]\]?$/.exec(seg);
    const dynamic = /^\[(.+)\]$/.exec(seg);
    if (catchAll) {
      params[catchAll[1]] = ['nonexistent'];
      urlParts.push('nonexistent');
    } else if (dynamic) {
      params[dynamic[1]] = 'nonexistent';
      urlParts.push('nonexistent');
    } else {
      urlParts.push(seg);
    }
  }
  return { url: `/${urlParts.join('/')}`, params };
}

/** The access a route's path implies; a handler that declares anything else fails the test. */
function expectedPolicy(route: RouteFile): 'public' | 'token' | 'webhook' | 'admin' | 'session' {
  if (PUBLIC_ROUTES.has(route.file)) return 'public';
  if (/^\/api\/hosts\/[^/]+\/webhook$/.test(route.url)) return 'webhook';
  if (route.url.startsWith('/api/v1/')) return 'token';
  if (route.url.startsWith('/api/admin/') || route.url === '/api/admin') return 'admin';
  return 'session';
}

const routeFiles = findRouteFiles(APP_DIR);
const routes: RouteFile[] = [];
for (const file of routeFiles) {
  const mod = (await import(pathToFileURL(path.resolve(file)).href)) as Record<string, unknown>;
  const handlers: RouteFile['handlers'] = {};
  for (const m of METHODS) if (typeof mod[m] === 'function') handlers[m] = mod[m] as Handler;
  routes.push({ file, ...describeRoute(file), handlers });
}

const CALL_TIMEOUT_MS = 20_000;
// NEXTAUTH_URL is unset in tests: the public origin is the default one
const PUBLIC_ORIGIN = 'http://localhost:3000';

function isMutating(method: Method): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

async function call({
  route,
  method,
  headers = {},
}: {
  route: RouteFile;
  method: Method;
  /** null drops a default header */
  headers?: Record<string, string | null>;
}): Promise<number> {
  const handler = route.handlers[method]!;
  const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  // by default, what Chromium sends for our own pages' fetch calls
  const merged: Record<string, string | null> = {
    ...(isMutating(method) ? { origin: PUBLIC_ORIGIN, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' } : {}),
    ...headers,
  };
  const req = new NextRequest(`http://localhost:3000${route.url}`, {
    method,
    headers: Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== null)),
    body: hasBody ? '{}' : undefined,
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${method} ${route.url} did not answer in ${CALL_TIMEOUT_MS} ms`)), CALL_TIMEOUT_MS);
  });
  try {
    const res = await Promise.race([handler(req, { params: Promise.resolve(route.params) }), timeout]);
    // streams (SSE) would keep the test open
    await res.body?.cancel().catch(() => undefined);
    return res.status;
  } finally {
    clearTimeout(timer);
  }
}

interface Caller {
  label: string;
  roles: RoleName[];
  cookie: string;
  /** a personal API token acting as this caller (Bearer ffp_…), scope decide */
  personalToken: string;
}

function allows(access: Extract<Access, { auth: 'session' }>, roles: readonly RoleName[]): boolean {
  return access.roles === 'any' || access.roles.some((r) => roles.includes(r));
}

function assertAllowed(status: number, what: string): void {
  assert.ok(status !== 401 && status !== 403, `${what}: expected to be let in, got ${status}`);
  assert.notEqual(status, 500, `${what}: the handler crashed (500) on made-up input`);
}

describe('every route handler × every role', () => {
  let db: TestDb;
  const callers: Caller[] = [];
  let adminCookie = '';
  let ciToken = '';
  let revokedToken = '';
  let revokedPersonalToken = '';
  let readOnlyPersonalToken = '';

  before(async () => {
    db = await createTestDb();
    const people: Array<{ label: string; roles: RoleName[] }> = [
      { label: 'no role', roles: [] },
      ...ALL_ROLES.map((r) => ({ label: r.toLowerCase(), roles: [r] })),
      { label: 'every role', roles: [...ALL_ROLES] },
    ];
    for (const p of people) {
      const slug = p.label.replace(/\s+/g, '-');
      const user = await db.db.user.create({ data: { email: `${slug}@matrix.test`, name: p.label, roles: p.roles } });
      const { token: personalToken } = await issuePersonalToken({ userId: user.id, input: { name: 'matrix', scope: 'decide' } });
      callers.push({ ...p, cookie: await sessionCookie(user), personalToken });
    }
    adminCookie = callers.find((c) => c.label === 'admin')!.cookie;
    ciToken = (await issueCiToken({ actorId: null, input: { name: 'matrix', allRepositories: true } })).token;
    const revoked = await issueCiToken({ actorId: null, input: { name: 'matrix revoked', allRepositories: true } });
    await revokeCiToken({ actorId: null, id: revoked.record.id });
    revokedToken = revoked.token;
    const admin = await db.db.user.findFirstOrThrow({ where: { email: 'every-role@matrix.test' } });
    const revokedPersonal = await issuePersonalToken({ userId: admin.id, input: { name: 'matrix revoked' } });
    await revokePersonalToken({ userId: admin.id, id: revokedPersonal.record.id });
    revokedPersonalToken = revokedPersonal.token;
    readOnlyPersonalToken = (await issuePersonalToken({ userId: admin.id, input: { name: 'matrix read', scope: 'read' } })).token;
  });
  after(() => db.drop());

  test('route files were found, including the admin and ingestion routes', () => {
    assert.ok(routeFiles.includes('app/api/admin/users/route.ts'), routeFiles.join(', '));
    assert.ok(routeFiles.includes('app/api/v1/failures/route.ts'), routeFiles.join(', '));
    assert.ok(routeFiles.includes('app/api/hosts/github/webhook/route.ts'), routeFiles.join(', '));
    assert.ok(routeFiles.includes('app/api/hosts/gitlab/webhook/route.ts'), routeFiles.join(', '));
    assert.ok(
      routes.every((r) => Object.keys(r.handlers).length > 0),
      'every route file exports at least one method',
    );
  });

  for (const route of routes) {
    for (const [method, handler] of Object.entries(route.handlers) as Array<[Method, Handler]>) {
      const name = `${method} ${route.url}  (${route.file})`;
      if (NOT_WRAPPED.has(route.file)) continue;

      describe(name, () => {
        const policy = expectedPolicy(route);

        test(`is made with withRoute and follows the "${policy}" policy for its path`, () => {
          assert.ok(handler.access, 'the handler has no .access: wrap it with withRoute from lib/http/route.ts');
          const access = handler.access;
          if (policy === 'public') assert.equal(access.auth, 'public');
          if (policy === 'token') assert.equal(access.auth, 'token', 'routes under /api/v1 are for CI tokens');
          if (policy === 'admin') assert.deepEqual(access, { auth: 'session', roles: ['ADMIN'] }, 'admin routes are ADMIN only');
          if (policy === 'webhook') {
            assert.ok(access.auth === 'webhook', 'code-host webhooks are authenticated by their signature');
            assert.equal(access.host, route.url.split('/')[3]);
            assert.equal(typeof access.verify, 'function');
          }
          if (policy === 'session') assert.equal(access.auth, 'session', 'only listed routes may be public, token or webhook routes');
        });

        if (policy === 'webhook') {
          // authenticated by the delivery's own signature or secret token: nothing else lets a caller in
          test('anonymous (no signature) → 401', async () => {
            assert.equal(await call({ route, method }), 401);
          });
          test('an admin session cookie → 401', async () => {
            assert.equal(await call({ route, method, headers: { cookie: adminCookie } }), 401);
          });
          test('a valid CI token → 401', async () => {
            assert.equal(await call({ route, method, headers: { authorization: `Bearer ${ciToken}` } }), 401);
          });
          test('a made-up signature or secret token → 401', async () => {
            const headers = {
              'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
              'x-gitlab-token': 'made-up-token',
              'x-github-delivery': 'd1',
              'x-github-event': 'workflow_run',
              'x-gitlab-event': 'Pipeline Hook',
              'x-gitlab-event-uuid': 'd1',
            };
            assert.equal(await call({ route, method, headers }), 401);
          });
          return;
        }

        if (policy === 'public') {
          test('anonymous callers are let in', async () => {
            assertAllowed(await call({ route, method }), 'anonymous');
          });
          return;
        }

        test('anonymous → 401', async () => {
          assert.equal(await call({ route, method }), 401);
        });

        if (policy === 'token') {
          test('a session cookie alone → 401', async () => {
            assert.equal(await call({ route, method, headers: { cookie: adminCookie } }), 401);
          });
          test('a revoked CI token → 401', async () => {
            assert.equal(await call({ route, method, headers: { authorization: `Bearer ${revokedToken}` } }), 401);
          });
          test('a made-up CI token → 401', async () => {
            assert.equal(await call({ route, method, headers: { authorization: `Bearer ffx_${'A'.repeat(43)}` } }), 401);
          });
          test('a personal token (a person, not CI) → 401', async () => {
            const caller = callers.find((c) => c.label === 'every role')!;
            assert.equal(await call({ route, method, headers: { authorization: `Bearer ${caller.personalToken}` } }), 401);
          });
          test('a valid CI token → let in', async () => {
            assertAllowed(await call({ route, method, headers: { authorization: `Bearer ${ciToken}` } }), 'CI token');
          });
          test('a CI token from any origin, in any content type → not refused as cross-site (no cookie to abuse)', async () => {
            const headers = { authorization: `Bearer ${ciToken}`, origin: 'https://ci.example', 'sec-fetch-site': 'cross-site' };
            const status = await call({ route, method, headers: { ...headers, 'content-type': 'text/plain' } });
            assertAllowed(status, 'CI token, cross-origin');
          });
          return;
        }

        test('a CI token instead of a session → 401', async () => {
          assert.equal(await call({ route, method, headers: { authorization: `Bearer ${ciToken}` } }), 401);
        });

        const sessionAccess = handler.access as Extract<Access, { auth: 'session' }> | undefined;
        if (!sessionAccess?.allowPersonalToken) {
          test('a personal token → 401 (this route takes the session cookie only)', async () => {
            const caller = callers.find((c) => c.label === 'every role')!;
            assert.equal(await call({ route, method, headers: { authorization: `Bearer ${caller.personalToken}` } }), 401);
          });
        } else {
          test('a revoked or made-up personal token → 401', async () => {
            assert.equal(await call({ route, method, headers: { authorization: `Bearer ${revokedPersonalToken}` } }), 401);
            assert.equal(await call({ route, method, headers: { authorization: `Bearer ffp_${'A'.repeat(43)}` } }), 401);
          });
          const needs = sessionAccess.personalTokenScope ?? (isMutating(method) ? 'decide' : 'read');
          test(`a personal token with the read scope → ${needs === 'read' ? 'let in' : '403 (needs decide)'}`, async () => {
            const status = await call({ route, method, headers: { authorization: `Bearer ${readOnlyPersonalToken}` } });
            if (needs === 'read') assertAllowed(status, 'read-scoped personal token');
            else assert.equal(status, 403, 'a read-scoped token must not decide');
          });
          test('a personal token from another origin, without JSON → not refused as cross-site (no cookie to abuse)', async () => {
            const caller = callers.find((c) => c.label === 'every role')!;
            const headers = { authorization: `Bearer ${caller.personalToken}`, origin: 'https://elsewhere.example', 'content-type': 'text/plain' };
            const status = await call({ route, method, headers: { ...headers, 'sec-fetch-site': 'cross-site' } });
            assertAllowed(status, 'personal token, cross-origin');
            assert.notEqual(status, 415, 'a token caller is not held to the cookie rules');
          });
          for (const label of ['no role', ...ALL_ROLES.map((r) => r.toLowerCase()), 'every role']) {
            test(`with the personal token of ${label}`, async () => {
              const caller = callers.find((c) => c.label === label)!;
              const status = await call({ route, method, headers: { authorization: `Bearer ${caller.personalToken}` } });
              if (allows(sessionAccess, caller.roles)) assertAllowed(status, `${label} (personal token)`);
              else assert.equal(status, 403, `${label} (personal token) must be refused`);
            });
          }
        }

        if (isMutating(method)) {
          // the cookie of someone every route lets in, so only the forgery check can refuse
          const cookieOf = () => callers.find((c) => c.label === 'every role')!.cookie;
          const refusedOrigins: Array<[string, Record<string, string | null>]> = [
            ['another origin on the same site (another port)', { origin: 'http://localhost:3001', 'sec-fetch-site': 'same-site' }],
            ['a cross-site origin', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
            ['the opaque origin "null" (sandboxed frame, data: URL)', { origin: 'null', 'sec-fetch-site': 'cross-site' }],
            ['the right host over another scheme', { origin: 'https://localhost:3000' }],
            ['no Origin, Sec-Fetch-Site same-site', { origin: null, 'sec-fetch-site': 'same-site' }],
            ['neither Origin nor Sec-Fetch-Site', { origin: null, 'sec-fetch-site': null }],
          ];
          for (const [what, headers] of refusedOrigins) {
            test(`with the session cookie from ${what} → 403`, async () => {
              assert.equal(await call({ route, method, headers: { cookie: cookieOf(), ...headers } }), 403);
            });
          }
          test('with the session cookie, no Origin but Sec-Fetch-Site same-origin → let in', async () => {
            const status = await call({ route, method, headers: { cookie: cookieOf(), origin: null, 'sec-fetch-site': 'same-origin' } });
            assertAllowed(status, 'same-origin by Sec-Fetch-Site');
          });
          for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', null]) {
            test(`with the session cookie from our origin but Content-Type ${type ?? '(none)'} → 415`, async () => {
              assert.equal(await call({ route, method, headers: { cookie: cookieOf(), 'content-type': type } }), 415);
            });
          }
        }

        for (const label of ['no role', ...ALL_ROLES.map((r) => r.toLowerCase()), 'every role']) {
          test(`as ${label}`, async () => {
            const caller = callers.find((c) => c.label === label)!;
            const access = handler.access as Extract<Access, { auth: 'session' }>;
            const status = await call({ route, method, headers: { cookie: caller.cookie } });
            if (allows(access, caller.roles)) assertAllowed(status, label);
            else assert.equal(status, 403, `${label} must be refused`);
          });
        }
      });
    }
  }

  describe('sessions are re-checked against the database on every request', () => {
    const adminList = () => routes.find((r) => r.file === 'app/api/admin/users/route.ts')!;

    test('a disabled user’s cookie → 401, and works again once re-enabled', async () => {
      const user = await db.db.user.create({ data: { email: 'disabled@matrix.test', name: 'Disabled', roles: ['ADMIN'] } });
      const cookie = await sessionCookie(user);
      assert.equal(await call({ route: adminList(), method: 'GET', headers: { cookie } }), 200);
      await db.db.user.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
      assert.equal(await call({ route: adminList(), method: 'GET', headers: { cookie } }), 401);
      await db.db.user.update({ where: { id: user.id }, data: { disabledAt: null } });
      assert.equal(await call({ route: adminList(), method: 'GET', headers: { cookie } }), 200);
    });

    test('a role removed after sign-in takes effect on the next request', async () => {
      const user = await db.db.user.create({ data: { email: 'demoted@matrix.test', name: 'Demoted', roles: ['ADMIN', 'REVIEWER'] } });
      const cookie = await sessionCookie(user);
      assert.equal(await call({ route: adminList(), method: 'GET', headers: { cookie } }), 200);
      await db.db.user.update({ where: { id: user.id }, data: { roles: ['REVIEWER'] } });
      assert.equal(await call({ route: adminList(), method: 'GET', headers: { cookie } }), 403);
    });

    test('a deleted user’s cookie and a cookie signed with another secret → 401', async () => {
      const gone = await db.db.user.create({ data: { email: 'ghost@matrix.test', name: 'Ghost', roles: ['ADMIN'] } });
      const ghost = await sessionCookie(gone);
      await db.db.user.delete({ where: { id: gone.id } });
      assert.equal(await call({ route: adminList(), method: 'GET', headers: { cookie: ghost } }), 401);
      const user = await db.db.user.create({ data: { email: 'forged@matrix.test', name: 'Forged', roles: ['ADMIN'] } });
      const forged = await encode({ token: { sub: user.id }, secret: 'some-other-secret-of-enough-length' });
      assert.equal(await call({ route: adminList(), method: 'GET', headers: { cookie: `${SESSION_COOKIE}=${forged}` } }), 401);
    });
  });
});
