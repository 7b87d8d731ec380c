// A change's size as CI reports it (files, added and removed lines), from
// `git diff --numstat` output. Shared by the CLI's report and the demo's.

export interface NumstatDiffStat {
  files: number;
  additions: number;
  deletions: number;
}

export function diffStatFromNumstat(numstat: string): NumstatDiffStat {
  let files = 0;
  let additions = 0;
  let deletions = 0;
  for (const line of numstat.split('\n')) {
    if (!line) continue;
    const [add, del] = line.split('\t');
    files++;
    // binary files show "-"
    additions += Number(add) || 0;
    deletions += Number(del) || 0;
  }
  return { files, additions, deletions };
}
