// The size of a diff: files, added and removed lines. One shape for a
// change as CI or the code host reports it (the upload's diffStat, GitHub's
// additions and deletions) and for a fix (lib/fixes/views.ts diffStatOf).

export interface DiffStat {
  files: number;
  additions: number;
  deletions: number;
}

/** From `git diff --numstat` output: the CLI's report and the demo's. */
export function diffStatFromNumstat(numstat: string): DiffStat {
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
