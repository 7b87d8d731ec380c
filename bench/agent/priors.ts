// The offline policy's pattern priors from the corpus as a whole
// (agent/policies/offline/priors.ts keeps the table; this is where it comes
// from): for every template, how many corpus bugs it expresses the correct
// fix of. `node --import tsx bench/agent/priors.ts` prints the counts and the
// priors; test/unit/agent/offline/priors.test.ts checks the table against it.
import { CORPUS_FIX_COUNTS, LAPLACE, priorsFromCounts } from '../../agent/policies/offline/priors';
import { BUGS } from './corpus/index';
import type { CorpusBug } from './corpus/types';

export function corpusFixCounts(bugs: CorpusBug[] = BUGS): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(Object.keys(CORPUS_FIX_COUNTS).map((t) => [t, 0]));
  for (const bug of bugs) if (bug.fix && bug.fix !== 'stale-expectation') counts[bug.fix] = (counts[bug.fix] ?? 0) + 1;
  return counts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const counts = corpusFixCounts();
  const priors = priorsFromCounts(counts, LAPLACE);
  const n = BUGS.length;
  const none = BUGS.filter((b) => b.fix === null).length;
  const stale = BUGS.filter((b) => b.fix === 'stale-expectation').length;
  process.stdout.write(`${n} bugs: ${none} beyond every template, ${stale} stale expectations (ordered apart)\n`);
  for (const [t, c] of Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
    process.stdout.write(`  ${t.padEnd(22)} ${String(c).padStart(3)}   prior ${priors[t].toFixed(3)}\n`);
  }
  process.stdout.write(`\nCORPUS_FIX_COUNTS = ${JSON.stringify(counts, null, 2)}\n`);
}
