import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
// type only: the CLI must not load server modules at run time
import type { IngestMetadataSchema } from '../lib/ingest/schema';
import { readGitFacts } from './git';
import { CliError, UsageError, type CliIo } from './io';

// `flowfix report`: what a CI step does after the tests failed — read the
// revision, branch, author and diff base from the checkout and upload the
// JUnit reports and the log to POST /api/v1/failures as multipart.

export const REPORT_USAGE = `Usage: flowfix report --junit FILE [--junit FILE...] --repository NAME --change ID [options]

Reports the failing tests of the current git checkout to flowfix, as a CI step would.
The head revision, branch, author and diff base are read from git.

Required:
  --junit FILE          a JUnit XML report (repeat for several)
  --repository NAME     the repository's name in flowfix
  --change ID           the change's id in your CI or review tool (e.g. the pull request number)

Options:
  --log FILE            the CI log to attach (truncated by the server, head and tail kept)
  --title TEXT          change title (default: the HEAD commit's subject)
  --description TEXT    change description (default: the HEAD commit's body)
  --url URL             link to the change in your review tool
  --ci-url URL          link to the CI build
  --base REV            diff base (default: merge-base with origin/<default branch>)
  --default-branch NAME default branch (default: origin/HEAD, else main or master)
  --branch NAME         branch name (default: the checked-out branch; needed on a detached HEAD)
  --repo PATH           the git checkout (default: the current directory)
  --server URL          flowfix server (default: $FLOWFIX_SERVER or http://localhost:3000)
  --token TOKEN         CI token (default: $FLOWFIX_TOKEN)
  --json                print the server's answer as JSON
  -h, --help            show this help
`;

