import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
// types only: the CLI must not load server modules at run time
import { inertDiff } from '../common/text';
import type { FixForReview } from '../lib/fixes/patch';
import { userGit } from './git';
import { CliError, UsageError, type CliIo } from './io';

// `flowfix fix show|apply ID`: a reviewer's terminal surface for a fix, the
// counterpart of FlowAgent's IDE apply. Both record the decision on the
// server, which records surface CLI because a personal token made the call
// (show → PREVIEW, apply → ACCEPT), so apply rates can be compared per
// surface. Authenticated with a personal token (ffp_…, made on the Tokens
// page, /settings/tokens), which acts as the reviewer.

export const FIX_USAGE = `Usage: flowfix fix show <fix-id> [options]
       flowfix fix apply <fix-id> [options]

  show    print the fix: root cause, validation evidence and the diff
          (recorded as a preview of yours, surface cli)
  apply   apply the fix to the git checkout you are in with "git apply --3way"
          (changes are left staged for you to review and commit), then record
          your accept (surface cli). Nothing is applied if the fix is no longer
          open (already accepted, rejected or stale).

Options:
  --repo PATH      the git checkout to apply to (default: the current directory)
  --server URL     flowfix server (default: $FLOWFIX_SERVER or http://localhost:3000)
  --token TOKEN    your personal token, ffp_… (default: $FLOWFIX_TOKEN)
  --json           show: print the fix as JSON
  -h, --help       show this help
`;

