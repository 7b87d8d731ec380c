// The Insights rollups of the configured database (DATABASE_URL; unset → the
// embedded .data/pglite). Run with tsx; stop an embedded server first (one
// process owns a PGlite folder).
//
//   npx tsx scripts/insights.ts rebuild [--from YYYY-MM-DD] [--to YYYY-MM-DD]
//       recompute the rollups from the raw rows (every day, or those days);
//       safe while writers run: a day at a time under that day's lock
//   npx tsx scripts/insights.ts verify [--from …] [--to …]
//       recompute and compare with what is stored; exit 1 on any difference
//
// `npm run db:migrate` builds them on its own when they were never built or
// were built by an older definition (lib/insights/rollup.ts, ROLLUP_VERSION).

import { parseArgs } from 'node:util';
import { z } from 'zod';
import { getEnv } from '../lib/env';
import { openDb, resolveDbTarget } from '../lib/db';
import { rebuildInsightsRollups, verifyInsightsRollups } from '../lib/insights/rollup';

const DAY = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a UTC date YYYY-MM-DD')
  .optional();

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { from: { type: 'string' }, to: { type: 'string' } },
  });
  const command = z.enum(['rebuild', 'verify']).safeParse(positionals[0]);
  const from = DAY.safeParse(values.from);
  const to = DAY.safeParse(values.to);
  if (!command.success || !from.success || !to.success) {
    process.stderr.write('usage: insights.ts <rebuild|verify> [--from YYYY-MM-DD] [--to YYYY-MM-DD]\n');
    return 2;
  }
  const env = getEnv();
  const handle = openDb(resolveDbTarget(env.DATABASE_URL, env.FLOWFIX_DATA_DIR));
  try {
    const started = performance.now();
    if (command.data === 'rebuild') {
      let last = 0;
      const { days } = await rebuildInsightsRollups({
        db: handle.db,
        from: from.data,
        to: to.data,
        // a server rebuilds a day per core; PGlite one at a time
        concurrency: handle.target.kind === 'postgres' ? 2 : 1,
        onProgress: (p) => {
          if (Date.now() - last < 5_000 && p.done !== p.of) return;
          last = Date.now();
          out(`${p.kind}: ${p.day} (${p.done}/${p.of})`);
        },
      });
      out(`Rebuilt ${days} days in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
      return 0;
    }
    const { days, differences } = await verifyInsightsRollups({ db: handle.db, from: from.data, to: to.data });
    for (const d of differences) out(`${d.table} ${d.dims.join(' / ')}: ${d.key} stored ${d.stored}, recomputed ${d.recomputed}`);
    out(
      `${days} days checked in ${((performance.now() - started) / 1000).toFixed(1)} s: ${differences.length ? `${differences.length} difference(s)` : 'no difference'}.`,
    );
    return differences.length ? 1 : 0;
  } finally {
    await handle.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
