import { NextResponse, type NextRequest } from 'next/server';
import { AppError, toHttpError } from '../errors';
import { getSessionUser, hasAnyRole, type RoleName, type SessionUser } from '../auth/session';
import { authenticateToken, type TokenPrincipal } from '../tokens/auth';
import { authenticatePersonalToken, isPersonalTokenHeader, scopeCovers, type PersonalTokenScopeName } from '../tokens/personal-tokens';
import { getEnv, publicOrigin } from '../env';

// The one route wrapper: resolves who is calling, checks the role, runs the
// handler, translates errors. Per-route rules stay in the handler.
//
// Each wrapped handler carries its access rule (`handler.access`) so the
// role-matrix test can enumerate every route and prove anonymous callers get
// 401 and the wrong roles 403.

export type Access =
  // allowPersonalToken: a personal API token (Bearer ffp_…, lib/tokens/personal-tokens.ts)
  // may stand in for the session cookie, acting as its user with the user's roles;
  // personalTokenScope: the scope such a token needs (default: read for GET/HEAD, decide otherwise)
  | {
      auth: 'session';
      roles: readonly RoleName[] | 'any';
      allowPersonalToken?: boolean;
      personalTokenScope?: PersonalTokenScopeName;
    }
  | { auth: 'token' }
  // a signed delivery (a code host's webhook): `verify` authenticates it by
  // its signature or secret token before the handler runs, and its answer is
  // the handler's `webhook` (lib/hosts/webhooks.ts `webhookAccess`); `host`
  // names the sender. The wrapper knows no feature.
  | { auth: 'webhook'; host: string; verify: (req: NextRequest) => Promise<unknown> }
  | { auth: 'public' };

interface BaseContext<P> {
  req: NextRequest;
  params: P;
}
// via: the session cookie, a personal token issued for the command line, or one issued for the editor
export type SessionVia = 'cookie' | 'personal_token' | 'editor_token';
export type SessionContext<P> = BaseContext<P> & { user: SessionUser; via: SessionVia };
export type TokenContext<P> = BaseContext<P> & { token: TokenPrincipal };
export type PublicContext<P> = BaseContext<P>;
export type WebhookContext<P, W = unknown> = BaseContext<P> & { webhook: W };

type ContextFor<A extends Access, P> = A extends { auth: 'session' }
  ? SessionContext<P>
  : A extends { auth: 'token' }
    ? TokenContext<P>
    : A extends { auth: 'webhook'; verify: (req: NextRequest) => Promise<infer W> }
      ? WebhookContext<P, W>
      : PublicContext<P>;

