// The table of environment variables (docs/configuration.md, docs/deploy.md)
// is generated from the env module (lib/env.ts) by `npm run docs:env`
// (scripts/env-docs.ts), never written by hand: this fails when a committed
// table and the module disagree — a variable added, removed, renamed, re-described or given another
// default without regenerating the page.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EnvSchema } from '@/lib/env';
import { ENV_TABLE_END, ENV_TABLE_PAGES, ENV_TABLE_START, envVariables, renderEnvTable, replaceEnvTable } from '../../../scripts/env-docs';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('the environment table of the docs', () => {
  test('is exactly what the env module generates, on every page that shows it (npm run docs:env rewrites them)', () => {
    assert.deepEqual(ENV_TABLE_PAGES, ['docs/configuration.md', 'docs/deploy.md']);
    for (const rel of ENV_TABLE_PAGES) {
      const page = fs.readFileSync(path.join(ROOT, rel), 'utf8');
      assert.ok(page.includes(ENV_TABLE_START), `${rel} has the generated table`);
      assert.equal(replaceEnvTable(page), page, `${rel} is stale: run \`npm run docs:env\``);
    }
  });

  test('has one row per variable of the env module, in its order, each described', () => {
    const names = Object.keys(EnvSchema.shape);
    const rows = envVariables();
    assert.deepEqual(
      rows.map((r) => r.name),
      names,
    );
    for (const row of rows) assert.ok(row.meaning.length > 10, `${row.name} has no description in lib/env.ts (.describe(…))`);
    const table = renderEnvTable();
    for (const name of names) assert.match(table, new RegExp(`^\\| \`${name}\` \\|`, 'm'));
  });

  test('shows each default the module applies', () => {
    const byName = new Map(envVariables().map((r) => [r.name, r]));
    assert.equal(byName.get('FLOWFIX_DATA_DIR')?.default, '`.data`');
    assert.equal(byName.get('FLOWFIX_MAX_UPLOAD_BYTES')?.default, '`20971520`');
    assert.equal(byName.get('NODE_ENV')?.default, '`development`');
    assert.equal(byName.get('DATABASE_URL')?.default, 'unset');
  });

  test('rewrites only the marked section, and refuses a page without the markers', () => {
    const page = `# Deploy\n\nbefore\n\n${ENV_TABLE_START}\n| old | table |\n${ENV_TABLE_END}\n\nafter\n`;
    const out = replaceEnvTable(page);
    assert.ok(out.startsWith('# Deploy\n\nbefore\n\n'));
    assert.ok(out.endsWith(`${ENV_TABLE_END}\n\nafter\n`));
    assert.ok(!out.includes('| old | table |'));
    assert.ok(out.includes(renderEnvTable()));
    assert.throws(() => replaceEnvTable('# Deploy\n'), /markers/);
  });

  test('escapes a pipe in a description so the table keeps its columns', () => {
    const table = renderEnvTable();
    for (const line of table.split('\n').filter((l) => l.startsWith('| `'))) {
      assert.equal(line.replace(/\\\|/g, '').split('|').length, 5, line);
    }
  });
});
