// What a CLI command may touch of the outside world, passed in so tests can
// run commands in-process with their own cwd and environment.

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  /** FLOWFIX_SERVER and FLOWFIX_TOKEN only (see defaultIo) */
  env: { FLOWFIX_SERVER?: string; FLOWFIX_TOKEN?: string };
}

/** A mistake in how the command was called: printed with a hint, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure the user should read (server refusal, git problem): printed as is, exit code 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export function defaultIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    // The CLI runs on developer machines and CI runners that do not have the
    // server's environment, so it must not load lib/env.ts (which validates
    // the server's variables). It reads exactly these two, both optional.
    env: { FLOWFIX_SERVER: process.env.FLOWFIX_SERVER, FLOWFIX_TOKEN: process.env.FLOWFIX_TOKEN },
  };
}
