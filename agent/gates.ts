import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import ts from 'typescript';
import type { RepositorySettings } from '../lib/repositories/settings';
import { git } from './git';
import { checkPythonSyntax } from './python/client';
import { allPassed, didNotRun, failedResults, runTests, runWorkspaceCommand } from './test-runner';
import type {
  CommandResult,
  Diagnostic,
  Edit,
  EventSink,
  GateName,
  GateVerdict,
  PolicyGates,
  TestRun,
} from './types';
import { BinaryFileError, WorkspacePathError, type Workspace } from './workspace';
import { gateEvent } from '../common/run-events';
import { countTests } from '../common/test-results';

// EviACT's compile gate and test-driven gate. Every edit a policy makes goes
// through applyEdit: it must be well formed, apply cleanly, parse, and build;
// anything less is rolled back and answered with structured diagnostics, so a
// broken edit never reaches the tests. GREEN runs only the target tests; the
// regression suite and the final rerun belong to the pipeline (a policy can
// never claim them).

export const EditSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('replace'), file: z.string().min(1), oldText: z.string().min(1), newText: z.string() }),
  z.object({ kind: z.literal('diff'), diff: z.string().min(1) }),
  z.object({ kind: z.literal('create'), file: z.string().min(1), content: z.string() }),
  z.object({ kind: z.literal('delete'), file: z.string().min(1) }),
]);

/** Time spent in the repository's commands; the rest of a run is orchestration overhead. */
export interface CommandMeter {
  commandMs: number;
  builds: number;
  targetRuns: number;
  regressionRuns: number;
}

export function createMeter(): CommandMeter {
  return { commandMs: 0, builds: 0, targetRuns: 0, regressionRuns: 0 };
}

export interface GatesInput {
  workspace: Workspace;
  settings: RepositorySettings;
  targets: Array<{ id: string; name?: string; file?: string }>;
  sink: EventSink;
  signal?: AbortSignal;
  meter?: CommandMeter;
}

export interface Gates extends PolicyGates {
  /** the whole suite (after GREEN) */
  regression(): Promise<{ verdict: GateVerdict; run: TestRun }>;
  /** the pipeline's own rerun of the target tests on the final diff */
  final(): Promise<{ verdict: GateVerdict; run: TestRun }>;
  /** the target tests as a named gate; RED and base expect them to fail */
  runTargets(gate: GateName, expect: 'pass' | 'fail'): Promise<{ verdict: GateVerdict; run: TestRun }>;
  /** narrows the targets (after RED: only the ones that reproduced) */
  setTargets(targets: Array<{ id: string; name?: string; file?: string }>): void;
  readonly meter: CommandMeter;
}

const JS_TS = /\.(?:[cm]?[jt]sx?)$/;

function verdictTests(run: TestRun): GateVerdict['tests'] {
  return run.results.slice(0, 200).map((r) => ({ id: r.id, status: r.status, ...(r.message ? { message: r.message.slice(0, 500) } : {}) }));
}

/** Syntax diagnostics for TS/JS through the compiler's own parser (no type check: the build does that). */
export function syntaxCheckTypeScript(file: string, text: string): Diagnostic[] {
  const out = ts.transpileModule(text, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, jsx: ts.JsxEmit.Preserve, allowJs: true },
  });
  return (out.diagnostics ?? [])
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : undefined;
      return { kind: 'syntax' as const, file, ...(line ? { line } : {}), message: ts.flattenDiagnosticMessageText(d.messageText, '\n') };
    });
}

export function syntaxCheckJson(file: string, text: string): Diagnostic[] {
  try {
    JSON.parse(text);
    return [];
  } catch (err) {
    const message = (err as Error).message;
    const pos = /position (\d+)/.exec(message);
    const line = pos ? text.slice(0, Number(pos[1])).split('\n').length : undefined;
    return [{ kind: 'syntax', file, ...(line ? { line } : {}), message }];
  }
}

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

