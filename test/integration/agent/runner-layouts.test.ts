import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { repairCommand } from '@/agent/cli/repair';
import type { Suspect } from '@/agent/types';
import { escapeRegExp } from '@/common/text';
import { createRunnerRepo, type RunnerLayout } from '../../helpers/agent-repos';

// A new user's repositories, one per runner, laid out as real libraries lay
// them out (their scripts, config files and test folders; not their code):
// `flowfix repair` with no settings and no command written by hand detects the
// runner, installs the real runner from the registry, reads the report the
// runner itself writes, and repairs the bug. The runners' versions are the
// ones real libraries use that run on this Node.

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

const cjsTest = (lib: string, head: boolean, open: string, close: string, expectEq: (a: string, b: string) => string) =>
  `${lib}\nconst { total } = require('../index.js');\n\n${open}('is 0 for no items', () => {\n  ${expectEq('total([])', '0')};\n}${close});\n${
    head ? `${open}('multiplies price by quantity', () => {\n  ${expectEq('total([{ price: 5, qty: 3 }])', '15')};\n}${close});\n` : ''
  }`;

// Coverage (agent/coverage): these runners run many tests per process, so the
// target command runs twice under NODE_V8_COVERAGE with the runner's name
// filter, the failing test alone then the other test of its file (tape has no
// filter: its file's run, the failing side alone); `cut` is how the run says so.
const layouts: Record<string, { layout: RunnerLayout; report: RegExp; cut: string }> = {
  // commander: plain jest (no jest-junit), jest.config.js, a type check after it
  jest: {
    layout: {
      packageJson: { scripts: { test: 'jest && npm run check:types', 'check:types': 'echo no types here' }, devDependencies: { jest: '29.7.0' } },
      files: { 'jest.config.js': "module.exports = { testEnvironment: 'node' };\n" },
      tests: {
        base: { '__tests__/total.test.js': cjsTest('', false, 'test', '', (a, b) => `expect(${a}).toBe(${b})`) },
        head: { '__tests__/total.test.js': cjsTest('', true, 'test', '', (a, b) => `expect(${a}).toBe(${b})`) },
      },
    },
    report: /jest \{files\} --ci --json --outputFile=flowfix-report\.json/,
    cut: 'by name (jest)',
  },
  // unjs: vitest behind a lint script, no vitest config
  vitest: {
    layout: {
      packageJson: { scripts: { lint: 'echo lint', test: 'npm run lint && vitest run' }, devDependencies: { vitest: '3.2.4' } },
      tests: {
        base: {
          'test/total.test.js': cjsTest(
            "import { test, expect } from 'vitest';\nimport { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);",
            false,
            'test',
            '',
            (a, b) => `expect(${a}).toBe(${b})`,
          ),
        },
        head: {
          'test/total.test.js': cjsTest(
            "import { test, expect } from 'vitest';\nimport { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);",
            true,
            'test',
            '',
            (a, b) => `expect(${a}).toBe(${b})`,
          ),
        },
      },
    },
    report: /vitest run \{files\} --reporter=default --reporter=junit/,
    cut: 'by name (vitest)',
  },
  // a mocha library whose tests live in spec/, named by its .mocharc, with a reporter of its own
  mocha: {
    layout: {
      packageJson: { scripts: { test: 'mocha -R spec' }, devDependencies: { mocha: '10.8.2' } },
      files: { '.mocharc.yml': "spec: 'spec/**/*.spec.js'\nreporter: dot\n" },
      tests: {
        base: { 'spec/total.spec.js': cjsTest("const assert = require('node:assert/strict');", false, 'it', '', (a, b) => `assert.equal(${a}, ${b})`) },
        head: { 'spec/total.spec.js': cjsTest("const assert = require('node:assert/strict');", true, 'it', '', (a, b) => `assert.equal(${a}, ${b})`) },
      },
    },
    report: /mocha --reporter xunit --reporter-options output=flowfix-report\.xml$/,
    cut: 'by name (mocha)',
  },
  // sindresorhus: a lint step, then ava, tests in test.js at the root
  ava: {
    layout: {
      packageJson: { scripts: { test: 'echo xo && ava' }, devDependencies: { ava: '6.4.1' } },
      tests: {
        base: {
          'test.js': cjsTest("const test = require('ava');", false, 'test', '', (a, b) => `t.is(${a}, ${b})`)
            .replace(/\(\) => \{/g, '(t) => {')
            .replace("require('../index.js')", "require('./index.js')"),
        },
        head: {
          'test.js': cjsTest("const test = require('ava');", true, 'test', '', (a, b) => `t.is(${a}, ${b})`)
            .replace(/\(\) => \{/g, '(t) => {')
            .replace("require('../index.js')", "require('./index.js')"),
        },
      },
    },
    report: /ava --tap > flowfix-report\.tap$/,
    cut: 'by name (ava)',
  },
  // npm/*: node-tap 16 configured in package.json, whose coverage check would fail the run
  'node-tap 16': {
    layout: {
      packageJson: { scripts: { test: 'tap' }, tap: { 'check-coverage': true }, devDependencies: { tap: '16.3.10' } },
      tests: {
        base: {
          'test/total.js': cjsTest("const t = require('tap');", false, 't.test', '', (a, b) => `t.equal(${a}, ${b}); t.end()`).replace(
            /\(\) => \{/g,
            '(t) => {',
          ),
        },
        head: {
          'test/total.js': cjsTest("const t = require('tap');", true, 't.test', '', (a, b) => `t.equal(${a}, ${b}); t.end()`).replace(
            /\(\) => \{/g,
            '(t) => {',
          ),
        },
      },
    },
    report: /tap --reporter=tap --no-coverage > flowfix-report\.tap$/,
    cut: 'by name (node-tap)',
  },
  // fastify: node-tap 21 behind test:unit, a .taprc, tape also listed
  'node-tap 21': {
    layout: {
      packageJson: {
        scripts: { test: 'npm run test:unit && npm run test:types', 'test:unit': 'tap', 'test:types': 'echo tsd' },
        devDependencies: { tap: '21.1.0' },
      },
      files: { '.taprc': 'files:\n  - test/**/*.test.js\n' },
      tests: {
        base: {
          'test/total.test.js': cjsTest("const t = require('tap');", false, 't.test', '', (a, b) => `t.equal(${a}, ${b}); t.end()`).replace(
            /\(\) => \{/g,
            '(t) => {',
          ),
        },
        head: {
          'test/total.test.js': cjsTest("const t = require('tap');", true, 't.test', '', (a, b) => `t.equal(${a}, ${b}); t.end()`).replace(
            /\(\) => \{/g,
            '(t) => {',
          ),
        },
      },
    },
    report: /tap --reporter=tap --disable-coverage > flowfix-report\.tap$/,
    cut: 'by name (node-tap)',
  },
  // ljharb: tape behind tests-only under nyc, piped nowhere; the new test throws (a crash, not a failed assertion)
  tape: {
    layout: {
      packageJson: { scripts: { test: 'npm run tests-only', 'tests-only': "nyc tape 'test/**/*.js'" }, devDependencies: { tape: '5.9.0' } },
      tests: {
        base: {
          'test/total.js':
            "const test = require('tape');\nconst { total } = require('../index.js');\n\ntest('is 0 for no items', (t) => {\n  t.equal(total([]), 0);\n  t.end();\n});\n",
        },
        head: {
          'test/total.js':
            "const test = require('tape');\nconst { total } = require('../index.js');\n\ntest('is 0 for no items', (t) => {\n  t.equal(total([]), 0);\n  t.end();\n});\ntest('multiplies price by quantity', (t) => {\n  if (total([{ price: 5, qty: 3 }]) !== 15) throw new Error('wrong total');\n  t.pass('total');\n  t.end();\n});\n",
        },
      },
    },
    report: /tape 'test\/\*\*\/\*\.js' > flowfix-report\.tap$/,
    cut: 'per file (tape)',
  },
};

async function repair(dir: string, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await repairCommand(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  return { code, out: out.join(''), err: err.join('') };
}

describe("a new user's repositories set up with no command written by hand", { concurrency: 2 }, () => {
  for (const [runner, { layout, report, cut }] of Object.entries(layouts)) {
    test(`${runner}: detected, installed, its own report read, coverage recorded, repaired`, { timeout: 600_000 }, async () => {
      const repo = createRunnerRepo(layout);
      cleanups.push(repo.cleanup);
      const res = await repair(repo.dir, ['--base', repo.base, '--head', repo.head, '--json']);
      const detected = /detected (\S+) .*?test command: (.*?)(; install: (.*?))?(; build: .*)?$/m.exec(res.err);
      assert.ok(detected, res.err.slice(-3000));
      assert.match(detected[2]!, report);
      assert.match(detected[4] ?? '', /^npm install /);
      assert.equal(res.code, 0, res.out.slice(-2000) + res.err.slice(-3000));
      const result = JSON.parse(res.out) as { exitReason: string; diff: string; evidence: { targets: string[] }; suspects: Suspect[] };
      // coverage recorded: the failing test alone, and (but for tape) the passing test of its file
      const passing = cut.startsWith('per file') ? 0 : 1;
      const covered = new RegExp(`coverage: 1 failing and ${passing} passing test\\(s\\) over 1 production file\\(s\\) in \\d+ ms, ${escapeRegExp(cut)}`);
      assert.match(res.err, covered, res.err.slice(-3000));
      assert.equal(result.suspects[0]?.symbol, 'total', JSON.stringify(result.suspects));
      assert.ok(
        result.suspects[0]!.reasons.some((r) => new RegExp(`^Ochiai [\\d.]+: line \\d+ ran in 1/1 failing and ${passing}/${passing} passing runs$`).test(r)),
        result.suspects[0]!.reasons.join('; '),
      );
      assert.equal(result.exitReason, 'fixed');
      assert.match(result.diff, /^\+.*item\.price \* item\.qty/m);
      assert.equal(result.evidence.targets.length, 1);
      assert.match(result.evidence.targets[0]!, /multiplies price by quantity/);
    });
  }
});
