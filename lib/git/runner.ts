import { readInheritedEnv } from '../env';
import { describeGit, GitError, runGitProcess, type GitLauncher, type GitResult } from './process';

export { GitError, type GitCommand, type GitLauncher, type GitResult } from './process';

// Every git process flowfix starts goes through this module. git is trusted;
// the repositories it runs in are not: a registered repository on the
// server's disk, or a run's clone after the repository's own commands had
// their turn, can carry a .git/config (or a config it includes) that names
// programs — an fsmonitor, a hooks folder, a credential helper, an ssh
// command, a pager, an external diff, clean/smudge filters and merge drivers
// for the attributes its .gitattributes assigns. Plain git runs them all.
//
// A profile says how git runs for one kind of caller:
//   read       reading repository content on the server (a file at a
//              revision, settings at the base revision, diffs, logs)
//   workspace  a repository flowfix made itself (a run's clone, the demo's
//              repositories, a scratch repository): reset, apply, diff, commit;
//              its clone and fetch take the credentials the caller hands over
//              (a code host's token for a private repository), nothing else does
//   push       writing an accepted fix to the change's repository, with the
//              credentials the caller hands over and no others
// (The CLI's git in the user's own checkout is theirs, with their config:
// runUserGit in ./process.)
//
// Every profile reads no system or user configuration (HOME is
// /nonexistent, GIT_CONFIG_GLOBAL is /dev/null), never prompts, and overrides
// every program-naming key a repository's config can set (HARDENED_CONFIG,
// plus the filter and merge drivers found by driverOverrides). The
// environment is built from nothing: nothing the server process holds leaks
// into git or the ssh it starts. Timeouts and the output cap are per profile.

export type GitProfileName = 'read' | 'workspace' | 'push';

/** Credentials for the push profile and a workspace's clone and fetch; nothing else supplies any. */
export interface GitCredentials {
  /** the ssh program line for ssh remotes (default `ssh`, whatever the repository's config says) */
  sshCommand?: string;
  /** an ssh agent socket */
  sshAuthSock?: string;
  /** for http(s) remotes: given to git by flowfix's own credential helper, from the environment, never in argv */
  username?: string;
  password?: string;
}

export interface GitRunOptions {
  input?: string | Buffer;
  /** author, committer, their dates and GIT_INDEX_FILE; nothing else is accepted */
  env?: Record<string, string>;
  /** exit codes that are answers rather than failures */
  okCodes?: number[];
  timeoutMs?: number;
  /** stdout beyond this is a failure (the process is killed) */
  maxOutputBytes?: number;
  /** harmless per-call settings (core.quotepath=false); the profile's overrides come after and win */
  config?: Record<string, string>;
  /** for the push profile, and the workspace profile's clone and fetch (a profile's credentialCommands) */
  credentials?: GitCredentials;
}

const MB = 1024 * 1024;

interface GitProfile {
  timeoutMs: number;
  maxOutputBytes: number;
  env: (credentials: GitCredentials | undefined) => Record<string, string>;
  /** the commands that may be given credentials: the ones that reach the remote, so a token is in no other git's environment */
  credentialCommands?: 'all' | ReadonlySet<string>;
}

/**
 * Settings that neutralise what a repository's config can make git run.
 * Command-line settings are read last, so these win over the repository's.
 * Not here, and why:
 * - core.sshCommand, core.gitProxy, core.askPass, core.editor,
 *   sequence.editor, core.pager: the environment (GIT_SSH_COMMAND,
 *   GIT_PROXY_COMMAND, GIT_ASKPASS, GIT_EDITOR, GIT_SEQUENCE_EDITOR,
 *   GIT_PAGER) takes precedence over each, and an empty core.gitProxy does
 *   not switch the proxy off;
 * - diff.external and diff.<driver>.command/textconv: an empty value is an
 *   error for git, so diff-family commands get --no-ext-diff --no-textconv;
 * - uploadpack.packObjectsHook: git honours it only in the system, global
 *   and command-line config, none of which a repository writes;
 * - filter.<driver>.* and merge.<driver>.driver: the drivers have names, so
 *   they are found in the repository's config per call (driverOverrides).
 */
