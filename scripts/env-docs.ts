// `npm run docs:env`: rewrites the table of environment variables in the
// pages that show it (ENV_TABLE_PAGES) from the env module (lib/env.ts), so
// the pages and the code never say two things: each variable's row is its
// name, the default the schema applies, and its `.describe()` text. `--check`
// only says whether the pages are current (exit 1 when not).
// test/unit/docs/env-table.test.ts fails when a committed table and the
// module disagree.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { EnvSchema } from '../lib/env';

export const ENV_TABLE_START = '<!-- env-table: generated from lib/env.ts by `npm run docs:env`; edit the descriptions there -->';
export const ENV_TABLE_END = '<!-- /env-table -->';

export interface EnvVariableRow {
  name: string;
  /** Markdown: the default in backticks, or "unset" */
  default: string;
  meaning: string;
}

function defaultOf(schema: z.ZodType): string {
  if (schema instanceof z.ZodDefault) return `\`${String(schema.def.defaultValue as unknown)}\``;
  return 'unset';
}

/** Every variable of the env module, in the order it declares them. */
export function envVariables(): EnvVariableRow[] {
  return Object.entries(EnvSchema.shape).map(([name, schema]) => ({
    name,
    default: defaultOf(schema as z.ZodType),
    meaning: (schema as z.ZodType).description ?? '',
  }));
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderEnvTable(): string {
  const rows = envVariables().map((v) => `| \`${v.name}\` | ${cell(v.default)} | ${cell(v.meaning)} |`);
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** `page` with the text between the markers replaced by the generated table. */
export function replaceEnvTable(page: string): string {
  const start = page.indexOf(ENV_TABLE_START);
  const end = page.indexOf(ENV_TABLE_END);
  if (start < 0 || end < start) throw new Error(`the page has no env-table markers (${ENV_TABLE_START} … ${ENV_TABLE_END})`);
  return `${page.slice(0, start)}${ENV_TABLE_START}\n${renderEnvTable()}\n${page.slice(end)}`;
}

/** The pages that show the table, relative to the repository. */
export const ENV_TABLE_PAGES = ['docs/configuration.md', 'docs/deploy.md'];

function main(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  let stale = 0;
  for (const rel of ENV_TABLE_PAGES) {
    const file = path.join(root, rel);
    const page = fs.readFileSync(file, 'utf8');
    const next = replaceEnvTable(page);
    if (process.argv.includes('--check')) {
      if (next !== page) {
        process.stderr.write(`${rel}: the environment table is stale; run \`npm run docs:env\`\n`);
        stale++;
      }
      continue;
    }
    if (next !== page) fs.writeFileSync(file, next);
    process.stdout.write(`${rel}: ${envVariables().length} variables${next === page ? ' (unchanged)' : ''}\n`);
  }
  if (stale) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
