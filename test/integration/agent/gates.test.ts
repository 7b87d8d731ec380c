import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { createGates, type Gates } from '@/agent/gates/gates';
import { ArraySink, gateOutcome } from '@/agent/report/sinks';
import { Workspace } from '@/agent/workspace/workspace';
import { createPyRepo, createTsRepo, TS_CART_BASE, TS_CART_HEAD, type TestRepo } from '../../helpers/agent-repos';

const TARGET = 'test::cart > total multiplies price by quantity';
const FIX = { kind: 'replace' as const, file: 'src/cart.ts', oldText: 'item.price + item.qty', newText: 'item.price * item.qty' };

describe('gates on a TypeScript repository', () => {
  let repo: TestRepo;
  let ws: Workspace;
  let gates: Gates;
  let sink: ArraySink;

  before(async () => {
    repo = createTsRepo();
    symlinkSync('/etc', path.join(repo.dir, 'etc-link'));
    repo.commit('a link out');
    ws = await Workspace.create({ source: repo.dir, headRev: 'HEAD' });
    sink = new ArraySink();
    gates = createGates({ workspace: ws, settings: repo.settings, targets: [{ id: TARGET }], sink });
  });
  after(async () => {
    await ws.dispose();
    repo.cleanup();
  });
  beforeEach(() => gates.reset());

  const cart = () => readFileSync(path.join(ws.root, 'src/cart.ts'), 'utf8');

  test('RED passes on the head revision: the target fails there', async () => {
    const { verdict, run } = await gates.runTargets('red', 'fail');
    assert.equal(verdict.passed, true);
    assert.deepEqual(verdict.counts, { run: 1, passed: 0, failed: 1, skipped: 0 });
    assert.equal(run.results[0].status, 'failed');
    assert.match(run.results[0].message ?? '', /!==/);
  });

  test('compile passes for a good edit; GREEN and final then pass; the diff shows it', async () => {
    const verdict = await gates.applyEdit(FIX);
    assert.equal(verdict.passed, true, JSON.stringify(verdict));
    assert.equal(cart(), TS_CART_BASE);
    assert.equal((await gates.green()).verdict.passed, true);
    assert.equal((await gates.final()).verdict.passed, true);
    assert.match(await gates.diff(), /^\+    sum \+= item\.price \* item\.qty;$/m);
    assert.ok(sink.ofType('gate').some((e) => e.payload.gate === 'compile' && e.payload.passed === true));
  });

  test('GREEN fails when the edit compiles but does not fix the test', async () => {
    const verdict = await gates.applyEdit({ ...FIX, newText: 'item.price - item.qty' });
    assert.equal(verdict.passed, true);
    const green = await gates.green();
    assert.equal(green.verdict.passed, false);
    assert.equal(green.run.results[0].status, 'failed');
  });

  test('compile fails on a malformed edit', async () => {
    const verdict = await gates.applyEdit({ kind: 'replace', file: 'src/cart.ts', oldText: '', newText: 'x' });
    assert.equal(verdict.passed, false);
    assert.equal(verdict.diagnostics?.[0].kind, 'malformed');
    const bogus = await gates.applyEdit({ kind: 'rename' } as never);
    assert.equal(bogus.diagnostics?.[0].kind, 'malformed');
  });

  test('compile fails when the text to replace is not there, and nothing changes', async () => {
    const verdict = await gates.applyEdit({ ...FIX, oldText: 'item.cost + item.qty' });
    assert.equal(verdict.passed, false);
    assert.equal(verdict.diagnostics?.[0].kind, 'apply');
    assert.equal(cart(), TS_CART_HEAD);
  });

  test('compile fails on a syntax error with the line, and rolls the edit back', async () => {
    const verdict = await gates.applyEdit({ ...FIX, newText: 'item.price * (item.qty' });
    assert.equal(verdict.passed, false);
    assert.equal(verdict.diagnostics?.[0].kind, 'syntax');
    assert.equal(verdict.diagnostics?.[0].file, 'src/cart.ts');
    assert.ok((verdict.diagnostics?.[0].line ?? 0) >= 9);
    assert.equal(cart(), TS_CART_HEAD);
  });

  test('compile fails when the build (tsc) fails, with tsc diagnostics, and rolls back', async () => {
    const verdict = await gates.applyEdit({ ...FIX, newText: 'item.price * item.quantity' });
    assert.equal(verdict.passed, false);
    assert.equal(verdict.diagnostics?.[0].kind, 'build');
    assert.equal(verdict.diagnostics?.[0].file, 'src/cart.ts');
    assert.equal(verdict.diagnostics?.[0].line, 9);
    assert.match(verdict.diagnostics?.[0].message ?? '', /TS2551|TS2339/);
    assert.equal(cart(), TS_CART_HEAD);
  });

  test('compile applies a clean unified diff and refuses one whose context does not match', async () => {
    const good = [
      '--- a/src/cart.ts',
      '+++ b/src/cart.ts',
      '@@ -8,3 +8,3 @@',
      '   for (const item of items) {',
      '-    sum += item.price + item.qty;',
      '+    sum += item.price * item.qty;',
      '   }',
      '',
    ].join('\n');
    const bad = good.replace('   for (const item of items) {', '   for (const thing of things) {');
    const refused = await gates.applyEdit({ kind: 'diff', diff: bad });
    assert.equal(refused.passed, false);
    assert.equal(refused.diagnostics?.[0].kind, 'apply');
    assert.equal(cart(), TS_CART_HEAD);
    const applied = await gates.applyEdit({ kind: 'diff', diff: good });
    assert.equal(applied.passed, true, JSON.stringify(applied));
    assert.equal(cart(), TS_CART_BASE);
    const garbage = await gates.applyEdit({ kind: 'diff', diff: 'this is not a diff' });
    assert.equal(garbage.passed, false);
  });

  test('compile refuses paths out of the workspace, through symlinks, in diffs, and binary patches', async () => {
    for (const edit of [
      { kind: 'create' as const, file: '../../etc/passwd', content: 'x' },
      { kind: 'create' as const, file: 'etc-link/flowfix', content: 'x' },
      { kind: 'replace' as const, file: '/etc/hostname', oldText: 'a', newText: 'b' },
      { kind: 'diff' as const, diff: '--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+evil\n' },
      { kind: 'diff' as const, diff: 'diff --git a/logo.png b/logo.png\nGIT binary patch\nliteral 1\nIcmZ?l\n\nliteral 0\n' },
    ]) {
      const verdict = await gates.applyEdit(edit);
      assert.equal(verdict.passed, false, JSON.stringify(edit));
      assert.equal(verdict.diagnostics?.[0].kind, 'path', JSON.stringify(verdict));
    }
  });

  test('compile checks JSON files by parsing them', async () => {
    const bad = await gates.applyEdit({ kind: 'create', file: 'config/settings.json', content: '{"a": 1,}' });
    assert.equal(bad.passed, false);
    assert.equal(bad.diagnostics?.[0].kind, 'syntax');
    assert.equal(await ws.exists('config/settings.json'), false);
    const good = await gates.applyEdit({ kind: 'create', file: 'config/settings.json', content: '{"a": 1}' });
    assert.equal(good.passed, true);
  });

  test('regression passes on the fixed workspace and fails on the broken one', async () => {
    const broken = (await gates.regression()).verdict;
    assert.equal(broken.passed, false);
    // the verdict lists only the failing tests, and counts the whole suite
    assert.deepEqual(broken.counts, { run: 3, passed: 2, failed: 1, skipped: 0 });
    assert.equal(broken.tests?.length, 1);
    await gates.applyEdit(FIX);
    const { verdict, run } = await gates.regression();
    assert.equal(verdict.passed, true);
    assert.equal(run.results.length, 3);
    assert.deepEqual(verdict.counts, { run: 3, passed: 3, failed: 0, skipped: 0 });
  });

  test('final fails on the unfixed workspace', async () => {
    assert.equal((await gates.final()).verdict.passed, false);
  });
});