const HARDENED_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  // an empty helper resets the list: every helper configured before it, URL-specific ones too
  ['credential.helper', ''],
  ['core.askPass', ''],
  ['core.pager', 'cat'],
  ['core.alternateRefsCommand', ''],
  ['protocol.ext.allow', 'never'],
  ['submodule.recurse', 'false'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['push.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['core.autocrlf', 'false'],
  // a run's workspace belongs to its sandbox user (lib/sandbox/identity.ts):
  // git's ownership check would refuse it as "dubious". What that check
  // guards against, a foreign repository's config running programs, the
  // settings above already neutralise.
  ['safe.directory', '*'],
];

/** The same neutralising for a receive-pack git starts itself: git does not pass -c settings to a local transport's process. */
const RECEIVE_PACK_CONFIG = ['core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.alternateRefsCommand=', 'gc.auto=0'];

function baseEnv(): Record<string, string> {
  return {
    PATH: readInheritedEnv(['PATH']).PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: '/nonexistent',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    // set and empty: git then neither consults core.askPass nor runs one
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    SSH_ASKPASS_REQUIRE: 'never',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
    GIT_SSH_VARIANT: 'ssh',
    GIT_PROXY_COMMAND: '',
    // ":" is the editor git never starts
    GIT_EDITOR: ':',
    GIT_SEQUENCE_EDITOR: ':',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
  };
}

/** The environment that carries the caller's credentials to git's ssh and to CREDENTIAL_HELPER. */
function credentialEnv(credentials: GitCredentials | undefined): Record<string, string> {
  return {
    GIT_SSH_COMMAND: credentials?.sshCommand ?? 'ssh -o BatchMode=yes',
    ...(credentials?.sshAuthSock ? { SSH_AUTH_SOCK: credentials.sshAuthSock } : {}),
    ...(credentials?.username !== undefined ? { FLOWFIX_GIT_USERNAME: credentials.username } : {}),
    ...(credentials?.password !== undefined ? { FLOWFIX_GIT_PASSWORD: credentials.password } : {}),
  };
}

const PROFILES: Record<GitProfileName, GitProfile> = {
  read: {
    timeoutMs: 60_000,
    maxOutputBytes: 64 * MB,
    // a read must not take the index lock a concurrent writer needs
    env: () => ({ ...baseEnv(), GIT_OPTIONAL_LOCKS: '0' }),
  },
  workspace: {
    timeoutMs: 120_000,
    maxOutputBytes: 64 * MB,
    env: (credentials) => ({
      ...baseEnv(),
      GIT_AUTHOR_NAME: 'flowfix',
      GIT_AUTHOR_EMAIL: 'flowfix@localhost',
      GIT_COMMITTER_NAME: 'flowfix',
      GIT_COMMITTER_EMAIL: 'flowfix@localhost',
      ...(credentials ? credentialEnv(credentials) : {}),
    }),
    // a run's clone of a private repository, and the fetch of a head only the host's pull request ref holds
    credentialCommands: new Set(['clone', 'fetch']),
  },
  push: {
    timeoutMs: 600_000,
    maxOutputBytes: 64 * MB,
    env: (credentials) => ({ ...baseEnv(), ...credentialEnv(credentials) }),
    credentialCommands: 'all',
  },
};

// flowfix's own helper, after the reset: it answers `get` from the two variables credentialEnv sets
const CREDENTIAL_HELPER = '!f() { test "$1" = get || exit 0; printf "username=%s\\npassword=%s\\n" "$FLOWFIX_GIT_USERNAME" "$FLOWFIX_GIT_PASSWORD"; }; f';

const EXTRA_ENV = /^(GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|GIT_INDEX_FILE)$/;

/** Commands that print diffs: never through an external diff or a textconv program. */
const DIFF_COMMANDS = new Set(['diff', 'show', 'log', 'whatchanged']);

/**
 * Commands that touch neither the index nor the work tree, so can never run
 * a filter or merge driver (anything reading the index may re-hash a racily
 * clean file through its clean filter, as write-tree does), so
 * need no scan of the repository's drivers. Anything not listed is scanned.
 */
const NO_CONTENT_CONVERSION = new Set([
  'cat-file',
  'clone', // the new repository's config is the one clone writes
  'commit-tree',
  'config',
  'credential',
  'fetch',
  'for-each-ref',
  'init',
  'log',
  'ls-remote',
  'merge-base',
  'push',
  'rev-list',
  'rev-parse',
  'show',
  'show-ref',
  'symbolic-ref',
  'update-ref',
  'version',
]);

/**
 * True for a URL or path git reaches through a local process (a path or
 * file://), whose receive-pack runs here, with the target repository's hooks.
 */
export function isLocalTransport(url: string): boolean {
  if (/^file:\/\//i.test(url)) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return false;
  return !/^[^/\\:]{2,}:/.test(url);
}

/**
 * `--receive-pack=…` for a push to a local transport, so the target
 * repository's hooks and programs do not run; nothing for a remote host,
 * whose git server expects the plain command (and whose hooks run there).
 */
export function receivePackOption(url: string): string[] {
  if (!isLocalTransport(url)) return [];
  return [`--receive-pack=git ${RECEIVE_PACK_CONFIG.map((c) => `-c ${c}`).join(' ')} receive-pack`];
}

function pairsToArgs(pairs: Iterable<readonly [string, string]>): string[] {
  const args: string[] = [];
  for (const [key, value] of pairs) args.push('-c', `${key}=${value}`);
  return args;
}

/** The sections and subsections in `git config -z --list` output (section.sub.section.key, the subsection as written). */
function parseConfigKeys(bytes: Buffer): Array<{ section: string; subsection: string }> {
  const keys = [];
  for (const entry of bytes.toString('utf8').split('\0')) {
    const key = entry.split('\n', 1)[0];
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    if (first <= 0 || last === first) continue;
    keys.push({ section: key.slice(0, first).toLowerCase(), subsection: key.slice(first + 1, last) });
  }
  return keys;
}

/**
 * Overrides for every filter and merge driver the repository's config (and
 * what it includes) defines. An empty clean/smudge/process is "no filter" to
 * git; an empty merge driver makes a merge through it fail instead of running
 * anything. Given in the environment (GIT_CONFIG_COUNT), where a driver name
 * may hold any character, "=" included.
 */
function driverOverrides(configList: Buffer): Record<string, string> {
  const pairs: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const { section, subsection } of parseConfigKeys(configList)) {
    if (section !== 'filter' && section !== 'merge') continue;
    const id = `${section}\0${subsection}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (section === 'filter') {
      for (const name of ['clean', 'smudge', 'process']) pairs.push([`filter.${subsection}.${name}`, '']);
      pairs.push([`filter.${subsection}.required`, 'false']);
    } else {
      pairs.push([`merge.${subsection}.driver`, '']);
    }
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return pairs.length ? env : {};
}

export interface GitRunner {
  /** Runs git; throws GitError unless it exits 0 or with one of `okCodes`. */
  run(profile: GitProfileName, cwd: string, args: string[], opts?: GitRunOptions): Promise<GitResult>;
  /** stdout of a git command, trimmed. */
  out(profile: GitProfileName, cwd: string, args: string[], opts?: GitRunOptions): Promise<string>;
}

/**
 * A runner. `launchers` may wrap a profile's git (a sandbox); without one a
 * profile's git runs directly.
 */
export function createGitRunner({ launchers = {} }: { launchers?: Partial<Record<GitProfileName, GitLauncher>> } = {}): GitRunner {
  async function run(name: GitProfileName, cwd: string, args: string[], opts: GitRunOptions = {}): Promise<GitResult> {
    const profile = PROFILES[name];
    const [sub] = args;
    if (!sub || sub.startsWith('-')) throw new Error(`git arguments start with the command, not "${sub ?? ''}"`);
    for (const key of Object.keys(opts.env ?? {})) {
      if (!EXTRA_ENV.test(key)) throw new Error(`${key} cannot be passed to git`);
    }
    if (opts.credentials && profile.credentialCommands !== 'all' && !profile.credentialCommands?.has(sub)) {
      throw new Error(`git ${sub} in the ${name} profile takes no credentials`);
    }
    const shown = describeGit(args);
    const limits = {
      timeoutMs: opts.timeoutMs ?? profile.timeoutMs,
      maxOutputBytes: opts.maxOutputBytes ?? profile.maxOutputBytes,
      launcher: launchers[name],
    };

    let env = { ...profile.env(opts.credentials), ...opts.env };
    const global = ['--no-pager', ...pairsToArgs(Object.entries(opts.config ?? {})), ...pairsToArgs(HARDENED_CONFIG)];
    if (opts.credentials?.username !== undefined || opts.credentials?.password !== undefined) {
      global.push('-c', `credential.helper=${CREDENTIAL_HELPER}`);
    }
    if (!NO_CONTENT_CONVERSION.has(sub)) {
      // read like the command runs, with the same overrides (git config itself runs nothing)
      const scan = await runGitProcess(
        { argv: ['git', ...global, 'config', '-z', '--list', '--includes'], cwd, env },
        `${shown} (reading the repository's config)`,
        limits,
      );
      env = { ...env, ...driverOverrides(scan.stdoutBytes) };
    }
    const rest = DIFF_COMMANDS.has(sub) ? ['--no-ext-diff', '--no-textconv', ...args.slice(1)] : args.slice(1);
    return runGitProcess({ argv: ['git', ...global, sub, ...rest], cwd, env }, shown, { ...limits, input: opts.input, okCodes: opts.okCodes });
  }

  return {
    run,
    out: async (name, cwd, args, opts) => (await run(name, cwd, args, opts)).stdout.trim(),
  };
}

