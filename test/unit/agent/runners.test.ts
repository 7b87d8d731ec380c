import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { RepositorySettingsSchema } from '@/common/settings';
import { detectRunner, whyNoRunner, parseTap, tapCutShort, TAP_REPORT, JUNIT_REPORT, JEST_REPORT } from '@/agent/testing/runners';

const repo = (files: Record<string, string>) => (rel: string) => files[rel] ?? null;
const pkg = (json: object) => JSON.stringify(json);

const PATH = 'PATH="$PWD/node_modules/.bin:$PATH"';
// better-node-test's own file search, run by the shell when the command runs
const BNT_FIND =
  "$(find . \\( -name node_modules -o -name .git \\) -prune -o -type f \\( -name '*.test.js' -o -name '*.spec.js' -o -name '*.test.ts' -o -name '*.spec.ts' \\) -print)";

describe('whyNoRunner', () => {
  test('one line: what was tried, and the .flowfix.json that would make the run go', () => {
    const unknown = repo({ 'package.json': pkg({ scripts: { test: 'lab -t 100' }, devDependencies: { '@hapi/lab': '25' } }) });
    assert.equal(detectRunner(unknown), null);
    const line = whyNoRunner(unknown);
    assert.match(
      line,
      /^no test runner detected \(tried: package\.json scripts\.test runs `lab -t 100`, a runner flowfix does not know\); add a \.flowfix\.json such as \{"settings":\{/,
    );
    const example = JSON.parse(/such as (\{.*\})$/.exec(line)![1]!) as { settings: Record<string, string> };
    assert.deepEqual(Object.keys(example.settings), ['install', 'test', 'junitReport']);
    assert.match(
      whyNoRunner(repo({ 'package.json': pkg({ scripts: { test: 'zora test/*.js' }, devDependencies: { zora: '5' } }) })),
      /runs `zora test\/\*\.js`, a runner flowfix does not know/,
    );
    assert.match(whyNoRunner(repo({ 'package.json': pkg({ name: 'x' }) })), /package\.json has no scripts\.test and no test runner/);
    assert.match(
      whyNoRunner(repo({ 'README.md': '# x' })),
      /no package\.json, pyproject\.toml, setup\.py, setup\.cfg or requirements\.txt at the base revision/,
    );
  });
});

describe('detectRunner', () => {
  test('node --test in scripts.test: its JUnit reporter and a time limit per test, node options kept', () => {
    const d = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'node --test --enable-source-maps dist/esm/test/*.test.js' } }) }));
    assert.equal(d?.runner, 'node:test');
    assert.equal(d?.language, 'javascript');
    assert.equal(
      d?.test,
      `${PATH} node --enable-source-maps --test --test-timeout=60000 --test-reporter=spec --test-reporter-destination=stderr --test-reporter=junit --test-reporter-destination=flowfix-report.xml dist/esm/test/*.test.js`,
    );
    assert.equal(d?.junitReport, JUNIT_REPORT);
  });

  test('TypeScript when there is a tsconfig.json', () => {
    assert.equal(detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'node --test' } }), 'tsconfig.json': '{}' }))?.language, 'typescript');
  });

  // package.json scripts and config files as real libraries have them (not their code)
  const layouts: Array<[string, Record<string, string>, string, string, string]> = [
    // sindresorhus: lint, then ava, then type tests; ava's defaults find test.js
    [
      'ava behind xo, before tsd',
      { 'package.json': pkg({ scripts: { test: 'xo && ava && tsd' }, devDependencies: { ava: '^4.3.0', tsd: '^0.20.0', xo: '^0.54.2' } }) },
      'ava',
      `${PATH} ava --tap > flowfix-report.tap`,
      TAP_REPORT,
    ],
    // commander: plain jest with jest.config.js, no jest-junit: jest's own JSON, the test files first
    [
      'plain jest, no jest-junit',
      {
        'package.json': pkg({
          scripts: { test: 'jest && npm run check:type:ts', 'check:type:ts': 'tsd && tsc -p tsconfig.ts.json' },
          devDependencies: { jest: '^29.3.1', 'ts-jest': '^29' },
        }),
        'jest.config.js': 'module.exports = {}',
        'package-lock.json': '',
      },
      'jest',
      `${PATH} jest {files} --ci --json --outputFile=flowfix-report.json`,
      JEST_REPORT,
    ],
    // css-what: jest behind another script, configured in package.json
    [
      'jest behind npm run test:jest',
      {
        'package.json': pkg({
          // css-what's own script updates snapshots: a snapshot test could then never fail, and the .snap files would be in the fix
          scripts: { test: 'npm run test:jest && npm run lint', 'test:jest': 'jest --coverage -u', lint: 'eslint src' },
          jest: { preset: 'ts-jest' },
          devDependencies: { jest: '^27.4.5' },
        }),
      },
      'jest',
      `${PATH} jest {files} --ci --json --outputFile=flowfix-report.json`,
      JEST_REPORT,
    ],
    // an ESM jest run through node with options: the entry kept, our flags after it
    [
      'jest through node --experimental-vm-modules',
      {
        'package.json': pkg({
          scripts: { test: 'NODE_OPTIONS=--no-warnings node --experimental-vm-modules node_modules/jest/bin/jest.js --reporters=default' },
          devDependencies: { jest: '30' },
        }),
      },
      'jest',
      `${PATH} NODE_OPTIONS=--no-warnings node --experimental-vm-modules node_modules/jest/bin/jest.js {files} --ci --json --outputFile=flowfix-report.json`,
      JEST_REPORT,
    ],
    // unjs: pnpm scripts, vitest run with type checks
    [
      'vitest behind pnpm lint',
      {
        'package.json': pkg({ scripts: { test: 'pnpm lint && vitest run --typecheck', lint: 'eslint .' }, devDependencies: { vitest: '^2.0.3' } }),
        'pnpm-lock.yaml': '',
      },
      'vitest',
      `${PATH} vitest run {files} --typecheck --reporter=default --reporter=junit --outputFile=flowfix-report.xml`,
      JUNIT_REPORT,
    ],
    [
      'vitest type tests first, then the suite',
      {
        'package.json': pkg({
          scripts: { test: 'pnpm lint && vitest --run typecheck && vitest run', lint: 'eslint .' },
          devDependencies: { vitest: '^0.34.6' },
        }),
      },
      'vitest',
      `${PATH} vitest run {files} --reporter=default --reporter=junit --outputFile=flowfix-report.xml`,
      JUNIT_REPORT,
    ],
    // pillarjs: a wrapper that runs vitest; vitest.config.mts says which runner
    [
      'vitest from its config file',
      {
        'package.json': pkg({
          scripts: { test: 'ts-scripts test && npm run size' },
          devDependencies: { '@borderless/ts-scripts': '^0.15.0', vitest: '^3.0.5' },
        }),
        'vitest.config.mts': 'export default {}',
      },
      'vitest',
      `${PATH} vitest run {files} --reporter=default --reporter=junit --outputFile=flowfix-report.xml`,
      JUNIT_REPORT,
    ],
    // epoberezkin: mocha with its spec folder in the script, its reporter replaced
    [
      'mocha with spec/ in the script',
      {
        'package.json': pkg({
          scripts: { test: 'npm run eslint && nyc npm run test-spec', 'test-spec': 'mocha spec/*.spec.js -R spec', eslint: 'eslint *.js' },
          devDependencies: { mocha: '^3.4.2', nyc: '^11' },
        }),
      },
      'mocha',
      `${PATH} mocha --reporter xunit --reporter-options output=flowfix-report.xml spec/*.spec.js`,
      JUNIT_REPORT,
    ],
    // a .mocharc that names the spec folder and a reporter: mocha reads the spec from it, the command line's reporter wins
    [
      'mocha with a .mocharc',
      { 'package.json': pkg({ scripts: { test: 'mocha' }, devDependencies: { mocha: '^10' } }), '.mocharc.yml': "spec: 'spec/**/*.spec.js'\nreporter: spec\n" },
      'mocha',
      `${PATH} mocha --reporter xunit --reporter-options output=flowfix-report.xml`,
      JUNIT_REPORT,
    ],
    [
      'mocha from its config with no script',
      { 'package.json': pkg({ scripts: { test: 'echo see CONTRIBUTING' }, devDependencies: { chai: '4' } }), '.mocharc.json': '{"spec": "spec"}' },
      'mocha',
      `${PATH} mocha --reporter xunit --reporter-options output=flowfix-report.xml`,
      JUNIT_REPORT,
    ],
    // jshttp
    [
      'mocha with --bail and --check-leaks',
      { 'package.json': pkg({ scripts: { test: 'mocha --reporter spec --bail --check-leaks test/' }, devDependencies: { mocha: '9.2.2' } }) },
      'mocha',
      `${PATH} mocha --reporter xunit --reporter-options output=flowfix-report.xml --check-leaks test/`,
      JUNIT_REPORT,
    ],
    // npm/*: node-tap 16 configured in package.json, coverage checked by default
    [
      'node-tap 16',
      { 'package.json': pkg({ scripts: { test: 'tap' }, tap: { 'check-coverage': true }, devDependencies: { tap: '^16.0.0' } }) },
      'node-tap',
      `${PATH} tap --reporter=tap --no-coverage > flowfix-report.tap`,
      TAP_REPORT,
    ],
    [
      'node-tap 16 under c8',
      { 'package.json': pkg({ scripts: { test: 'c8 tap' }, devDependencies: { c8: '7', tap: '^16.3.4' } }) },
      'node-tap',
      `${PATH} tap --reporter=tap --no-coverage > flowfix-report.tap`,
      TAP_REPORT,
    ],
    // node-tap 18 and later renamed the coverage switch; dotenv's script names its own
    [
      'node-tap 21 after build and lint',
      {
        'package.json': pkg({
          scripts: {
            test: 'npm run build && npm run lint && tap run tests/**/*.js --allow-empty-coverage --disable-coverage --timeout=60000',
            build: 'node build.js',
            lint: 'standard',
          },
          devDependencies: { tap: '^21.7.4' },
        }),
      },
      'node-tap',
      `${PATH} tap run tests/**/*.js --allow-empty-coverage --timeout=60000 --reporter=tap --disable-coverage > flowfix-report.tap`,
      TAP_REPORT,
    ],
    [
      'node-tap 21 behind test:unit, with tape also listed',
      {
        'package.json': pkg({
          scripts: { test: 'npm run test:unit && npm run test:typescript', 'test:unit': 'tap', 'test:typescript': 'tsd' },
          devDependencies: { tap: '^21.0.0', tape: '^5.7.5' },
        }),
        '.taprc': 'files:\n  - test/**/*.test.js\n',
      },
      'node-tap',
      `${PATH} tap --reporter=tap --disable-coverage > flowfix-report.tap`,
      TAP_REPORT,
    ],
    // ljharb: tape behind npm run, under nyc
    [
      'tape behind tests-only under nyc',
      {
        'package.json': pkg({
          scripts: { pretest: 'npm run lint', test: 'npm run tests-only', 'tests-only': "nyc tape 'test/**/*.js'", lint: 'eslint .' },
          devDependencies: { tape: '^5.9.0', nyc: '10' },
        }),
      },
      'tape',
      `${PATH} tape 'test/**/*.js' > flowfix-report.tap`,
      TAP_REPORT,
    ],
    // lukeed: tape piped into a formatter: the runner's own TAP is the report
    [
      'tape piped into tap-spec',
      { 'package.json': pkg({ scripts: { test: 'tape -r esm test/*.js | tap-spec' }, devDependencies: { tape: '4.13.0', esm: '3', 'tap-spec': '5' } }) },
      'tape',
      `${PATH} tape -r esm test/*.js > flowfix-report.tap`,
      TAP_REPORT,
    ],
    [
      'tape tests run as a node script',
      { 'package.json': pkg({ scripts: { test: 'node test/index.js' }, devDependencies: { tape: '5' } }) },
      'tape',
      `${PATH} node test/index.js > flowfix-report.tap`,
      TAP_REPORT,
    ],
    // ai/nanoid: every test: script, by a pattern; better-node-test is node --test
    [
      'better-node-test behind pnpm run /^test:/',
      {
        'package.json': pkg({
          scripts: { test: 'pnpm run /^test:/', 'test:coverage': "bnt --coverage 100 --coverage-exclude 'test/*'", 'test:lint': 'oxlint' },
          devDependencies: { 'better-node-test': '^0.8.4' },
        }),
      },
      'node:test',
      `${PATH} node --test --test-timeout=60000 --test-reporter=spec --test-reporter-destination=stderr --test-reporter=junit --test-reporter-destination=flowfix-report.xml ${BNT_FIND}`,
      JUNIT_REPORT,
    ],
    // ai/nanoid (later): bnt under c8's coverage
    [
      'better-node-test under c8',
      {
        'package.json': pkg({
          scripts: { test: 'pnpm run /^test:/', 'test:coverage': 'c8 --check-coverage --lines 100 bnt', 'test:lint': 'eslint .' },
          devDependencies: { 'better-node-test': '^0.7.1', c8: '^10' },
        }),
      },
      'node:test',
      `${PATH} node --test --test-timeout=60000 --test-reporter=spec --test-reporter-destination=stderr --test-reporter=junit --test-reporter-destination=flowfix-report.xml ${BNT_FIND}`,
      JUNIT_REPORT,
    ],
    // better-node-test with TypeScript tests and a name pattern: tsx, as bnt loads it; -t as node's own
    [
      'better-node-test with tsx and -t',
      { 'package.json': pkg({ scripts: { test: "bnt -t 'parses' test/a.test.ts" }, devDependencies: { 'better-node-test': '^0.8', tsx: '^4' } }) },
      'node:test',
      `${PATH} node --enable-source-maps --import tsx --test --test-timeout=60000 --test-reporter=spec --test-reporter-destination=stderr --test-reporter=junit --test-reporter-destination=flowfix-report.xml --test-name-pattern='parses' test/a.test.ts`,
      JUNIT_REPORT,
    ],
    // uuid: a stale jest among the devDependencies; the script says node --test
    [
      'node --test with jest still listed',
      {
        'package.json': pkg({
          scripts: { pretest: 'npm run build', build: './scripts/build.sh', test: 'node --test --enable-source-maps dist/esm/test/*.test.js' },
          devDependencies: { jest: '29.7.0' },
        }),
      },
      'node:test',
      `${PATH} node --enable-source-maps --test --test-timeout=60000 --test-reporter=spec --test-reporter-destination=stderr --test-reporter=junit --test-reporter-destination=flowfix-report.xml dist/esm/test/*.test.js`,
      JUNIT_REPORT,
    ],
  ];
  for (const [label, files, runner, command, report] of layouts) {
    test(label, () => {
      const d = detectRunner(repo(files));
      assert.equal(d?.runner, runner, whyNoRunner(repo(files)));
      assert.equal(d?.test, command);
      assert.equal(d?.junitReport, report);
    });
  }

  test("the runner's own shuffle for the proof's repeats only where the declared version has it (jest's --randomize came in 29.2)", () => {
    const jest = (version: string) =>
      detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'jest' }, devDependencies: { jest: version } }) }))?.shuffleArgs;
    assert.equal(jest('^29.3.1'), '--randomize --seed={seed}');
    assert.equal(jest('29.2.0'), '--randomize --seed={seed}');
    assert.equal(jest('30'), '--randomize --seed={seed}');
    // commander and css-what: jest 27 and 29.1 refuse the flag, so the final rerun failed on every fix
    assert.equal(jest('^27.4.5'), undefined);
    assert.equal(jest('~29.1.0'), undefined);
    assert.equal(jest('latest'), undefined);
    const vitest = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'vitest' }, devDependencies: { vitest: '^1.6.0' } }) }));
    assert.equal(vitest?.shuffleArgs, '--sequence.shuffle --sequence.seed={seed}');
    assert.equal(detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha' }, devDependencies: { mocha: '10' } }) }))?.shuffleArgs, undefined);
  });

  test('the build the tests need: pretest and the steps before the runner (lint left out), or a main only a build writes', () => {
    const uuid = detectRunner(
      repo({ 'package.json': pkg({ scripts: { pretest: 'npm run build', build: './scripts/build.sh', test: 'node --test dist/esm/test/*.test.js' } }) }),
    );
    assert.equal(uuid?.build, `${PATH} ./scripts/build.sh`);
    // lru-cache: prepare with its pre and post scripts, two tsc builds, each with the bins on its PATH
    const lru = detectRunner(
      repo({
        'package.json': pkg({
          scripts: {
            pretest: 'npm run prepare',
            preprepare: 'rm -rf dist',
            prepare: 'tsc -p tsconfig.json && tsc -p tsconfig-esm.json',
            postprepare: 'bash fixup.sh',
            test: 'c8 tap',
          },
          devDependencies: { tap: '^16.3.4' },
        }),
      }),
    );
    assert.equal(lru?.build, `${PATH} rm -rf dist && ${PATH} tsc -p tsconfig.json && ${PATH} tsc -p tsconfig-esm.json && ${PATH} bash fixup.sh`);
    const dotenv = detectRunner(
      repo({
        'package.json': pkg({
          scripts: { test: 'npm run build && npm run lint && tap run tests/**/*.js', build: 'node build.js', lint: 'standard' },
          devDependencies: { tap: '21' },
        }),
      }),
    );
    assert.equal(dotenv?.build, `${PATH} node build.js`);
    // no build step in the scripts, but main names a file the repository does not hold
    const files = {
      'package.json': pkg({ main: 'dist/index.js', scripts: { build: 'tsc', test: 'mocha' }, devDependencies: { mocha: '10' } }),
      'test/a.js': '',
    };
    assert.equal(detectRunner(repo(files), { paths: ['package.json', 'test/a.js', 'src/index.ts'] })?.build, `${PATH} npm run build`);
    assert.equal(detectRunner(repo(files), { paths: ['package.json', 'test/a.js', 'dist/index.js'] })?.build, undefined);
    // lint and type checks are not a build
    assert.equal(
      detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'xo && tsc --noEmit && ava' }, devDependencies: { ava: '6' } }) }))?.build,
      undefined,
    );
  });

  test('mocha before 2.2 (no reporter options) writes TAP to the report; 2.2 and later, the version unknown: xunit to the file', () => {
    const old = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha --check-leaks --reporter spec' }, devDependencies: { mocha: '1.21.5' } }) }));
    // mocha 1's bin/mocha spawns _mocha with customFds, which Node 20 ignores: its output was lost, so _mocha runs the tests
    assert.equal(old?.test, `${PATH} _mocha --reporter tap --check-leaks > flowfix-report.tap`);
    assert.equal(
      detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha test/' }, devDependencies: { mocha: '~1.9.0' } }) }))?.test,
      `${PATH} _mocha --reporter tap test/ > flowfix-report.tap`,
    );
    assert.equal(old?.junitReport, 'flowfix-report.tap');
    const two = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha' }, devDependencies: { mocha: '~2.1.0' } }) }));
    assert.equal(two?.test, `${PATH} mocha --reporter tap > flowfix-report.tap`);
    assert.equal(two?.junitReport, 'flowfix-report.tap');
    for (const range of ['^2.2.5', '3.x', '>=6', 'latest', '*']) {
      const d = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha' }, devDependencies: { mocha: range } }) }));
      assert.equal(d?.test, `${PATH} mocha --reporter xunit --reporter-options output=flowfix-report.xml`, range);
    }
  });

  test("the install its lock file calls for: npm, pnpm, yarn classic and berry (node_modules, not Plug'n'Play)", () => {
    const json = pkg({ scripts: { test: 'mocha' }, devDependencies: { mocha: '10' } });
    const tools = { pnpm: 'node /ff/pnpm.cjs', yarn: 'node /ff/yarn.js', yarnBerry: 'node /ff/berry.js' };
    assert.equal(detectRunner(repo({ 'package.json': json }))?.install, 'npm install --no-audit --no-fund --no-package-lock');
    assert.equal(detectRunner(repo({ 'package.json': json, 'package-lock.json': '' }))?.install, 'npm ci --no-audit --no-fund');
    assert.equal(
      detectRunner(repo({ 'package.json': json, 'pnpm-lock.yaml': '' }), { tools })?.install,
      'node /ff/pnpm.cjs install --frozen-lockfile --config.manage-package-manager-versions=false',
    );
    assert.equal(
      detectRunner(repo({ 'package.json': json, 'yarn.lock': '# yarn lockfile v1\n' }), { tools })?.install,
      'node /ff/yarn.js install --frozen-lockfile --non-interactive --ignore-engines',
    );
    assert.equal(
      detectRunner(repo({ 'package.json': json, 'yarn.lock': '__metadata:\n  version: 8\n' }), { tools })?.install,
      'YARN_NODE_LINKER=node-modules YARN_ENABLE_GLOBAL_CACHE=false YARN_ENABLE_TELEMETRY=0 node /ff/berry.js install --immutable',
    );
    assert.equal(
      detectRunner(repo({ 'package.json': json, 'yarn.lock': '__metadata:\n', '.yarnrc.yml': 'yarnPath: .yarn/releases/yarn-4.1.0.cjs\n' }), { tools })
        ?.install,
      "YARN_NODE_LINKER=node-modules YARN_ENABLE_GLOBAL_CACHE=false YARN_ENABLE_TELEMETRY=0 node '.yarn/releases/yarn-4.1.0.cjs' install --immutable",
    );
    // pnpm 8's lock (version 6.0) and older are refused by this pnpm: install from package.json, the lock left as it is, and say so
    const pnpm8 = detectRunner(repo({ 'package.json': json, 'pnpm-lock.yaml': "lockfileVersion: '6.0'\n\nsettings:\n" }), { tools });
    assert.equal(pnpm8?.install, 'node /ff/pnpm.cjs install --config.lockfile=false --config.manage-package-manager-versions=false');
    assert.match(pnpm8?.why ?? '', /pnpm-lock\.yaml version 6\.0 \(pnpm 8 or older\), which pnpm 10 cannot read: installed from package\.json/);
    assert.equal(
      detectRunner(repo({ 'package.json': json, 'pnpm-lock.yaml': 'lockfileVersion: 5.4\n' }), { tools })?.install,
      'node /ff/pnpm.cjs install --config.lockfile=false --config.manage-package-manager-versions=false',
    );
    assert.equal(
      detectRunner(repo({ 'package.json': json, 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" }), { tools })?.install,
      'node /ff/pnpm.cjs install --frozen-lockfile --config.manage-package-manager-versions=false',
    );
    // without the tool, npm installs from package.json and says why
    const noPnpm = detectRunner(repo({ 'package.json': json, 'pnpm-lock.yaml': '' }));
    assert.equal(noPnpm?.install, 'npm install --no-audit --no-fund --no-package-lock');
    assert.match(noPnpm?.why ?? '', /pnpm-lock\.yaml, but no pnpm here/);
    assert.equal(detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'node --test' } }) }))?.install, undefined);
    assert.equal(detectRunner(repo({ 'pytest.ini': '[pytest]\n' }))?.install, undefined);
  });

  test('a monorepo: the package holding the change is tested, in its folder, after the install at the root', () => {
    const files = {
      'package.json': pkg({ private: true, workspaces: ['packages/*'], scripts: { test: 'lerna run test' }, devDependencies: { lerna: '8' } }),
      'package-lock.json': '',
      'packages/core/package.json': pkg({ name: 'core', scripts: { test: 'jest' }, devDependencies: { jest: '29' } }),
      'packages/cli/package.json': pkg({ name: 'cli', scripts: { test: 'vitest' }, devDependencies: { vitest: '3' } }),
    };
    const paths = Object.keys(files).concat(['packages/cli/src/index.ts', 'packages/cli/test/a.test.ts']);
    const d = detectRunner(repo(files), { paths, changedFiles: ['packages/cli/test/a.test.ts'] });
    assert.equal(d?.runner, 'vitest');
    assert.equal(d?.dir, 'packages/cli');
    assert.equal(
      d?.test,
      `cd 'packages/cli' && PATH="$PWD/node_modules/.bin:$PWD/../../node_modules/.bin:$PATH" vitest run {files} --reporter=default --reporter=junit --outputFile=flowfix-report.xml`,
    );
    assert.equal(d?.junitReport, 'packages/cli/flowfix-report.xml');
    assert.equal(d?.install, 'npm ci --no-audit --no-fund');
    assert.equal(detectRunner(repo(files), { paths, changedFiles: ['packages/core/src/x.js'] })?.runner, 'jest');
  });

  test('pytest from pyproject.toml, pytest.ini or setup.cfg', () => {
    const configs: Array<Record<string, string>> = [
      { 'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' },
      { 'pytest.ini': '[pytest]\n' },
      { 'setup.cfg': '[tool:pytest]\n' },
    ];
    for (const files of configs) {
      const d = detectRunner(repo(files));
      assert.equal(d?.runner, 'pytest');
      assert.match(d?.test ?? '', /pytest .*--junitxml=flowfix-report\.xml/);
    }
  });

  test('a Python project without pytest runs unittest, its results as TAP', () => {
    const d = detectRunner(repo({ 'setup.py': 'from setuptools import setup\nsetup()\n' }));
    assert.equal(d?.runner, 'unittest');
    assert.equal(d?.junitReport, TAP_REPORT);
    assert.match(d?.test ?? '', /^python3 -c '.*unittest.*' \{names\}$/s);
  });

  test('a Python project with requirements: a virtualenv of its own, made from them, before its tests', () => {
    const d = detectRunner(
      repo({
        'pytest.ini': '[pytest]\n',
        'requirements.txt': 'attrs>=22\n',
        'requirements-dev.txt': '-r requirements.txt\npytest\n',
        'README.md': '# x',
      }),
      { paths: ['pytest.ini', 'requirements.txt', 'requirements-dev.txt', 'README.md', 'pkg/__init__.py'] },
    );
    assert.equal(d?.runner, 'pytest');
    assert.equal(
      d?.install,
      "python3 -m venv --system-site-packages --without-pip .flowfix-venv && .flowfix-venv/bin/python -m pip install --disable-pip-version-check --no-input -r 'requirements.txt' -r 'requirements-dev.txt'",
    );
    assert.match(d?.why ?? '', /a virtualenv \(\.flowfix-venv\) from requirements\.txt, requirements-dev\.txt/);
  });

  test("pyproject.toml's dependencies and test extras go into the virtualenv; a src/ layout is importable from it; pip options are never taken from them", () => {
    const pyproject = [
      '[project]',
      'name = "demo"',
      'dependencies = [',
      '  "attrs>=22",',
      '  \'packaging ; python_version >= "3.8"\',',
      '  "--index-url=http://evil.example/simple",',
      ']',
      '[project.optional-dependencies]',
      'test = ["pytest>=7", "hypothesis"]',
      'docs = ["sphinx"]',
      '[tool.pytest.ini_options]',
      'testpaths = ["tests"]',
    ].join('\n');
    const d = detectRunner(repo({ 'pyproject.toml': pyproject }), { paths: ['pyproject.toml', 'src/demo/__init__.py', 'tests/test_demo.py'] });
    assert.equal(d?.runner, 'pytest');
    const install = d?.install ?? '';
    assert.match(install, /^python3 -m venv --system-site-packages --without-pip \.flowfix-venv && \.flowfix-venv\/bin\/python -m pip install /);
    assert.match(install, / 'attrs>=22' 'packaging ; python_version >= "3\.8"' 'pytest>=7' 'hypothesis'/);
    assert.doesNotMatch(install, /evil|sphinx/);
    // the src/ folder on the virtualenv's path, as an editable install would put it
    assert.match(install, /&& \.flowfix-venv\/bin\/python -c '.*\.pth.*src.*'$/);
    assert.match(d?.why ?? '', /src\/ importable/);
  });

  test('a Python project with nothing to install keeps the interpreter it finds', () => {
    assert.equal(detectRunner(repo({ 'pytest.ini': '[pytest]\n' }), { paths: ['pytest.ini', 'test_x.py'] })?.install, undefined);
  });

  test("every lock file's registry is reachable by default: yarn classic's yarn.lock resolves from registry.yarnpkg.com", () => {
    const registries = RepositorySettingsSchema.parse({}).registries;
    for (const host of ['registry.npmjs.org', 'registry.yarnpkg.com', 'pypi.org', 'files.pythonhosted.org']) assert.ok(registries.includes(host), host);
  });

  test('nothing to go on: nothing detected', () => {
    assert.equal(detectRunner(repo({ 'README.md': '# x' })), null);
  });
});

