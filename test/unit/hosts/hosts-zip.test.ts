import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { globToRegExp, readZip, ZipError } from '../../../lib/hosts/zip';

// Archives written by Info-ZIP's zip, the real thing, not by our own code.
function zipOf(files: Record<string, string | Buffer>, flags: string[] = []): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-zip-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, 'in', name)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'in', name), content);
    }
    execFileSync('zip', ['-q', '-r', ...flags, path.join(dir, 'a.zip'), '.'], { cwd: path.join(dir, 'in') });
    return fs.readFileSync(path.join(dir, 'a.zip'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('artifact zips', () => {
  test('reads deflated and stored entries in folders', () => {
    const xml = '<testsuites>' + '<testcase name="x"/>'.repeat(500) + '</testsuites>';
    for (const flags of [[], ['-0']]) {
      const entries = readZip(zipOf({ 'reports/junit.xml': xml, 'reports/deep/b.xml': '<x/>', 'notes.txt': 'hi' }, flags), { maxEntryBytes: 1 << 20 });
      const byName = new Map(entries.map((e) => [e.name, e]));
      assert.deepEqual([...byName.keys()].sort(), ['notes.txt', 'reports/deep/b.xml', 'reports/junit.xml']);
      assert.equal(byName.get('reports/junit.xml')!.read().toString(), xml);
    }
  });

  test('an entry that inflates beyond the limit is refused, so is something that is not a zip', () => {
    const entries = readZip(zipOf({ 'big.xml': Buffer.alloc(200_000, 0x41) }), { maxEntryBytes: 100_000 });
    assert.throws(() => entries[0].read(), ZipError);
    assert.throws(() => readZip(Buffer.from('not a zip at all, just some text that is long enough'), { maxEntryBytes: 10 }), /not a zip/);
  });

  test('path globs: ** spans folders, * stays in one', () => {
    assert.ok(globToRegExp('**/*.xml').test('junit.xml'));
    assert.ok(globToRegExp('**/*.xml').test('a/b/junit.xml'));
    assert.ok(!globToRegExp('*.xml').test('a/junit.xml'));
    assert.ok(globToRegExp('junit*').test('junit-node-20'));
    assert.ok(!globToRegExp('reports/*.xml').test('reports/x.xml.txt'));
  });
});
