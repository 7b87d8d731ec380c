import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  FilterPolicySchema,
  ModelSettingsSchema,
  RepositorySettingsSchema,
  parseFlowfixFile,
  resolveModelEndpoint,
  resolveEffectiveSettings,
} from '@/common/settings';
import { readFlowfixFileAtRevision } from '@/lib/repositories/flowfix-file';

describe('schemas', () => {
  test('an empty column reads back with every default', () => {
    const s = RepositorySettingsSchema.parse({});
    // no test command: the run's setup detects the repository's own (agent/testing/detect.ts)
    assert.equal(s.test, undefined);
    assert.equal(s.network, false);
    assert.equal(s.timeLimits.testSeconds, 600);
    const m = ModelSettingsSchema.parse({});
    assert.deepEqual([m.policy, m.temperature, m.topP, m.maxToolCalls, m.timeLimitMinutes, m.suspects], ['offline', 0.1, 0.95, 100, 30, 3]);
    const f = FilterPolicySchema.parse({});
    assert.equal(f.pre.maxFailingTests, 20);
    assert.equal(f.post.weakensAssertions, true);
  });

  test('invalid values are refused', () => {
    assert.equal(RepositorySettingsSchema.safeParse({ test: '' }).success, false);
    assert.equal(RepositorySettingsSchema.safeParse({ env: { 'BAD NAME': 'x' } }).success, false);
    assert.equal(ModelSettingsSchema.safeParse({ policy: 'magic' }).success, false);
    assert.equal(ModelSettingsSchema.safeParse({ baseUrl: 'not a url' }).success, false);
    assert.equal(FilterPolicySchema.safeParse({ pre: { maxFilesChanged: 0 } }).success, false);
  });
});

describe('.flowfix.json', () => {
  test('admin settings win over the file, the file over the defaults', () => {
    const eff = resolveEffectiveSettings({
      adminSettings: { build: 'tsc -p .', timeLimits: { testSeconds: 5 } },
      adminFilterPolicy: { pre: { maxFailingTests: 3 } },
      flowfixFileText: JSON.stringify({
        settings: { test: 'pytest -q', build: 'make', timeLimits: { buildSeconds: 7 } },
        filterPolicy: { pre: { maxFailingTests: 9, maxFilesChanged: 4 } },
      }),
    });
    assert.equal(eff.settings.test, 'pytest -q');
    assert.equal(eff.settings.build, 'tsc -p .');
    assert.deepEqual(eff.settings.timeLimits, { installSeconds: 900, buildSeconds: 7, testSeconds: 5, regressionSeconds: 1800 });
    assert.equal(eff.filterPolicy.pre.maxFailingTests, 3);
    assert.equal(eff.filterPolicy.pre.maxFilesChanged, 4);
    assert.deepEqual(eff.warnings, []);
  });

  test('a file cannot turn the network on, but the rest of it still applies', () => {
    const eff = resolveEffectiveSettings({
      adminSettings: {},
      adminFilterPolicy: {},
      flowfixFileText: JSON.stringify({ settings: { test: 'pytest', network: true } }),
    });
    assert.equal(eff.settings.network, false);
    assert.equal(eff.settings.test, 'pytest');
    assert.match(eff.warnings.join('\n'), /network ignored/);
  });

  test('an invalid file is ignored with warnings', () => {
    assert.match(parseFlowfixFile('{nope').warnings[0], /not valid JSON/);
    const unknown = parseFlowfixFile(JSON.stringify({ settings: { tset: 'typo' } }));
    assert.deepEqual(unknown.file, {});
    assert.match(unknown.warnings[0], /tset/);
    // model settings are not the repository's to choose
    assert.ok(parseFlowfixFile(JSON.stringify({ modelSettings: { baseUrl: 'http://evil' } })).warnings.length > 0);
  });

  test('read from the base revision with git', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-settings-'));
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
      git('init', '-q', '-b', 'main');
      git('config', 'user.email', 't@example.com');
      git('config', 'user.name', 't');
      writeFileSync(path.join(dir, '.flowfix.json'), '{"settings":{"test":"pytest"}}');
      git('add', '.');
      git('commit', '-q', '-m', 'base');
      const base = git('rev-parse', 'HEAD');
      writeFileSync(path.join(dir, '.flowfix.json'), '{"settings":{"test":"evil"}}');
      git('commit', '-q', '-am', 'head');
      assert.equal(await readFlowfixFileAtRevision({ repoPath: dir, rev: base }), '{"settings":{"test":"pytest"}}');
      git('rm', '-q', '.flowfix.json');
      git('commit', '-q', '-m', 'gone');
      assert.equal(await readFlowfixFileAtRevision({ repoPath: dir, rev: 'HEAD' }), null);
      assert.equal(await readFlowfixFileAtRevision({ repoPath: dir, rev: '--output=/tmp/x' }), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the model endpoint', () => {
  const settings = ModelSettingsSchema.parse({});
  test('the repository’s own, else the server’s; none unless both a URL and a model are known', () => {
    assert.equal(resolveModelEndpoint({ settings, env: {} }), undefined);
    assert.equal(resolveModelEndpoint({ settings, env: { FLOWFIX_MODEL_BASE_URL: 'http://x/v1' } }), undefined);
    assert.deepEqual(resolveModelEndpoint({ settings, env: { FLOWFIX_MODEL_BASE_URL: 'http://x/v1', FLOWFIX_MODEL: 'small' } }), {
      baseURL: 'http://x/v1',
      model: 'small',
    });
    assert.deepEqual(
      resolveModelEndpoint({
        settings: ModelSettingsSchema.parse({ baseUrl: 'http://repo/v1', model: 'big' }),
        env: { FLOWFIX_MODEL_BASE_URL: 'http://x/v1', FLOWFIX_MODEL: 'small' },
      }),
      { baseURL: 'http://repo/v1', model: 'big' },
    );
    assert.deepEqual(resolveModelEndpoint({ settings: ModelSettingsSchema.parse({ model: 'big' }), env: { FLOWFIX_MODEL_BASE_URL: 'http://x/v1' } }), {
      baseURL: 'http://x/v1',
      model: 'big',
    });
  });
});