/** The paths a unified diff touches (both sides), and whether it carries binary content. */
export function diffPaths(diff: string): { paths: string[]; binary: boolean } {
  const paths = new Set<string>();
  let binary = false;
  const unquote = (p: string) => (p.startsWith('"') ? (JSON.parse(p) as string) : p);
  for (const line of diff.split('\n')) {
    let m = /^diff --git (\S+|"[^"]+") (\S+|"[^"]+")$/.exec(line);
    if (m) {
      paths.add(unquote(m[1]).replace(/^a\//, ''));
      paths.add(unquote(m[2]).replace(/^b\//, ''));
      continue;
    }
    m = /^(?:---|\+\+\+) (.+?)(?:\t.*)?$/.exec(line);
    if (m && m[1] !== '/dev/null') paths.add(unquote(m[1]).replace(/^[ab]\//, ''));
    m = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line);
    if (m) paths.add(unquote(m[1]));
    if (/^GIT binary patch$|^Binary files .* differ$/.test(line)) binary = true;
  }
  return { paths: [...paths], binary };
}

export function createGates(input: GatesInput): Gates {
  const { workspace, settings, sink } = input;
  const meter = input.meter ?? createMeter();
  let targets = input.targets;

  const emitVerdict = async (verdict: GateVerdict) => {
    await sink.emit(gateEvent(verdict));
    return verdict;
  };

  async function command(cmd: string, timeoutSeconds: number, network: boolean): Promise<CommandResult> {
    const result = await runWorkspaceCommand({ workspace, settings, signal: input.signal, command: cmd, timeoutSeconds, network });
    meter.commandMs += result.durationMs;
    return result;
  }

  async function build(): Promise<CommandResult> {
    if (!settings.build) {
      return { command: '', exitCode: 0, signal: null, timedOut: false, durationMs: 0, output: '', truncatedBytes: 0 };
    }
    meter.builds++;
    return command(settings.build, settings.timeLimits.buildSeconds, settings.network);
  }

  /** Tree of the workspace as it is now (new files included): the rollback point. */
  async function snapshot(): Promise<string> {
    const pristine = await workspace.pristineTree();
    if (pristine) return pristine;
    await git(workspace.root, ['add', '--all', '--', '.']);
    return (await git(workspace.root, ['write-tree'])).stdout.trim();
  }

  async function rollback(tree: string): Promise<void> {
    await git(workspace.root, ['read-tree', '--reset', '-u', tree]);
    await git(workspace.root, ['clean', '-fdq']);
  }

  /** Applies the edit to the files; returns the touched files or diagnostics. */
  async function applyToFiles(edit: Edit): Promise<{ files: string[] } | { diagnostics: Diagnostic[] }> {
    switch (edit.kind) {
      case 'replace': {
        if (await workspace.isBinary(edit.file)) throw new BinaryFileError(edit.file);
        if (!(await workspace.exists(edit.file))) return { diagnostics: [{ kind: 'apply', file: edit.file, message: 'file does not exist' }] };
        const text = await workspace.readFile(edit.file);
        const count = text.split(edit.oldText).length - 1;
        if (count !== 1) {
          const message =
            count === 0
              ? 'oldText was not found in the file (it must match exactly, whitespace included)'
              : `oldText occurs ${count} times; include more surrounding lines so it is unique`;
          return { diagnostics: [{ kind: 'apply', file: edit.file, message }] };
        }
        const at = text.indexOf(edit.oldText);
        await workspace.writeFile(edit.file, text.slice(0, at) + edit.newText + text.slice(at + edit.oldText.length));
        return { files: [edit.file] };
      }
      case 'create': {
        if (await workspace.exists(edit.file)) {
          return { diagnostics: [{ kind: 'apply', file: edit.file, message: 'file already exists; edit it with a replacement or a diff' }] };
        }
        await workspace.writeFile(edit.file, edit.content);
        return { files: [edit.file] };
      }
      case 'delete': {
        if (!(await workspace.exists(edit.file))) return { diagnostics: [{ kind: 'apply', file: edit.file, message: 'file does not exist' }] };
        await workspace.deleteFile(edit.file);
        return { files: [] };
      }
      case 'diff': {
        const { paths, binary } = diffPaths(edit.diff);
        if (binary) return { diagnostics: [{ kind: 'path', message: 'binary patches are not accepted' }] };
        if (paths.length === 0) return { diagnostics: [{ kind: 'malformed', message: 'no file headers (---/+++) in the diff' }] };
        for (const p of paths) {
          await workspace.resolve(p);
          if (await workspace.isBinary(p)) throw new BinaryFileError(p);
        }
        const patch = edit.diff.endsWith('\n') ? edit.diff : `${edit.diff}\n`;
        const options = ['--recount', '--whitespace=nowarn', '--unidiff-zero'];
        try {
          await git(workspace.root, ['apply', ...options, '--check', '-'], { input: patch });
        } catch (err) {
          const stderr = (err as { stderr?: string }).stderr ?? (err as Error).message;
          return { diagnostics: applyDiagnostics(stderr) };
        }
        await workspace.applyPatch(patch, options);
        return { files: paths.filter((p, i, all) => all.indexOf(p) === i) };
      }
    }
  }

  async function syntaxCheck(files: string[]): Promise<Diagnostic[]> {
    const diags: Diagnostic[] = [];
    const python: string[] = [];
    for (const file of files) {
      if (!(await workspace.exists(file))) continue;
      if (JS_TS.test(file)) diags.push(...syntaxCheckTypeScript(file, await workspace.readFile(file)));
      else if (file.endsWith('.json')) diags.push(...syntaxCheckJson(file, await workspace.readFile(file)));
      else if (file.endsWith('.py')) python.push(file);
    }
    if (python.length) {
      // Python's own compile() in the pooled helper: nothing is run, and the
      // repository's commands are not involved (a policy's last log stays theirs)
      try {
        const sources = await Promise.all(python.map(async (file) => ({ file, bytes: await readFile(await workspace.resolve(file)) })));
        for (const e of await checkPythonSyntax(sources, { signal: input.signal })) diags.push({ kind: 'syntax', ...e });
      } catch (err) {
        if (input.signal?.aborted) throw err;
        diags.push({ kind: 'syntax', message: `the Python syntax check could not run: ${(err as Error).message}` });
      }
    }
    return diags;
  }

  async function applyEdit(rawEdit: Edit): Promise<GateVerdict> {
    const started = performance.now();
    const done = (passed: boolean, diagnostics?: Diagnostic[], detail?: string) =>
      emitVerdict({
        gate: 'compile',
        passed,
        durationMs: Math.round(performance.now() - started),
        ...(detail ? { detail } : {}),
        ...(diagnostics?.length ? { diagnostics } : {}),
      });

    const parsed = EditSchema.safeParse(rawEdit);
    if (!parsed.success) {
      return done(false, parsed.error.issues.map((i) => ({ kind: 'malformed', message: `${i.path.join('.') || 'edit'}: ${i.message}` })));
    }
    const edit = parsed.data as Edit;
    const tree = await snapshot();
    let files: string[];
    try {
      const applied = await applyToFiles(edit);
      if ('diagnostics' in applied) {
        await rollback(tree);
        return done(false, applied.diagnostics, 'the edit does not apply');
      }
      files = applied.files;
    } catch (err) {
      await rollback(tree);
      if (err instanceof WorkspacePathError || err instanceof BinaryFileError) {
        return done(false, [{ kind: 'path', file: (err as WorkspacePathError).requested ?? (err as BinaryFileError).file, message: err.message }]);
      }
      throw err;
    }
    const syntax = await syntaxCheck(files);
    if (syntax.length) {
      await rollback(tree);
      return done(false, syntax, 'syntax errors');
    }
    const built = await build();
    if (built.exitCode !== 0) {
      await rollback(tree);
      const diagnostics = built.timedOut ? [{ kind: 'build' as const, message: 'the build timed out' }] : parseBuildDiagnostics(built.output);
      return done(false, diagnostics, 'the build failed');
    }
    return done(true, undefined, `applied to ${files.join(', ') || '(deletion)'}`);
  }

  async function runTargets(gate: GateName, expect: 'pass' | 'fail'): Promise<{ verdict: GateVerdict; run: TestRun }> {
    meter.targetRuns++;
    const run = await runTests({ workspace, settings, signal: input.signal, kind: 'target', targets });
    meter.commandMs += run.command.durationMs;
    const passedAll = allPassed(run);
    // RED passes when a target really fails; a target that is missing from the
    // report (the command crashed, the id is wrong) is not a reproduction
    const reproduced = failedResults(run).some((r) => !didNotRun(r));
    const passed = expect === 'pass' ? passedAll : reproduced;
    const failing = failedResults(run).length;
    const verdict: GateVerdict = {
      gate,
      passed,
      durationMs: run.command.durationMs,
      detail: run.reportError ?? `${run.results.length - failing} passed, ${failing} failing of ${run.results.length} target tests`,
      tests: verdictTests(run),
      counts: countTests(run.results),
    };
    await emitVerdict(verdict);
    return { verdict, run };
  }

  async function regression(): Promise<{ verdict: GateVerdict; run: TestRun }> {
    meter.regressionRuns++;
    const run = await runTests({ workspace, settings, signal: input.signal, kind: 'regression', targets: [] });
    meter.commandMs += run.command.durationMs;
    const failing = failedResults(run);
    const passed = !run.reportError && failing.length === 0 && run.results.length > 0;
    const verdict: GateVerdict = {
      gate: 'regression',
      passed,
      durationMs: run.command.durationMs,
      detail: run.reportError ?? `${run.results.length - failing.length} of ${run.results.length} tests pass`,
      tests: verdictTests({ ...run, results: failing }),
      counts: countTests(run.results),
    };
    await emitVerdict(verdict);
    return { verdict, run };
  }

  return {
    meter,
    applyEdit,
    green: () => runTargets('green', 'pass'),
    final: () => runTargets('final', 'pass'),
    runTargets,
    setTargets: (next) => {
      targets = next;
    },
    regression,
    reset: () => workspace.reset(),
    diff: () => workspace.diff(),
    build,
  };
}

function applyDiagnostics(stderr: string): Diagnostic[] {
  const diags: Diagnostic[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^error: patch failed: (.+?):(\d+)$/.exec(line);
    if (m) diags.push({ kind: 'apply', file: m[1], line: Number(m[2]), message: 'the hunk does not match the file (context or removed lines differ)' });
    else if (/^error: /.test(line) && !/patch does not apply/.test(line)) {
      const file = /^error: (?:[\w ]+: )?([^:]+):/.exec(line)?.[1];
      diags.push({ kind: /corrupt|No valid patches|unrecognized/.test(line) ? 'malformed' : 'apply', ...(file ? { file } : {}), message: line.replace(/^error: /, '') });
    }
  }
  return diags.length ? diags : [{ kind: 'apply', message: stderr.trim() || 'git apply refused the diff' }];
}

