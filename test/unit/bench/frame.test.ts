import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectRunner } from '../../../agent/testing/runners';
import { modulesUnderTest, packageJson } from '../../../bench/mutants/frame';

describe('bench mutants: the framed modules', () => {
  it('finds the production modules a unit test imports, with their tests and what they import', () => {
    const modules = modulesUnderTest();
    const format = modules.find((m) => m.file === 'common/format.ts');
    assert.ok(format, modules.map((m) => m.file).join(', '));
    assert.deepEqual(format.tests, ['test/unit/common/format.test.ts']);
    assert.ok(format.files.includes('common/format.ts') && format.files.includes('test/unit/common/format.test.ts'));
    for (const m of modules) {
      assert.ok(/^(lib|agent|common)\//.test(m.file), m.file);
      assert.ok(!m.file.startsWith('lib/generated/'), m.file);
      // a test that needs the database is not framed
      assert.ok(!m.files.includes('lib/db.ts'), `${m.file} pulls in lib/db.ts`);
    }
  });

  it("the framed package.json is one the product's runner detection reads as node --test through tsx", () => {
    const runner = detectRunner((rel) => (rel === 'package.json' ? packageJson(['test/unit/a.test.ts']) : rel === 'tsconfig.json' ? '{}' : null));
    assert.equal(runner?.runner, 'node:test');
    assert.match(runner?.test ?? '', /--import tsx .*test\/unit\/a\.test\.ts$/);
  });
});