describe('parseTap', () => {
  test('a name with an escaped \\# (node-tap 16) or a plain # is kept whole, and SKIP still skips', () => {
    const tap = [
      'TAP version 13',
      '# Subtest: test/parse-url.js',
      '    not ok 1 - fromUrl(github:user/repo\\#semver:^1.0.0) is not null',
      '      ---',
      '      found: null',
      '      ...',
      '    ok 2 - issue #42 stays fixed',
      '    ok 3 - later # SKIP not yet',
      '    1..3',
      'not ok 1 - test/parse-url.js # time=12ms',
      '1..1',
    ].join('\n');
    const results = parseTap(tap);
    assert.deepEqual(
      results.map((r) => [r.name, r.status]),
      [
        ['test/parse-url.js > fromUrl(github:user/repo#semver:^1.0.0) is not null', 'failed'],
        ['test/parse-url.js > issue #42 stays fixed', 'passed'],
        ['test/parse-url.js > later', 'skipped'],
      ],
    );
  });

  test('tape: one result per test, named by its comment; a failing assertion fails it, with its YAML diagnostics', () => {
    const tape = [
      'TAP version 13',
      '# slugify',
      'ok 1 should be strictly equal',
      'not ok 2 should be strictly equal',
      '  ---',
      '    operator: equal',
      "    expected: 'hello_world'",
      "    actual:   'hello-world'",
      '    at: Test.<anonymous> (/repo/test/slugify.js:9:5)',
      '  ...',
      '# later',
      'ok 3 should be strictly equal # SKIP not yet',
      '# empty',
      '',
      '1..3',
      '# tests 3',
      '# pass  1',
      '# fail  1',
    ].join('\n');
    const results = parseTap(tape);
    assert.deepEqual(
      results.map((r) => [r.id, r.status]),
      [
        ['tap::slugify', 'failed'],
        ['tap::later', 'skipped'],
        ['tap::empty', 'passed'],
      ],
    );
    assert.equal(results[0].message, 'slugify: equal');
    assert.match(results[0].details ?? '', /expected: 'hello_world'/);
    assert.match(results[0].details ?? '', /test\/slugify\.js:9:5/);
  });

  test('tape: the test a crash stopped the stream in fails (its assertions never came); the tests before it keep their verdicts', () => {
    // a test that throws: the process prints the exception to stderr and exits, no plan
    const tape = ['TAP version 13', '# first', 'ok 1 should be strictly equal', 'ok 2 two', '# crashes', ''].join('\n');
    const results = parseTap(tape);
    assert.deepEqual(
      results.map((r) => [r.id, r.status]),
      [
        ['tap::first', 'passed'],
        ['tap::crashes', 'failed'],
      ],
    );
    assert.match(results[1].message ?? '', /the test process ended during this test/);
    // the same suite once the code is fixed: the same ids, both passing
    const fixed = parseTap(
      ['TAP version 13', '# first', 'ok 1 a', 'ok 2 b', '# crashes', 'ok 3 c', '', '1..3', '# tests 3', '# pass  3', '', '# ok'].join('\n'),
    );
    assert.deepEqual(
      fixed.map((r) => [r.id, r.status]),
      [
        ['tap::first', 'passed'],
        ['tap::crashes', 'passed'],
      ],
    );
  });

  test("ava's TAP (logs as indented comments) is not grouped", () => {
    const ava = [
      'TAP version 13',
      'ok 1 - adds',
      '#   a log line',
      'not ok 2 - subtracts',
      '  ---',
      '    name: AssertionError',
      '  ...',
      '',
      '1..2',
      '# tests 2',
      '# pass 1',
      '# fail 1',
    ].join('\n');
    assert.deepEqual(
      parseTap(ava).map((r) => [r.id, r.status]),
      [
        ['tap::adds', 'passed'],
        ['tap::subtracts', 'failed'],
      ],
    );
  });

  test('node-tap subtests: leaves named by their parents, the parents themselves not repeated', () => {
    const tap = [
      'TAP version 13',
      '# Subtest: parse',
      '    # Subtest: numbers',
      '        ok 1 - should be equal',
      '        not ok 2 - should be equal',
      '          ---',
      '          found: 3',
      '          wanted: 4',
      '          ...',
      '        1..2',
      '    not ok 1 - numbers',
      '    1..1',
      'not ok 1 - parse',
      '1..1',
    ].join('\n');
    const results = parseTap(tap);
    assert.deepEqual(
      results.map((r) => [r.id, r.status]),
      [
        ['tap::parse > numbers > should be equal', 'passed'],
        ['tap::parse > numbers > should be equal [2]', 'failed'],
      ],
    );
    assert.match(results[1].details ?? '', /wanted: 4/);
  });

  test("a stream cut short: a Bail out!, no plan, or fewer top-level results than the plan; subtests' own plans do not count", () => {
    assert.equal(tapCutShort('TAP version 13\n1..2\nok 1 - a\nok 2 - b\n'), undefined);
    assert.equal(tapCutShort('TAP version 13\nok 1 - a\nok 2 - b\n1..2\n'), undefined);
    assert.equal(tapCutShort('1..0 # SKIP nothing to run\n'), undefined);
    assert.equal(tapCutShort('TAP version 13\nok 1 - a\n'), 'the TAP stream ends before its plan (1..N), after 1 result(s)');
    assert.equal(tapCutShort('1..3\nok 1 - a\nok 2 - b\n'), 'the TAP stream has 2 of the 3 results its plan announces');
    assert.equal(tapCutShort('1..3\nok 1 - a\nBail out! database unreachable\n'), 'the TAP stream bails out (database unreachable) after 1 result(s)');
    // node-tap: one top-level point per file, its subtests indented with plans of their own
    const nested = ['TAP version 13', '# Subtest: test/a.js', '    ok 1 - x', '    ok 2 - y', '    1..2', 'ok 1 - test/a.js', '1..1'].join('\n');
    assert.equal(tapCutShort(nested), undefined);
    assert.equal(tapCutShort(nested.replace('ok 1 - test/a.js\n1..1', '')), 'the TAP stream ends before its plan (1..N), after 0 result(s)');
  });
});