export type RouteHandler = ((req: NextRequest, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>) & {
  access: Access;
};

export function withRoute<A extends Access, P = Record<string, string>>(
  access: A,
  handler: (ctx: ContextFor<A, P>) => Promise<Response | unknown>,
): RouteHandler {
  const wrapped = async (req: NextRequest, routeCtx?: { params?: Promise<unknown> }): Promise<Response> => {
    try {
      const params = ((await routeCtx?.params) ?? {}) as P;
      let ctx: BaseContext<P> & Partial<{ user: SessionUser; via: SessionVia; token: TokenPrincipal; webhook: unknown }>;
      if (access.auth === 'session') {
        let user = await getSessionUser(req);
        let via: SessionVia = 'cookie';
        if (!user && access.allowPersonalToken && isPersonalTokenHeader(req.headers.get('authorization'))) {
          const principal = await authenticatePersonalToken(req.headers.get('authorization'));
          assertPersonalTokenScope(access, req.method, principal.scope);
          user = principal.user;
          via = principal.kind === 'ide' ? 'editor_token' : 'personal_token';
        }
        if (!user) throw new AppError('unauthenticated', 'Sign in to continue');
        if (via === 'cookie') assertSameOrigin(req);
        if (access.roles !== 'any' && !hasAnyRole(user, access.roles)) {
          throw new AppError('forbidden', `Requires one of the roles: ${access.roles.join(', ').toLowerCase()}`);
        }
        ctx = { req, params, user, via };
      } else if (access.auth === 'token') {
        ctx = { req, params, token: await authenticateToken(req.headers.get('authorization')) };
      } else if (access.auth === 'webhook') {
        ctx = { req, params, webhook: await access.verify(req) };
      } else {
        ctx = { req, params };
      }
      const result = await handler(ctx as ContextFor<A, P>);
      if (result instanceof Response) return result;
      return NextResponse.json(result ?? { ok: true });
    } catch (err) {
      const { status, body } = toHttpError(err);
      return NextResponse.json(body, { status, headers: { 'Cache-Control': 'no-store' } });
    }
  };
  return Object.assign(wrapped, { access }) as RouteHandler;
}

// ─── cross-site request forgery ───
// A session cookie rides along on any request the browser makes to us, even
// from a page on another origin (SameSite=Lax still sends it on a top-level
// form POST, and every port and subdomain of our host is "same-site"). So a
// request that can change something and is authorised by the cookie must
// come from our own pages: its Origin is the public origin (or, for a
// browser that sends no Origin, Sec-Fetch-Site says same-origin), and its
// body is JSON, which an HTML form cannot send and a cross-origin fetch
// cannot send without a CORS preflight we never answer. Token callers (CI,
// personal tokens) carry no ambient credential and are not checked.

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// the names of this machine's loopback interface, as a browser writes them in an origin
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The origins whose pages are flowfix's own: the public origin; in demo mode,
 * when that is a loopback name, also the same port and scheme under the other
 * loopback names (the demo listens on 127.0.0.1 and prints localhost, and a
 * person may open either). Only loopback: no other machine can serve them.
 */
export function ownOrigins({ publicOrigin: origin = publicOrigin(), demo = getEnv().FLOWFIX_DEMO }: { publicOrigin?: string; demo?: boolean } = {}): string[] {
  const url = new URL(origin);
  if (!demo || !LOOPBACK_HOSTS.includes(url.hostname)) return [url.origin];
  return LOOPBACK_HOSTS.map((host) => {
    const alias = new URL(url.origin);
    alias.hostname = host;
    return alias.origin;
  });
}

/** Did the browser send this request from one of flowfix's own pages? */
export function isSameOrigin(req: Request): boolean {
  const origin = req.headers.get('origin');
  if (origin !== null) return ownOrigins().includes(origin);
  return req.headers.get('sec-fetch-site') === 'same-origin';
}

/** Why a request is not from flowfix's own pages, in words for the person who sent it. */
export function crossOriginReason(req: Request, what: string): string {
  const origin = req.headers.get('origin');
  const from = origin && origin !== 'null' ? `this page is at ${origin}, but ` : 'the browser did not say which page sent this, and ';
  return `${what} refused: ${from}flowfix accepts it only from its own pages at ${publicOrigin()}. Open flowfix at ${publicOrigin()} and try again.`;
}

/** Refuses a state-changing request that did not come from flowfix's own pages (403), or is not JSON (415). */
export function assertSameOrigin(req: Request): void {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return;
  if (!isSameOrigin(req)) {
    throw new AppError('forbidden', `Cross-origin request refused: only pages served from ${publicOrigin()} may do this`);
  }
  const type = (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new AppError('unsupported_media_type', 'Send the request as Content-Type: application/json');
  }
}

// ─── personal token scopes ───
function assertPersonalTokenScope(access: Extract<Access, { auth: 'session' }>, method: string, held: PersonalTokenScopeName): void {
  const needs = access.personalTokenScope ?? (SAFE_METHODS.has(method.toUpperCase()) ? 'read' : 'decide');
  if (!scopeCovers(held, needs)) {
    throw new AppError('forbidden', `This personal token has the "${held}" scope; this needs "${needs}"`);
  }
}

/** Parses a JSON body with a zod-like schema; a malformed body is a 400, an invalid one a 422. */
export async function readJson<T>(req: Request, schema: { parse(v: unknown): T }): Promise<T> {
  let raw: unknown;
  try {
    raw = await req.json();
  } catch (err) {
    throw new AppError('bad_request', 'The request body is not valid JSON', { cause: err });
  }
  return schema.parse(raw);
}

/** Parses query-string parameters with a schema (422 on invalid). */
export function readQuery<T>(req: NextRequest, schema: { parse(v: unknown): T }): T {
  return schema.parse(Object.fromEntries(req.nextUrl.searchParams));
}
