// The settings the demo writes into each repository's .flowfix.json and into
// Repository.settings. Field names follow lib/repositories/settings.ts
// (RepositorySettingsSchema); the seed validates against that schema.

export interface DemoRepoSettings {
  installCommand: string | null;
  buildCommand: string | null;
  /** runs the whole suite and writes the JUnit report */
  testCommand: string;
  /** runs only the named tests; {tests} is replaced by the runner */
  targetTestCommand: string;
  regressionCommand: string;
  junitPath: string;
  timeoutSeconds: number;
}

export function flowfixJson(settings: DemoRepoSettings): string {
  return JSON.stringify(settings, null, 2) + '\n';
}
