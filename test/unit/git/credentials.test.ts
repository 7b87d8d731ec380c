import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { GitError, isCredentialRefusal, isRepositoryNotFound, runGit } from '@/lib/git/runner';

// Which git commands may be handed credentials (the token is in no other
// git's environment), and how a host's refusal of them is recognised.

const credentials = { username: 'x-access-token', password: 'ghs_secret' };

describe('git credentials', () => {
  test('the workspace profile takes credentials for clone and fetch only; push for anything; read never', async () => {
    for (const [profile, args] of [
      ['workspace', ['status']],
      ['workspace', ['ls-remote', 'https://example.invalid/r.git']],
      ['workspace', ['credential', 'fill']],
      ['read', ['fetch', 'origin']],
    ] as const) {
      await assert.rejects(runGit(profile, os.tmpdir(), [...args], { credentials }), /takes no credentials/, `${profile} ${args[0]}`);
    }
    // push: the credential helper answers with what was handed over
    const filled = await runGit('push', os.tmpdir(), ['credential', 'fill'], { input: 'protocol=https\nhost=example.com\n\n', credentials });
    assert.match(filled.stdout, /^password=ghs_secret$/m);
  });

  test('a refusal is git’s 401 ("Authentication failed") or 403; anything else is not', () => {
    const failed = (stderr: string) => new GitError('git clone failed', 'git clone', 128, stderr);
    assert.ok(isCredentialRefusal(failed("remote: HTTP Basic: Access denied\nfatal: Authentication failed for 'https://gitlab.example/group/shop.git/'\n")));
    assert.ok(isCredentialRefusal(failed("fatal: unable to access 'https://github.example/acme/shop.git/': The requested URL returned error: 403\n")));
    assert.ok(!isCredentialRefusal(failed("fatal: unable to access 'https://github.example/acme/shop.git/': The requested URL returned error: 500\n")));
    assert.ok(!isCredentialRefusal(failed("fatal: unable to access 'https://x.invalid/': Could not resolve host: x.invalid\n")));
    assert.ok(!isCredentialRefusal(new Error('Authentication failed for x')), 'only a git failure');
  });

  test('a repository the server says is not there is git’s "repository … not found" (what GitHub and GitLab answer a token that may not see it)', () => {
    const failed = (stderr: string) => new GitError('git clone failed', 'git clone', 128, stderr);
    assert.ok(isRepositoryNotFound(failed("remote: Repository not found.\nfatal: repository 'https://github.example/acme/shop.git/' not found\n")));
    assert.ok(isRepositoryNotFound(failed("fatal: unable to access 'https://git.example/acme/shop.git/': The requested URL returned error: 404\n")));
    assert.ok(!isRepositoryNotFound(failed("fatal: Authentication failed for 'https://gitlab.example/group/shop.git/'\n")));
    assert.ok(!isRepositoryNotFound(failed("fatal: couldn't find remote ref refs/pull/9/head\n")), 'a missing ref is not a missing repository');
    assert.ok(!isRepositoryNotFound(new Error("fatal: repository 'x' not found")), 'only a git failure');
  });
});