const defaultRunner = createGitRunner();

/** Runs git with a profile; throws GitError unless it exits 0 or with one of `okCodes`. */
export const runGit = defaultRunner.run;
/** stdout of a git command, trimmed. */
export const gitOut = defaultRunner.out;

/**
 * True when a git server over HTTP(S) refused the credentials it was given
 * (401, which git reports as "Authentication failed") or the access (403):
 * git's own wording, the only account of the status it gives.
 */
export function isCredentialRefusal(err: unknown): boolean {
  return err instanceof GitError && /Authentication failed for|The requested URL returned error: 40[13]\b/.test(err.stderr);
}

/**
 * True when a git server said the repository is not there ("repository …
 * not found", HTTP 404). GitHub and GitLab answer so, rather than 401/403,
 * a token that may not see a private repository.
 */
export function isRepositoryNotFound(err: unknown): boolean {
  return err instanceof GitError && /fatal: repository '[^']*' not found|The requested URL returned error: 404\b/.test(err.stderr);
}

/**
 * The push credentials the server process was started with: its ssh agent
 * and ssh command. Read from the server's environment, handed over
 * explicitly; the user's git config and credential helpers are not used.
 */
export function serverGitCredentials(): GitCredentials {
  const inherited = readInheritedEnv(['SSH_AUTH_SOCK', 'GIT_SSH_COMMAND']);
  return {
    ...(inherited.GIT_SSH_COMMAND ? { sshCommand: inherited.GIT_SSH_COMMAND } : {}),
    ...(inherited.SSH_AUTH_SOCK ? { sshAuthSock: inherited.SSH_AUTH_SOCK } : {}),
  };
}
