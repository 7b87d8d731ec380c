import { NextResponse, type NextRequest } from 'next/server';
import { AppError, toHttpError } from '../errors';
import { getSessionUser, hasAnyRole, type RoleName, type SessionUser } from '../auth/session';
import { authenticateToken, type TokenPrincipal } from '../auth/tokens';
import { authenticatePersonalToken, isPersonalTokenHeader } from '../auth/personal-tokens';

// The one route wrapper: resolves who is calling, checks the role, runs the
// handler, translates errors. Per-route rules stay in the handler.
//
// Each wrapped handler carries its access rule (`handler.access`) so the
// role-matrix test can enumerate every route and prove anonymous callers get
// 401 and the wrong roles 403.

export type Access =
  // allowPersonalToken: a personal API token (Bearer ffp_…, lib/auth/personal-tokens.ts)
  // may stand in for the session cookie, acting as its user with the user's roles
  | { auth: 'session'; roles: readonly RoleName[] | 'any'; allowPersonalToken?: boolean }
  | { auth: 'token' }
  | { auth: 'public' };

interface BaseContext<P> {
  req: NextRequest;
  params: P;
}
export type SessionContext<P> = BaseContext<P> & { user: SessionUser; via: 'cookie' | 'personal_token' };
export type TokenContext<P> = BaseContext<P> & { token: TokenPrincipal };
export type PublicContext<P> = BaseContext<P>;

type ContextFor<A extends Access, P> = A extends { auth: 'session' }
  ? SessionContext<P>
  : A extends { auth: 'token' }
    ? TokenContext<P>
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
      let ctx: BaseContext<P> & Partial<{ user: SessionUser; via: 'cookie' | 'personal_token'; token: TokenPrincipal }>;
      if (access.auth === 'session') {
        let user = await getSessionUser(req);
        let via: 'cookie' | 'personal_token' = 'cookie';
        if (!user && access.allowPersonalToken && isPersonalTokenHeader(req.headers.get('authorization'))) {
          user = await authenticatePersonalToken(req.headers.get('authorization'));
          via = 'personal_token';
        }
        if (!user) throw new AppError('unauthenticated', 'Sign in to continue');
        if (access.roles !== 'any' && !hasAnyRole(user, access.roles)) {
          throw new AppError('forbidden', `Requires one of the roles: ${access.roles.join(', ').toLowerCase()}`);
        }
        ctx = { req, params, user, via };
      } else if (access.auth === 'token') {
        ctx = { req, params, token: await authenticateToken(req.headers.get('authorization')) };
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
