import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// The sign-in form and the sign-out button show the server's own reason when
// it refuses, and call a failed connection one only when it is one. The
// refusal served here is the one flowfix's auth route really writes for a page
// opened at 127.0.0.1 when its public URL is localhost.
process.env.NEXTAUTH_URL = 'http://localhost:3000';
delete process.env.FLOWFIX_DEMO;
const { signInWithPassword, signOutNow, startSingleSignOn, UNREACHABLE } = await import('../../../components/signin/auth-client');
const { POST: authPost } = await import('../../../app/api/auth/[...nextauth]/route');

async function realRefusal(action: string[]): Promise<{ status: number; body: string }> {
  const res = await authPost(
    new Request(`http://127.0.0.1:3000/api/auth/${action.join('/')}`, {
      method: 'POST',
      headers: { origin: 'http://127.0.0.1:3000', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrfToken=t',
    }),
    { params: Promise.resolve({ nextauth: action }) },
  );
  return { status: res.status, body: await res.text() };
}

// what the stand-in server answers next to each POST, by path
let answers: Record<string, { status: number; body: string; type?: string }> = {};
const posted: Array<{ path: string; form: Record<string, string> }> = [];
let server: http.Server;
let base = '';

before(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/api/auth/csrf') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ csrfToken: 'the-token' }));
      return;
    }
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      posted.push({ path, form: Object.fromEntries(new URLSearchParams(raw)) });
      const answer = answers[path] ?? { status: 404, body: 'not found', type: 'text/plain' };
      res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a sign-in refused for its origin shows the server’s reason, not “could not reach the server”', async () => {
  const refusal = await realRefusal(['callback', 'credentials']);
  assert.equal(refusal.status, 403);
  answers = { '/api/auth/callback/credentials': refusal };
  const result = await signInWithPassword({ email: 'ada@example.test', password: 'pw', baseUrl: base });
  assert.equal(result.ok, false);
  const message = (result as { message: string }).message;
  assert.notEqual(message, UNREACHABLE);
  assert.match(
    message,
    /^Sign-in refused: this page is at http:\/\/127\.0\.0\.1:3000, but flowfix accepts it only from its own pages at http:\/\/localhost:3000\./,
  );
});

test('a refused password is next-auth’s 401 with where it would send the browser: its error is the message (wrong password, throttled)', async () => {
  // next-auth's credentials callback answers a failed authorize with 401 and the error page's address (core/routes/callback.js)
  answers = {
    '/api/auth/callback/credentials': {
      status: 401,
      body: JSON.stringify({ url: 'http://localhost:3000/api/auth/error?error=CredentialsSignin&provider=credentials' }),
    },
  };
  const wrong = await signInWithPassword({ email: 'a@b.c', password: 'x', baseUrl: base });
  assert.equal(wrong.ok, false);
  assert.doesNotMatch((wrong as { message: string }).message, /Request failed|401/);
  answers = {
    '/api/auth/callback/credentials': {
      status: 401,
      body: JSON.stringify({ url: `http://localhost:3000/api/auth/error?error=${encodeURIComponent('SignInThrottled:120')}` }),
    },
  };
  const throttled = await signInWithPassword({ email: 'a@b.c', password: 'x', baseUrl: base });
  assert.match((throttled as { message: string }).message, /^Too many attempts; try again in 2 minutes\./);
});

test('the form posts next-auth’s token and fields; success and next-auth’s error codes read as before', async () => {
  answers = { '/api/auth/callback/credentials': { status: 200, body: JSON.stringify({ url: 'http://localhost:3000/' }) } };
  assert.deepEqual(await signInWithPassword({ email: 'ada@example.test', password: 'pw', baseUrl: base }), { ok: true });
  assert.deepEqual(posted.at(-1), {
    path: '/api/auth/callback/credentials',
    form: { email: 'ada@example.test', password: 'pw', csrfToken: 'the-token', json: 'true' },
  });

  answers = {
    '/api/auth/callback/credentials': { status: 200, body: JSON.stringify({ url: 'http://localhost:3000/api/auth/error?error=CredentialsSignin' }) },
  };
  assert.deepEqual(await signInWithPassword({ email: 'a@b.c', password: 'x', baseUrl: base }), {
    ok: false,
    message: 'The email or password is not right, or the account is disabled.',
  });
  answers = {
    '/api/auth/callback/credentials': { status: 200, body: JSON.stringify({ url: 'http://localhost:3000/api/auth/error?error=SignInThrottled%3A61' }) },
  };
  assert.match(
    ((await signInWithPassword({ email: 'a@b.c', password: 'x', baseUrl: base })) as { message: string }).message,
    /^Too many attempts; try again in 2 minutes\./,
  );
});

test('an answer that is not JSON names its status; only a failed connection is called unreachable', async () => {
  answers = { '/api/auth/callback/credentials': { status: 502, body: '<html>Bad gateway</html>', type: 'text/html' } };
  assert.deepEqual(await signInWithPassword({ email: 'a@b.c', password: 'x', baseUrl: base }), { ok: false, message: 'Request failed (502)' });
  // a port nothing listens on: the server freed it
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  assert.deepEqual(await signInWithPassword({ email: 'a@b.c', password: 'x', baseUrl: `http://127.0.0.1:${port}` }), { ok: false, message: UNREACHABLE });
});

test('sign-out and single sign-on show the server’s reason too', async () => {
  answers = { '/api/auth/signout': await realRefusal(['signout']) };
  assert.match(((await signOutNow({ baseUrl: base })) as { message: string }).message, /^Sign-out refused: this page is at http:\/\/127\.0\.0\.1:3000/);
  answers = { '/api/auth/signout': { status: 200, body: JSON.stringify({ url: 'http://localhost:3000/signin' }) } };
  assert.deepEqual(await signOutNow({ baseUrl: base }), { ok: true });

  answers = { '/api/auth/signin/oidc': await realRefusal(['signin', 'oidc']) };
  assert.match(((await startSingleSignOn({ provider: 'oidc', callbackUrl: '/', baseUrl: base })) as { message: string }).message, /^Sign-in refused/);
  answers = { '/api/auth/signin/oidc': { status: 200, body: JSON.stringify({ url: 'https://idp.example.com/authorize?x=1' }) } };
  assert.deepEqual(await startSingleSignOn({ provider: 'oidc', callbackUrl: '/', baseUrl: base }), { ok: true, url: 'https://idp.example.com/authorize?x=1' });
});