describe('gates on a Python repository', () => {
  let repo: TestRepo;
  let ws: Workspace;
  let gates: Gates;

  before(async () => {
    repo = createPyRepo();
    ws = await Workspace.create({ source: repo.dir, headRev: repo.head });
    gates = createGates({
      workspace: ws,
      settings: repo.settings,
      targets: [{ id: 'tests.test_cart::test_total' }],
      sink: new ArraySink(),
    });
  });
  after(async () => {
    await ws.dispose();
    repo.cleanup();
  });
  beforeEach(() => gates.reset());

  test('RED passes on head and fails on base (the target passes there)', async () => {
    assert.equal((await gates.runTargets('red', 'fail')).verdict.passed, true);
    await ws.checkoutRevision(repo.base);
    const base = await gates.runTargets('base', 'fail');
    assert.equal(base.verdict.passed, false);
    assert.equal(base.run.results[0].status, 'passed');
    await ws.checkoutRevision(repo.head);
  });

  test('a Python syntax error is caught by the compile gate with its line', async () => {
    const verdict = await gates.applyEdit({ kind: 'replace', file: 'shop/cart.py', oldText: 'price + qty', newText: 'price * (qty' });
    assert.equal(verdict.passed, false);
    assert.equal(verdict.diagnostics?.[0].kind, 'syntax');
    assert.equal(verdict.diagnostics?.[0].line, 2);
    assert.match(await ws.readFile('shop/cart.py'), /price \+ qty/);
  });

  test('a failed edit rolls back to the state before it, not to the head: earlier edits stay', async () => {
    const first = await gates.applyEdit({ kind: 'create', file: 'shop/notes.py', content: 'NOTE = 1\n' });
    assert.equal(first.passed, true);
    const second = await gates.applyEdit({ kind: 'replace', file: 'shop/cart.py', oldText: 'price + qty', newText: 'price + (qty' });
    assert.equal(second.passed, false);
    assert.match(await ws.readFile('shop/cart.py'), /price \+ qty\b/);
    assert.equal(await ws.readFile('shop/notes.py'), 'NOTE = 1\n');
    // straight after a reset, the rollback point is the head itself
    await gates.reset();
    const third = await gates.applyEdit({ kind: 'create', file: 'shop/broken.py', content: 'def (\n' });
    assert.equal(third.passed, false);
    assert.equal(await ws.exists('shop/broken.py'), false);
    assert.deepEqual(await ws.changedFiles(), []);
  });

  test('a good Python fix passes compile and GREEN, and leaves no __pycache__ in the diff', async () => {
    const verdict = await gates.applyEdit({ kind: 'replace', file: 'shop/cart.py', oldText: 'price + qty', newText: 'price * qty' });
    assert.equal(verdict.passed, true);
    assert.equal((await gates.green()).verdict.passed, true);
    assert.deepEqual(await ws.changedFiles(), ['shop/cart.py']);
  });

  test('a target missing from the report is never a pass nor a reproduction', async () => {
    gates.setTargets([{ id: 'tests.test_cart::test_does_not_exist' }]);
    try {
      const red = await gates.runTargets('red', 'fail');
      assert.equal(red.verdict.passed, false);
      assert.equal((await gates.green()).verdict.passed, false);
    } finally {
      gates.setTargets([{ id: 'tests.test_cart::test_total' }]);
    }
  });
});

