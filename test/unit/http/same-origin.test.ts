import { test } from 'node:test';
import assert from 'node:assert/strict';

// The public URL is read once from the environment, so it is set before the
// modules that read it load. A path and a trailing slash must not matter: the
// browser's Origin header never carries them.
process.env.NEXTAUTH_URL = 'https://flowfix.example.com/some/base/';
const { assertSameOrigin, isSameOrigin, ownOrigins } = await import('../../../lib/http/route');
const { AppError } = await import('../../../lib/errors');
const { POST: authPost } = await import('../../../app/api/auth/[...nextauth]/route');

function request(method: string, headers: Record<string, string>): Request {
  return new Request('https://flowfix.example.com/api/anything', { method, headers });
}

function refusal(fn: () => void): { code: string } | null {
  try {
    fn();
    return null;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return { code: err.code };
  }
}

test('the configured public origin, and only it, counts as our own pages', () => {
  assert.equal(isSameOrigin(request('POST', { origin: 'https://flowfix.example.com' })), true);
  for (const other of [
    'http://flowfix.example.com',
    'https://flowfix.example.com:8443',
    'https://evil.flowfix.example.com',
    'https://flowfix.example.com.evil.example',
    'null',
  ]) {
    assert.equal(isSameOrigin(request('POST', { origin: other })), false, other);
  }
});

test('without Origin, Sec-Fetch-Site decides; with neither, the request is refused', () => {
  assert.equal(isSameOrigin(request('POST', { 'sec-fetch-site': 'same-origin' })), true);
  assert.equal(isSameOrigin(request('POST', { 'sec-fetch-site': 'same-site' })), false);
  assert.equal(isSameOrigin(request('POST', { 'sec-fetch-site': 'none' })), false);
  assert.equal(isSameOrigin(request('POST', {})), false);
  // a wrong Origin is not rescued by a claim of same-origin
  assert.equal(isSameOrigin(request('POST', { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' })), false);
});

test('a cookie request that changes something must be same-origin (403) and JSON (415); reads pass', () => {
  const ours = { origin: 'https://flowfix.example.com' };
  assert.equal(
    refusal(() => assertSameOrigin(request('POST', { ...ours, 'content-type': 'application/json; charset=utf-8' }))),
    null,
  );
  assert.equal(
    refusal(() => assertSameOrigin(request('DELETE', { ...ours, 'content-type': 'Application/JSON' }))),
    null,
  );
  assert.deepEqual(
    refusal(() => assertSameOrigin(request('POST', { ...ours, 'content-type': 'text/plain' }))),
    { code: 'unsupported_media_type' },
  );
  assert.deepEqual(
    refusal(() => assertSameOrigin(request('PATCH', { ...ours }))),
    { code: 'unsupported_media_type' },
  );
  assert.deepEqual(
    refusal(() => assertSameOrigin(request('POST', { origin: 'https://evil.example', 'content-type': 'application/json' }))),
    { code: 'forbidden' },
  );
  assert.equal(
    refusal(() => assertSameOrigin(request('GET', { origin: 'https://evil.example' }))),
    null,
  );
});

test('next-auth’s sign-in and sign-out POSTs are refused from another origin, before next-auth runs', async () => {
  const ctx = (action: string[]) => ({ params: Promise.resolve({ nextauth: action }) });
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  for (const action of [['signout'], ['callback', 'credentials'], ['signin', 'credentials']]) {
    const req = new Request(`https://flowfix.example.com/api/auth/${action.join('/')}`, {
      method: 'POST',
      headers: { ...form, origin: 'https://evil.example' },
      body: 'csrfToken=x&email=a%40b.c&password=p',
    });
    const res = await authPost(req, ctx(action));
    assert.equal(res.status, 403, action.join('/'));
    // the refusal says why, in words the sign-in form shows as they are
    const body = (await res.json()) as { error: { message: string } };
    assert.match(body.error.message, /https:\/\/evil\.example/, action.join('/'));
    assert.match(body.error.message, /https:\/\/flowfix\.example\.com/, action.join('/'));
    assert.match(body.error.message, action[0] === 'signout' ? /^Sign-out refused/ : /^Sign-in refused/);
  }
});

test('in demo mode, a server on loopback is its own page under each loopback name, on the same port and scheme', () => {
  const demo = ownOrigins({ publicOrigin: 'http://localhost:3000', demo: true });
  for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) assert.ok(demo.includes(origin), origin);
  for (const origin of ['http://127.0.0.1:3001', 'https://127.0.0.1:3000', 'http://127.0.0.2:3000', 'http://localhost.evil.example:3000']) {
    assert.ok(!demo.includes(origin), origin);
  }
  assert.ok(ownOrigins({ publicOrigin: 'http://127.0.0.1:3100', demo: true }).includes('http://localhost:3100'));
  // outside demo mode, or on a real host name, the public origin alone
  assert.deepEqual(ownOrigins({ publicOrigin: 'http://localhost:3000', demo: false }), ['http://localhost:3000']);
  assert.deepEqual(ownOrigins({ publicOrigin: 'https://flowfix.example.com', demo: true }), ['https://flowfix.example.com']);
});
