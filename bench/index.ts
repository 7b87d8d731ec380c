// `npm run bench` — runs every benchmark listed in BENCHES and prints its
// figures as markdown tables for bench/README.md. Progress goes to
// stderr, the tables to stdout.
//
//   npm run bench                        all benchmarks
//   npm run bench -- --only triage       one of them
//   npm run bench -- --scale 100000      smaller data (each bench says what it scales)
//   npm run bench -- --server postgresql://postgres@127.0.0.1:5432/postgres
//   npm run bench -- --keep              keep the scratch database (to EXPLAIN queries)
//
// Add a benchmark: write bench/<name>.ts exporting a BenchModule and list it below.

import os from 'node:os';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ms } from './stats';
import { triageBench } from './triage';
import { liveLatencyBench } from './live-latency';
import { runsThroughputBench } from './runs-throughput';
import { estimateBench } from './estimate';
import { insightsBench } from './insights';
import { hostsBench } from './hosts';
import { gradingBench } from './grading';
import { editorBench } from './editor';
import type { BenchModule, BenchResult } from './types';

const BENCHES: BenchModule[] = [triageBench, runsThroughputBench, liveLatencyBench, estimateBench, gradingBench, insightsBench, hostsBench, editorBench];

const ArgsSchema = z.object({
  only: z.string().optional(),
  server: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .default('postgresql://postgres@127.0.0.1:5432/postgres'),
  samples: z.coerce.number().int().min(1).max(100_000).default(200),
  warmup: z.coerce.number().int().min(0).max(10_000).default(20),
  scale: z.coerce.number().int().min(1_000).max(100_000_000).optional(),
  keep: z.boolean().default(false),
  help: z.boolean().default(false),
});

function usage(): string {
  return [
    'Usage: npm run bench -- [--only NAME] [--scale N] [--samples N] [--warmup N] [--server URL] [--keep]',
    '',
    'Benchmarks:',
    ...BENCHES.map((b) => `  ${b.name.padEnd(10)} ${b.description}`),
  ].join('\n');
}

function tableOf(result: BenchResult): string {
  const lines = [
    `#### ${result.bench}`,
    '',
    result.setup,
    '',
    '| query | p50 ms | p95 ms | max ms | target p95 | |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...result.figures.map((f) => {
      const verdict = f.targetP95 === undefined ? '' : f.p95 <= f.targetP95 ? 'ok' : 'OVER';
      return `| ${f.name} | ${ms(f.p50)} | ${ms(f.p95)} | ${ms(f.max)} | ${f.targetP95 === undefined ? '' : `≤ ${f.targetP95}`} | ${verdict} |`;
    }),
    '',
    ...result.notes.map((n) => `- ${n}`),
  ];
  return lines.join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      server: { type: 'string' },
      samples: { type: 'string' },
      warmup: { type: 'string' },
      scale: { type: 'string' },
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const parsed = ArgsSchema.safeParse(values);
  if (!parsed.success) {
    process.stderr.write(`${parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n')}\n\n${usage()}\n`);
    return 2;
  }
  const args = parsed.data;
  if (args.help) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const selected = args.only ? BENCHES.filter((b) => b.name === args.only) : BENCHES;
  if (selected.length === 0) {
    process.stderr.write(`No benchmark named ${args.only}.\n\n${usage()}\n`);
    return 2;
  }

  // Ctrl-C must not leave a million-row scratch database behind
  const cleanups = new Set<() => Promise<void>>();
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: cleaning up\n`);
    void Promise.allSettled([...cleanups].map((c) => c())).then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const started = performance.now();
  const loadBefore = os.loadavg()[0]!;
  const results: BenchResult[] = [];
  for (const bench of selected) {
    results.push(
      await bench.run({
        serverUrl: args.server,
        samples: args.samples,
        warmup: args.warmup,
        scale: args.scale,
        keep: args.keep,
        log: (line) => process.stderr.write(`${line}\n`),
        onInterrupt: (cleanup) => {
          cleanups.add(cleanup);
          return () => cleanups.delete(cleanup);
        },
      }),
    );
  }
  const minutes = ((performance.now() - started) / 60_000).toFixed(1);
  // other work on the machine shows up in the figures: say how busy it was
  const load = `load average ${loadBefore.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}`;
  process.stdout.write(
    `\n### Benchmarks (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, ${load}, Node ${process.version}, ${minutes} min)\n\n` +
      results.map(tableOf).join('\n\n') +
      '\n',
  );
  const over = results.flatMap((r) => r.figures).filter((f) => f.targetP95 !== undefined && f.p95 > f.targetP95);
  // a slow figure is reported, not fatal: the bench measures, it does not gate
  if (over.length) process.stderr.write(`${over.length} figure(s) over target: ${over.map((f) => f.name).join('; ')}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
