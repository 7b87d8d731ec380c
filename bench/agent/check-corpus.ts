// Checks the corpus against reality: for every bug, the base revision passes
// its whole suite and the head revision fails exactly the listed tests. Run
// with `node --import tsx bench/agent/check-corpus.ts [bug-id-substring]`.
import { rm } from 'node:fs/promises';
import { Workspace } from '../../agent/workspace/workspace';
import { runTests } from '../../agent/testing/test-runner';
import { BUGS, buildBugRepo, projectOf, settingsFor } from './corpus/index';
import type { CorpusBug } from './corpus/types';

async function failingAt({
  repoDir,
  rev,
  bug,
}: {
  repoDir: string;
  rev: string;
  bug: CorpusBug;
}): Promise<{ failing: string[]; total: number; error?: string }> {
  const workspace = await Workspace.create({ source: repoDir, headRev: rev });
  try {
    const run = await runTests({ workspace, settings: settingsFor(projectOf(bug)), kind: 'regression', targets: [] });
    const failing = run.results.filter((r) => r.status === 'failed' || r.status === 'error').map((r) => r.id);
    return {
      failing: failing.sort(),
      total: run.results.length,
      ...(run.reportError ? { error: `${run.reportError}\n${run.command.output.slice(-2000)}` } : {}),
    };
  } finally {
    await workspace.dispose();
  }
}

export async function checkBug(bug: CorpusBug): Promise<string[]> {
  const problems: string[] = [];
  const repo = await buildBugRepo({ bug });
  try {
    const base = await failingAt({ repoDir: repo.dir, rev: repo.base, bug });
    if (base.error) problems.push(`base: ${base.error}`);
    if (base.failing.length) problems.push(`base fails ${base.failing.join(', ')}`);
    if (base.total === 0) problems.push('base ran no tests');
    const head = await failingAt({ repoDir: repo.dir, rev: repo.head, bug });
    if (head.error) problems.push(`head: ${head.error}`);
    const expected = [...bug.failingTests].sort();
    if (JSON.stringify(head.failing) !== JSON.stringify(expected))
      problems.push(`head fails [${head.failing.join(', ')}], corpus says [${expected.join(', ')}]`);
  } finally {
    await rm(repo.dir, { recursive: true, force: true });
  }
  return problems;
}

async function main(): Promise<void> {
  const filter = process.argv[2];
  const bugs = BUGS.filter((b) => !filter || b.id.includes(filter));
  let bad = 0;
  for (const bug of bugs) {
    const problems = await checkBug(bug);
    if (problems.length) bad += 1;
    process.stdout.write(`${problems.length ? 'FAIL' : 'ok  '} ${bug.id}${problems.length ? `\n     ${problems.join('\n     ')}` : ''}\n`);
  }
  process.stdout.write(`${bugs.length - bad}/${bugs.length} bugs behave as described\n`);
  if (bad) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
