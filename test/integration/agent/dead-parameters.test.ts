import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { runRepair, type RunRepairInput } from '@/agent/pipeline';
import { createOfflinePolicy } from '@/agent/policies/offline';
import { ArraySink } from '@/agent/report/sinks';
import type { Edit, Policy, PolicyOutcome } from '@/agent/types';
import { makeRepo, tsSettings, type TestRepo } from '../../helpers/agent-repos';

// A plausible fix that makes an option dead, in the whole pipeline on real
// repositories: an env-file parser whose `fast` switch the tests only use to
// compare two parsers' outputs (reading `options.path` instead passes them),
// and a path matcher whose `windows` option no test passes.

const repos: TestRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));
const usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };

const ENV_BASE = `export interface ParseOptions {
  fast?: boolean;
  path?: string;
}
export type Env = Record<string, string>;

export function parseCareful(text: string): Env {
  const env: Env = {};
  for (const raw of text.split('\\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return env;
}

export function parseQuick(text: string): Env {
  const env: Env = {};
  for (const m of text.matchAll(/^[ \\t]*([\\w.-]+)[ \\t]*=(.*)$/gm)) env[m[1]!] = m[2]!.trim();
  return env;
}

export function parse(text: string, options: ParseOptions = {}): Env {
  return options.fast ? parseQuick(text) : parseCareful(text);
}

export function sourceOf(options: ParseOptions = {}): string {
  return options.path ?? '.env';
}
`;
// the change drops comment lines before the quick parser and joins what is left with nothing
const ENV_HEAD = ENV_BASE.replace(
  '  return options.fast ? parseQuick(text) : parseCareful(text);',
  "  if (options.fast) return parseQuick(text.split('\\n').filter((line) => !line.startsWith('#')).join(''));\n  return parseCareful(text);",
);
const ENV_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, sourceOf } from '../src/env.ts';

const SAMPLE = '# service\\nHOST=localhost\\nPORT = 8080\\n';

test('the quick parser agrees with the careful one', () => {
  assert.deepEqual(parse(SAMPLE, { fast: true }), parse(SAMPLE));
});

test('the careful parser', () => {
  assert.deepEqual(parse(SAMPLE), { HOST: 'localhost', PORT: '8080' });
});

