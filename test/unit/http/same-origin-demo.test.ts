import { test } from 'node:test';
import assert from 'node:assert/strict';

// The demo listens on 127.0.0.1 and calls itself localhost: a browser at
// either name is on flowfix's own page (read once from the environment, so set
// before the modules load).
process.env.NEXTAUTH_URL = 'http://localhost:3000';
process.env.FLOWFIX_DEMO = '1';
const { assertSameOrigin, isSameOrigin } = await import('../../../lib/http/route');

const post = (origin: string) => new Request('http://127.0.0.1:3000/api/anything', { method: 'POST', headers: { origin, 'content-type': 'application/json' } });

test('the demo takes cookie requests from both loopback names, and from nothing else', () => {
  assert.equal(isSameOrigin(post('http://127.0.0.1:3000')), true);
  assert.equal(isSameOrigin(post('http://localhost:3000')), true);
  assert.doesNotThrow(() => assertSameOrigin(post('http://127.0.0.1:3000')));
  assert.equal(isSameOrigin(post('http://127.0.0.1:3001')), false);
  assert.equal(isSameOrigin(post('http://evil.example')), false);
});
