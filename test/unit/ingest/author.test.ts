import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inferAuthorKind } from '@/lib/ingest/author';

describe('inferAuthorKind', () => {
  for (const author of [
    'dependabot[bot]',
    'renovate[bot]',
    'Renovate Bot',
    'renovate',
    'github-actions[bot]',
    'release-bot',
    'project_501_bot_3f2a9c1d',
    'group_12_bot',
  ]) {
    test(`${author} is a bot`, () => {
      assert.equal(inferAuthorKind({ author }), 'BOT');
    });
  }

  for (const author of ['Ada Lovelace', 'Abbott', 'robot-arm enthusiast', 'renovator', 'Botond Kiss', 'project_manager']) {
    test(`${author} is a person`, () => {
      assert.equal(inferAuthorKind({ author }), 'HUMAN');
    });
  }

  test('a bot email marks the author a bot', () => {
    assert.equal(inferAuthorKind({ author: 'Build', authorEmail: '49699333+dependabot[bot]@users.noreply.github.com' }), 'BOT');
    assert.equal(inferAuthorKind({ author: 'Ada', authorEmail: 'ada@example.com' }), 'HUMAN');
  });

  test('what the CI system declares wins', () => {
    assert.equal(inferAuthorKind({ author: 'Ada', declared: 'bot' }), 'BOT');
    assert.equal(inferAuthorKind({ author: 'dependabot[bot]', declared: 'human' }), 'HUMAN');
  });
});