test('the source', () => {
  assert.equal(sourceOf({ path: 'prod.env' }), 'prod.env');
});
`;
const ENV_TARGET = 'test::the quick parser agrees with the careful one';

function envRepo(): TestRepo {
  const repo = makeRepo('flowfix-dead-env-');
  repo.write('package.json', '{ "name": "env", "private": true, "type": "module" }\n');
  repo.write('.gitignore', 'junit.xml\n');
  repo.write('src/env.ts', ENV_BASE);
  repo.write('test/env.test.ts', ENV_TEST);
  const base = repo.commit('env parser');
  repo.write('src/env.ts', ENV_HEAD);
  const head = repo.commit('parse: comment lines never reach the quick parser');
  const r = { ...repo, base, head, settings: tsSettings({ build: undefined }) };
  repos.push(r);
  return r;
}

/** A real policy with a fixed list of candidates, tried in order through the gates as the offline policy does. */
function candidatesPolicy(candidates: Edit[][]): Policy {
  return {
    name: 'offline',
    async run(ctx): Promise<PolicyOutcome> {
      for (const edits of candidates) {
        await ctx.gates.reset();
        let compiled = true;
        for (const edit of edits) compiled &&= (await ctx.gates.applyEdit(edit)).passed;
        if (compiled && (await ctx.gates.green()).verdict.passed) return { status: 'patched', usage };
      }
      await ctx.gates.reset();
      return { status: 'gave_up', exitReason: 'no_candidate', detail: `none of ${candidates.length} candidates passed`, usage };
    },
  };
}

function input(repo: TestRepo, overrides: Partial<RunRepairInput>): RunRepairInput {
  return {
    repoPath: repo.dir,
    baseRev: repo.base,
    headRev: repo.head,
    targetTests: [ENV_TARGET],
    settings: { ...repo.settings, coverage: false, proof: { ...repo.settings.proof, runs: 1 } },
    policy: createOfflinePolicy({ maxCandidates: 30 }),
    sink: new ArraySink(),
    change: { title: 'parse: comment lines never reach the quick parser', description: 'They are the slow part.', author: 'dev' },
    ...overrides,
  };
}

const READS_PATH: Edit = {
  kind: 'replace',
  file: 'src/env.ts',
  oldText: '  if (options.fast) return parseQuick(',
  newText: '  if (options.path) return parseQuick(',
};
const RIGHT: Edit = { kind: 'replace', file: 'src/env.ts', oldText: ".join(''));", newText: ".join('\\n'));" };

describe('a fix that leaves an option unread', () => {
  test('every plausible fix the offline search finds leaves `options.fast` unread: refused, the run ends dropped:dead_parameter', async () => {
    const repo = envRepo();
    const sink = new ArraySink();
    const result = await runRepair(input(repo, { sink }));
    assert.equal(result.exitReason, 'dropped:dead_parameter', `${result.exitReason}: ${result.exitDetail}`);
    assert.equal(result.status, 'no_fix');
    assert.match(result.exitDetail ?? '', /^parse no longer reads options\.fast/);
    assert.deepEqual(
      result.dropped?.findings.map((f) => [f.reason, f.file]),
      [['dead_parameter', 'src/env.ts']],
    );
    // the dropped fix is the last refused candidate, shown for the record: it takes the fast line away
    assert.match(result.diff, /^- {2}if \(options\.fast\) return parseQuick\(/m);
    const refusals = sink
      .ofType('gate')
      .filter((e) => e.payload.gate === 'green' && e.payload.passed === false && /the fix is refused/.test(String(e.payload.detail)));
    assert.ok(
      refusals.some((e) => /parse no longer reads options\.fast: it reads options\.path instead/.test(String(e.payload.detail))),
      'GREEN refused the candidate that reads options.path, naming it',
    );
    assert.equal(sink.ofType('gate').filter((e) => e.payload.gate === 'regression').length, 0, 'a refused candidate never reaches the regression suite');
  });

  test('of two plausible candidates the one that keeps every parameter in use is the fix', async () => {
    const repo = envRepo();
    const sink = new ArraySink();
    const result = await runRepair(input(repo, { sink, policy: candidatesPolicy([[READS_PATH], [RIGHT]]) }));
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.match(result.diff, /^\+.*\.join\('\\n'\)\);$/m);
    assert.doesNotMatch(result.diff, /options\.path/);
    const greens = sink
      .ofType('gate')
      .filter((e) => e.payload.gate === 'green')
      .map((e) => e.payload.passed);
    // the first candidate: the tests pass, then the refusal; the second: the tests pass
    assert.deepEqual(greens.slice(0, 3), [true, false, true], 'the dead-option candidate was refused at GREEN, the next one passed');
    // the tests do pass `fast`: nothing to say about options the tests leave open
    assert.doesNotMatch(result.summaryHtml, /never pass/);
  });

  test("an accepted fix's summary names the option no test passes", async () => {
    const repo = makeRepo('flowfix-dead-glob-');
    repo.write('package.json', '{ "name": "glob", "private": true, "type": "module" }\n');
    repo.write('.gitignore', 'junit.xml\n');
    const base = `export interface MatchOptions {
  windows?: boolean;
}
export function basename(path: string, options: MatchOptions = {}): string {
  let name = path.slice(path.lastIndexOf('/') + 1);
  if (options.windows) name = name.slice(name.lastIndexOf('\\\\') + 1).toLowerCase();
  return name;
}
`;
    repo.write('src/match.ts', base);
    repo.write(
      'test/match.test.ts',
      `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from '../src/match.ts';

test('a backslash is part of a POSIX name', () => {
  assert.equal(basename('docs/notes\\\\Draft.md'), 'notes\\\\Draft.md');
});
`,
    );
    const baseRev = repo.commit('basename');
    repo.write('src/match.ts', `export const SEPARATOR = '/';\n${base.replace('  if (options.windows) name', '  if (!options.windows) name')}`);
    const headRev = repo.commit('basename: windows paths');
    const r = { ...repo, base: baseRev, head: headRev, settings: tsSettings({ build: undefined }) };
    repos.push(r);
    const fix: Edit = { kind: 'replace', file: 'src/match.ts', oldText: 'if (!options.windows)', newText: 'if (options.windows)' };
    const result = await runRepair(
      input(r, {
        targetTests: ['test::a backslash is part of a POSIX name'],
        policy: candidatesPolicy([[fix]]),
        change: { title: 'windows', description: '', author: 'dev' },
      }),
    );
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.match(result.summaryHtml, /The tests never pass <code>windows<\/code>: its behaviour is not pinned down by them/);
  });
});
