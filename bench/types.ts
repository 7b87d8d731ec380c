// The contract between bench/index.ts and each benchmark module.

export interface BenchOptions {
  /** PostgreSQL server (maintenance database) where scratch databases are created */
  serverUrl: string;
  /** timed samples per measurement */
  samples: number;
  /** untimed warm-up runs per measurement */
  warmup: number;
  /** size knob; each bench documents what it scales (triage: number of changes) */
  scale?: number;
  /** leave scratch databases in place for inspection (EXPLAIN) instead of dropping them */
  keep: boolean;
  log: (line: string) => void;
  /**
   * Registers work that must run even if the run is interrupted (Ctrl-C):
   * dropping a scratch database. Returns a function that unregisters it.
   */
  onInterrupt: (cleanup: () => Promise<void>) => () => void;
}

export interface BenchFigure {
  name: string;
  p50: number;
  p95: number;
  max: number;
  samples: number;
  /** target for p95 in ms, if the issue sets one */
  targetP95?: number;
}

export interface BenchResult {
  bench: string;
  /** one line about the data set and the machine */
  setup: string;
  figures: BenchFigure[];
  notes: string[];
}

export interface BenchModule {
  name: string;
  description: string;
  run(options: BenchOptions): Promise<BenchResult>;
}