const OPTIONS = {
  repo: { type: 'string' },
  server: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface ErrorAnswer {
  error?: { code?: string; message?: string };
}

interface Connection {
  server: string;
  token: string;
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function connection(opts: { server?: string; token?: string }, io: CliIo): Connection {
  const token = opts.token ?? io.env.FLOWFIX_TOKEN;
  if (!token) throw new UsageError('a personal token is required: --token ffp_… or $FLOWFIX_TOKEN (create one on the Tokens page, /settings/tokens)');
  if (!token.startsWith('ffp_')) {
    throw new UsageError('flowfix fix needs a personal token (ffp_…), not a CI token: it acts as you');
  }
  return { server: (opts.server ?? io.env.FLOWFIX_SERVER ?? 'http://localhost:3000').replace(/\/+$/, ''), token };
}

async function call(conn: Connection, method: string, route: string, body?: unknown): Promise<Response> {
  try {
    return await fetch(`${conn.server}${route}`, {
      method,
      headers: { authorization: `Bearer ${conn.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw new CliError(`cannot reach the flowfix server at ${conn.server}: ${cause}`);
  }
}

async function refusal(res: Response, what: string): Promise<CliError> {
  const raw = await res.text();
  let message = raw.trim().slice(0, 500) || 'no message';
  try {
    message = (JSON.parse(raw) as ErrorAnswer).error?.message ?? message;
  } catch {
    // not JSON: keep the text
  }
  return new CliError(`the server refused ${what} (HTTP ${res.status}): ${message}`);
}

function fixPath(id: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new UsageError(`"${id}" is not a fix id`);
  return `/api/fixes/${id}`;
}

function indent(text: string, pad = '  '): string {
  return text
    .split('\n')
    .map((l) => (l ? pad + l : l))
    .join('\n');
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

/** The fix as a reviewer reads it in a terminal: root cause first, then evidence, then the diff. */
export function formatFix(fix: FixForReview): string {
  const lines: string[] = [];
  lines.push(`Fix ${fix.id} — ${fix.status.toLowerCase()}`);
  lines.push(`Change ${fix.change.externalId}: ${fix.change.title}`);
  lines.push(`Repository ${fix.change.repository}, branch ${fix.change.branch} at ${fix.change.headRev.slice(0, 12)}; run ${fix.runId}`);
  if (fix.appliedCommit) lines.push(`Applied as ${fix.appliedCommit.slice(0, 12)}`);
  lines.push('', 'Root cause', indent(fix.summary || '(no summary)'));
  if (fix.evidence.gates.length > 0) {
    lines.push('', 'Validation');
    for (const g of fix.evidence.gates) {
      const tests = g.testCount !== null ? `, ${g.testCount} test(s)` : '';
      lines.push(
        `  ${g.gate.toUpperCase().padEnd(11)} ${g.unproven ? 'passed (proves nothing)' : g.passed ? 'passed' : 'FAILED'}  ${seconds(g.durationMs)}${tests}`,
      );
    }
  }
  const proof = fix.evidence.proof;
  if (proof) lines.push('', `Proof: ${proof.status === 'proven' ? proof.label : proof.label.toUpperCase()}`, indent(proof.detail));
  if (fix.evidence.targets.length > 0) lines.push('', 'Target tests', ...fix.evidence.targets.map((t) => `  ${t}`));
  lines.push('', `Files (${fix.files.length})`, ...fix.files.map((f) => `  ${f}`), '');
  if (fix.status === 'READY' || fix.status === 'APPLIED') lines.push(fix.diff.trimEnd(), '');
  else lines.push(`Not on offer (${fix.status.toLowerCase()}); its changes, indented so that no tool applies it:`, inertDiff(fix.diff), '');
  return lines.join('\n');
}

async function show(id: string, conn: Connection, json: boolean, io: CliIo): Promise<number> {
  const res = await call(conn, 'POST', `${fixPath(id)}/preview`, {});
  if (!res.ok) throw await refusal(res, 'to show the fix');
  const body = (await res.json()) as { fix: FixForReview };
  io.stdout(json ? `${JSON.stringify(body.fix, null, 2)}\n` : formatFix(body.fix));
  return 0;
}

async function apply(id: string, conn: Connection, repo: string, io: CliIo): Promise<number> {
  const top = await userGit(repo, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw new CliError(`not a git checkout: ${repo}`);
  const root = top.stdout.trim();

  const res = await call(conn, 'GET', `${fixPath(id)}/patch`);
  if (!res.ok) throw await refusal(res, 'the patch');
  const status = res.headers.get('x-flowfix-fix-status');
  const patch = await res.text();
  // refuse before touching the checkout: the server would refuse the accept anyway
  if (status && status !== 'READY') {
    throw new CliError(`the fix is ${status.toLowerCase()}, no longer open for a decision; nothing was applied (see "flowfix fix show ${id}")`);
  }

  const dir = await mkdtemp(path.join(os.tmpdir(), 'flowfix-fix-'));
  try {
    const file = path.join(dir, `${id}.patch`);
    await writeFile(file, patch);
    const applied = await userGit(root, ['apply', '--3way', '--whitespace=nowarn', file]);
    if (!applied.ok) {
      throw new CliError(
        `git apply --3way could not apply the fix cleanly:\n${indent(applied.stderr.trim())}\nResolve any conflicts (or "git checkout -- ." to undo); your accept was not recorded.`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const accepted = await call(conn, 'POST', `${fixPath(id)}/accept`, { mode: 'local' });
  if (!accepted.ok) {
    const err = await refusal(accepted, 'to record your accept');
    throw new CliError(`${err.message}\nThe fix is applied in ${root} (staged); undo with "git checkout -- ." if you do not want it.`);
  }
  const files = await userGit(root, ['diff', '--cached', '--name-only']);
  io.stdout(`Applied fix ${id} in ${root} (staged, not committed):\n${indent(files.stdout.trim())}\nRecorded your accept (surface cli).\n`);
  return 0;
}

export async function fixCommand(argv: string[], io: CliIo): Promise<number> {
  const { values: opts, positionals } = parse(argv);
  if (opts.help) {
    io.stdout(FIX_USAGE);
    return 0;
  }
  const [sub, id, ...extra] = positionals;
  if (sub !== 'show' && sub !== 'apply') throw new UsageError(sub ? `unknown fix command "${sub}"` : 'say "show" or "apply"');
  if (!id) throw new UsageError(`flowfix fix ${sub} needs a fix id`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const conn = connection(opts, io);
  if (sub === 'show') return show(id, conn, Boolean(opts.json), io);
  return apply(id, conn, path.resolve(io.cwd, opts.repo ?? '.'), io);
}
