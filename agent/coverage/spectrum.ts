// Spectrum-based fault localisation: which lines the failing tests ran and
// which the passing tests ran, scored with Ochiai (Abreu et al. 2007), the
// formula that ranks best among the classic ones on real faults:
//
//   susp(s) = failed(s) / sqrt(totalFailed × (failed(s) + passed(s)))
//
// A line every failing test runs and no passing test runs scores 1; a line no
// failing test runs scores 0. A span's suspiciousness is its most suspicious
// line (the fault is one statement; the span is where it lives).

export interface LineCounts {
  /** failing tests that ran the line */
  failed: number;
  /** passing tests that ran the line */
  passed: number;
}

export interface Spectrum {
  totalFailed: number;
  totalPassed: number;
  /** what one execution is: a test (per-test coverage), or a whole run of several tests (agent/coverage/process.ts) */
  unit?: 'test' | 'run';
  /** workspace-relative file → 1-based line → counts */
  lines: Map<string, Map<number, LineCounts>>;
}

/** One test's execution: whether it failed (a target) or passed, and the lines it ran. */
export interface TestExecution {
  failed: boolean;
  /** workspace-relative file → lines */
  lines: Map<string, Set<number>>;
}

export function buildSpectrum(executions: TestExecution[]): Spectrum {
  const lines = new Map<string, Map<number, LineCounts>>();
  let totalFailed = 0;
  let totalPassed = 0;
  for (const ex of executions) {
    if (ex.failed) totalFailed += 1;
    else totalPassed += 1;
    for (const [file, set] of ex.lines) {
      let perFile = lines.get(file);
      if (!perFile) lines.set(file, (perFile = new Map()));
      for (const line of set) {
        const c = perFile.get(line) ?? { failed: 0, passed: 0 };
        if (ex.failed) c.failed += 1;
        else c.passed += 1;
        perFile.set(line, c);
      }
    }
  }
  return { totalFailed, totalPassed, lines };
}

export function ochiai(counts: LineCounts, totalFailed: number): number {
  if (counts.failed === 0 || totalFailed === 0) return 0;
  return counts.failed / Math.sqrt(totalFailed * (counts.failed + counts.passed));
}

export interface SpanSuspiciousness {
  /** Ochiai of the span's most suspicious line */
  score: number;
  line: number;
  failed: number;
  passed: number;
}

/** The most suspicious line of lines start..end of a file, or null when no failing test ran any of them. */
export function spanSuspiciousness(spectrum: Spectrum, file: string, startLine: number, endLine: number): SpanSuspiciousness | null {
  const perFile = spectrum.lines.get(file);
  if (!perFile) return null;
  let best: SpanSuspiciousness | null = null;
  for (const [line, counts] of perFile) {
    if (line < startLine || line > endLine || counts.failed === 0) continue;
    const score = ochiai(counts, spectrum.totalFailed);
    if (!best || score > best.score || (score === best.score && line < best.line)) best = { score, line, failed: counts.failed, passed: counts.passed };
  }
  return best;
}

/** Whether a failing test ran any line of the file (the spectrum speaks for it). */
export function failingTestsRan(spectrum: Spectrum, file: string): boolean {
  const perFile = spectrum.lines.get(file);
  if (!perFile) return false;
  for (const c of perFile.values()) if (c.failed > 0) return true;
  return false;
}