const OPTIONS = {
  junit: { type: 'string', multiple: true },
  log: { type: 'string' },
  repository: { type: 'string' },
  change: { type: 'string' },
  title: { type: 'string' },
  description: { type: 'string' },
  url: { type: 'string' },
  'ci-url': { type: 'string' },
  base: { type: 'string' },
  'default-branch': { type: 'string' },
  branch: { type: 'string' },
  repo: { type: 'string' },
  server: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Metadata = z.input<typeof IngestMetadataSchema>;

interface IngestAnswer {
  changeId: string;
  revisionId: string;
  revisionNumber: number;
  failures: number;
  created: boolean;
  superseded?: boolean;
  droppedFailures?: number;
  /** the failing tests this report named (the first ones), with their messages */
  failingTests?: Array<{ testId: string; message: string }>;
  failingTestsNotListed?: number;
}

// A CI log is read at a glance: the first tests, each message on one line.
const LISTED_TESTS = 20;
const MESSAGE_CHARS = 200;

/** A message on one line: whitespace runs (line breaks included) as one space, cut with an ellipsis. */
export function oneLineMessage(message: string, max = MESSAGE_CHARS): string {
  const line = message.replace(/\s+/g, ' ').trim();
  if (!line) return '(no message)';
  if (line.length <= max) return line;
  // never end on half a surrogate pair
  const cut = /[\uD800-\uDBFF]/.test(line.charAt(max - 2)) ? max - 2 : max - 1;
  return `${line.slice(0, cut).trimEnd()}…`;
}

function failingTestsText(answer: IngestAnswer): string {
  const tests = answer.failingTests ?? [];
  const listed = tests.slice(0, LISTED_TESTS);
  const more = tests.length - listed.length + (answer.failingTestsNotListed ?? 0);
  const lines = listed.map((t) => `  ${t.testId}\n      ${oneLineMessage(t.message)}\n`);
  if (more > 0) lines.push(`  … and ${more} more failing test${more === 1 ? '' : 's'}\n`);
  return lines.join('');
}

interface ErrorAnswer {
  error?: { code?: string; message?: string; details?: unknown };
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function readInput(file: string, flag: string, cwd: string): Promise<{ name: string; bytes: Uint8Array<ArrayBuffer> }> {
  try {
    const buf = await readFile(path.resolve(cwd, file));
    return { name: path.basename(file), bytes: new Uint8Array(buf) };
  } catch (err) {
    throw new CliError(`cannot read ${flag} ${file}: ${(err as Error).message}`);
  }
}

function describeRefusal(status: number, body: ErrorAnswer | undefined, raw: string): string {
  const message = body?.error?.message ?? (raw.trim().slice(0, 500) || 'no message');
  const details = body?.error?.details;
  const lines = Array.isArray(details)
    ? details
        .filter((d): d is { path: string; message: string } => typeof d === 'object' && d !== null && 'message' in d)
        .map((d) => `\n  ${d.path || '(body)'}: ${d.message}`)
    : [];
  return `the server refused the report (HTTP ${status}): ${message}${lines.join('')}`;
}

function summary(answer: IngestAnswer, changeId: string): string {
  const what = !answer.created
    ? 'already reported; nothing new stored'
    : answer.superseded
      ? 'stored, but it is older than the change’s current revision'
      : 'new revision';
  const dropped = answer.droppedFailures ? ` (${answer.droppedFailures} more not stored: per-revision cap)` : '';
  return `Reported change ${changeId}, revision ${answer.revisionNumber}: ${what}; ${answer.failures} failing test(s)${dropped}.\n`;
}

export async function reportCommand(argv: string[], io: CliIo): Promise<number> {
  const opts = parse(argv);
  if (opts.help) {
    io.stdout(REPORT_USAGE);
    return 0;
  }
  if (!opts.junit?.length) throw new UsageError('--junit FILE is required');
  if (!opts.repository) throw new UsageError('--repository NAME is required');
  if (!opts.change) throw new UsageError('--change ID is required');
  const token = opts.token ?? io.env.FLOWFIX_TOKEN;
  if (!token) throw new UsageError('a CI token is required: --token TOKEN or $FLOWFIX_TOKEN');
  const server = (opts.server ?? io.env.FLOWFIX_SERVER ?? 'http://localhost:3000').replace(/\/+$/, '');

  const repoDir = path.resolve(io.cwd, opts.repo ?? '.');
  const facts = await readGitFacts({ cwd: repoDir, base: opts.base, branch: opts.branch, defaultBranch: opts['default-branch'] });
  const junit = await Promise.all(opts.junit.map((f) => readInput(f, '--junit', io.cwd)));
  const log = opts.log ? await readInput(opts.log, '--log', io.cwd) : undefined;

  const metadata: Metadata = {
    repository: opts.repository,
    change: {
      externalId: opts.change,
      title: opts.title ?? (facts.subject || `Change ${opts.change}`),
      description: opts.description ?? facts.body,
      author: facts.author,
      authorEmail: facts.authorEmail || undefined,
      branch: facts.branch,
      url: opts.url,
    },
    baseRev: facts.baseRev,
    headRev: facts.headRev,
    headCommittedAt: facts.committedAt || undefined,
    diffStat: facts.diffStat,
    ciUrl: opts['ci-url'],
    origin: 'cli',
  };

  const form = new FormData();
  form.set('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }), 'metadata.json');
  for (const file of junit) form.append('junit', new Blob([file.bytes], { type: 'application/xml' }), file.name);
  if (log) form.set('log', new Blob([log.bytes], { type: 'text/plain' }), log.name);

  const endpoint = `${server}/api/v1/failures`;
  let res: Response;
  try {
    res = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw new CliError(`cannot reach the flowfix server at ${server}: ${cause}`);
  }
  const raw = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  if (!res.ok) throw new CliError(describeRefusal(res.status, body as ErrorAnswer | undefined, raw));
  if (opts.json) {
    io.stdout(`${JSON.stringify(body, null, 2)}\n`);
  } else {
    io.stdout(`head ${facts.headRev.slice(0, 12)} on ${facts.branch} by ${facts.author}; base ${facts.baseRev.slice(0, 12)} (${facts.baseFrom})\n`);
    io.stdout(summary(body as IngestAnswer, opts.change));
    io.stdout(failingTestsText(body as IngestAnswer));
  }
  return 0;
}
