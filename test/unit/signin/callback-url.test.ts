import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_AFTER_SIGNIN, safeCallbackUrl } from '../../../components/signin/callback-url';

test('same-origin relative paths are kept with their query and hash', () => {
  assert.equal(safeCallbackUrl('/changes?status=NEW&q=a%20b'), '/changes?status=NEW&q=a%20b');
  assert.equal(safeCallbackUrl('/admin?tab=tokens#x'), '/admin?tab=tokens#x');
  assert.equal(safeCallbackUrl(['/runs/abc', '/other']), '/runs/abc');
});

test('anything that could leave the site falls back to the default', () => {
  for (const bad of [
    'https://evil.example/',
    'http://localhost:3000/changes',
    '//evil.example/path',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    'evil.example',
    '/%0d%0aSet-Cookie:x',
    '/\tevil',
    ' /changes',
    '',
    null,
    undefined,
  ]) {
    const out = safeCallbackUrl(bad as string | null | undefined);
    assert.ok(out.startsWith('/') && !out.startsWith('//'), `${String(bad)} → ${out}`);
    if (bad !== '/%0d%0aSet-Cookie:x') assert.equal(out, DEFAULT_AFTER_SIGNIN, String(bad));
  }
});

test('path tricks stay on the site', () => {
  assert.equal(safeCallbackUrl('/../../evil'), '/evil');
  assert.equal(safeCallbackUrl('/./changes'), '/changes');
  // encoded CR/LF stay encoded inside the path: harmless, still same-origin
  assert.equal(safeCallbackUrl('/%0d%0aSet-Cookie:x'), '/%0d%0aSet-Cookie:x');
});

test('the sign-in page and next-auth endpoints are not destinations', () => {
  assert.equal(safeCallbackUrl('/signin?callbackUrl=/x'), DEFAULT_AFTER_SIGNIN);
  assert.equal(safeCallbackUrl('/api/auth/signout'), DEFAULT_AFTER_SIGNIN);
});
