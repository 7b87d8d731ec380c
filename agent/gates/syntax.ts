import { readFile } from 'node:fs/promises';
import ts from 'typescript';
import { checkPythonSyntax } from '../python/client';
import type { Diagnostic } from '../types';
import type { Workspace } from '../workspace/workspace';

// The compile gate's syntax checkers: each parses a file the way its own
// language does and runs nothing of it, so a broken edit is refused before
// the build and the tests ever see it.

const JS_TS = /\.(?:[cm]?[jt]sx?)$/;

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

/**
 * Syntax diagnostics for the workspace files an edit touched: TS/JS, JSON and
 * Python; other files and files the edit deleted are not checked.
 */
export async function syntaxCheckFiles(workspace: Workspace, files: string[], signal?: AbortSignal): Promise<Diagnostic[]> {
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
      for (const e of await checkPythonSyntax(sources, { signal })) diags.push({ kind: 'syntax', ...e });
    } catch (err) {
      if (signal?.aborted) throw err;
      diags.push({ kind: 'syntax', message: `the Python syntax check could not run: ${(err as Error).message}` });
    }
  }
  return diags;
}
