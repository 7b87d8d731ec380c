import type { Diagnostic } from '../types';

// Tool output read back as structured diagnostics, so a policy is told which
// file and line to look at rather than handed a log: a failed build's output
// (tsc, Python, gcc-style) and git apply's refusal of a diff.

/** Turns a failed build's output into diagnostics (tsc, python, gcc-style), else one summary. */
export function parseBuildDiagnostics(output: string): Diagnostic[] {
  const diags: Diagnostic[] = [];
  for (const line of output.split('\n')) {
    let m = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line) ?? /^(.+?):(\d+):(\d+) - error (TS\d+): (.*)$/.exec(line);
    if (m) {
      diags.push({ kind: 'build', file: m[1].trim(), line: Number(m[2]), message: `${m[4]}: ${m[5]}` });
      continue;
    }
    m = /^\s*File "(.+?)", line (\d+)/.exec(line);
    if (m) {
      diags.push({ kind: 'build', file: m[1], line: Number(m[2]), message: line.trim() });
      continue;
    }
    m = /^([\w./-]+\.\w+):(\d+):(?:\d+:)? (?:fatal )?error:? (.*)$/.exec(line);
    if (m) diags.push({ kind: 'build', file: m[1], line: Number(m[2]), message: m[3] });
    if (diags.length >= 50) break;
  }
  if (diags.length) return diags;
  const tail = output.trim().split('\n').slice(-20).join('\n');
  return [{ kind: 'build', message: tail || 'build failed with no output' }];
}

/** Turns `git apply --check`'s stderr into diagnostics: the hunk that does not match, or a malformed patch. */
export function parseApplyDiagnostics(stderr: string): Diagnostic[] {
  const diags: Diagnostic[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^error: patch failed: (.+?):(\d+)$/.exec(line);
    if (m) diags.push({ kind: 'apply', file: m[1], line: Number(m[2]), message: 'the hunk does not match the file (context or removed lines differ)' });
    else if (/^error: /.test(line) && !/patch does not apply/.test(line)) {
      const file = /^error: (?:[\w ]+: )?([^:]+):/.exec(line)?.[1];
      diags.push({
        kind: /corrupt|No valid patches|unrecognized/.test(line) ? 'malformed' : 'apply',
        ...(file ? { file } : {}),
        message: line.replace(/^error: /, ''),
      });
    }
  }
  return diags.length ? diags : [{ kind: 'apply', message: stderr.trim() || 'git apply refused the diff' }];
}
