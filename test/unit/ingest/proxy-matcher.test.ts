import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { config } from '@/proxy';

// The proxy must not run on the CI API: Next would buffer a copy of each
// upload and cut it at its 10 MB proxy body limit, below the 20 MB the
// ingestion route accepts and refuses with 413 itself.

const matchers = config.matcher.map((m) => new RegExp(`^${m}$`));
const proxied = (pathname: string) => matchers.some((re) => re.test(pathname));

describe('proxy matcher', () => {
  test('skips the token-authenticated CI API', () => {
    assert.equal(proxied('/api/v1/failures'), false);
  });

  test('skips the code hosts’ webhooks: no session, authenticated by their signature in the handler, bodies up to the upload limit', () => {
    assert.equal(proxied('/api/hosts/github/webhook'), false);
    assert.equal(proxied('/api/hosts/gitlab/webhook'), false);
    assert.equal(proxied('/api/admin/hosts'), true, 'the admin’s code-host routes stay behind it');
  });

  test('still covers pages and the session APIs', () => {
    assert.equal(proxied('/'), true);
    assert.equal(proxied('/changes'), true);
    assert.equal(proxied('/api/changes'), true);
    assert.equal(proxied('/api/v10/x'), true);
  });
});