describe('the base gate of a change that edits only tests', () => {
  // the change adds an assertion to a test the base already has: the target passes on the base
  // because it was stricter there, never because the change broke code
  test('says the change edits the tests, not that it broke them; a change to code still says it broke them', async () => {
    const lines: string[] = [];
    for (const testsOnly of [true, false]) {
      const repo = createTsRepo({
        head: testsOnly ? TS_CART_BASE.replace('sum += item.price * item.qty;', 'sum += item.price * item.qty + (items.length > 2 ? 1 : 0);') : TS_CART_HEAD,
      });
      try {
        if (testsOnly) {
          // base: the code as the head has it (unchanged by the change); head: one more assertion that it fails
          repo.git('checkout', '-q', repo.base);
          repo.write('src/cart.ts', TS_CART_BASE.replace('sum += item.price * item.qty;', 'sum += item.price * item.qty + (items.length > 2 ? 1 : 0);'));
          const base = repo.commit('cart: count a small fee');
          repo.write(
            'test/cart.test.ts',
            readFileSync(path.join(repo.dir, 'test/cart.test.ts'), 'utf8').replace(
              '), 17);',
              '), 17);\n    assert.equal(total([{ price: 1, qty: 1 }, { price: 1, qty: 1 }, { price: 1, qty: 1 }]), 3);',
            ),
          );
          repo.commit('test: three items');
          Object.assign(repo, { base });
        }
        const ws = await Workspace.create({ source: repo.dir, headRev: 'HEAD' });
        try {
          const gates = createGates({
            workspace: ws,
            settings: { ...repo.settings, build: undefined },
            targets: [{ id: TARGET }],
            sink: new ArraySink(),
            changedFiles: testsOnly ? ['test/cart.test.ts'] : ['src/cart.ts', 'README.md'],
          });
          assert.equal((await gates.runTargets('red', 'fail')).verdict.passed, true);
          await ws.checkoutRevision(repo.base);
          const { verdict } = await gates.runTargets('base', 'fail');
          await ws.checkoutRevision(ws.headRev);
          assert.equal(verdict.passed, false, 'the target passes on the base');
          lines.push(gateOutcome('base', verdict.passed, verdict));
        } finally {
          await ws.dispose();
        }
      } finally {
        repo.cleanup();
      }
    }
    assert.equal(lines[0], 'the target tests pass without the change – (the change edits only tests: new or stricter assertions)');
    assert.equal(lines[1], 'the target tests pass without the change ✓ (the change broke them)');
  });
});
