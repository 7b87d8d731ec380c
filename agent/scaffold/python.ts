// Python spans and mutation sites through Python's own `ast` and `tokenize`,
// asked of the agent's pooled Python helper (agent/python/helper.py).
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { PythonHelperError, pythonRequest } from '../python/client';
import type { FileIndex } from './model';
import { isTestPath } from './model';

const PySpanSchema = z.object({
  symbol: z.string(),
  name: z.string(),
  kind: z.enum(['function', 'method', 'class']),
  startLine: z.number().int(),
  endLine: z.number().int(),
});

const PyIndexSchema = z.object({
  files: z.record(
    z.string(),
    z.object({
      spans: z.array(PySpanSchema),
      imports: z.array(z.object({ module: z.string(), level: z.number().int(), names: z.array(z.string()), line: z.number().int() })),
      calls: z.array(z.object({ from: z.string().nullable(), name: z.string(), line: z.number().int() })),
    }),
  ),
  errors: z.record(z.string(), z.string()),
});

const PosSchema = z.object({ line: z.number().int(), col: z.number().int(), endLine: z.number().int(), endCol: z.number().int() });

export const PySiteSchema = PosSchema.extend({
  kind: z.enum([
    'op',
    'keyword',
    'number',
    'string',
    'condition',
    'return',
    'call-args',
    'operands',
    'compare',
    // the wider search (agent/policies/offline/sites.ts)
    'name',
    'attribute',
    'callee',
    'index',
    'clauses',
    'guardable',
    'statement',
    'donor',
    'entry',
    'assigned',
  ]),
  text: z.string().optional(),
  args: z.array(PosSchema).optional(),
  alternatives: z.array(z.string()).optional(),
  builtin: z.boolean().optional(),
  receivers: z.array(z.string()).optional(),
  removable: z.boolean().optional(),
  last: z.boolean().optional(),
  scope: z.array(z.string()).optional(),
  uses: z.array(z.string()).optional(),
  params: z.array(z.object({ name: z.string(), type: z.enum(['number', 'string', 'collection', 'unknown']) })).optional(),
  returns: z.array(z.string()).optional(),
});
export type PySite = z.infer<typeof PySiteSchema>;

export async function indexPyFiles({ root, files, signal }: { root: string; files: string[]; signal?: AbortSignal }): Promise<{
  indexes: FileIndex[];
  errors: Record<string, string>;
}> {
  if (files.length === 0) return { indexes: [], errors: {} };
  const { sources, errors } = await readWorkspaceSources(root, files);
  const parsed = PyIndexSchema.parse(await pythonRequest({ mode: 'index', sources }, { signal }));
  Object.assign(parsed.errors, errors);
  const indexes: FileIndex[] = Object.entries(parsed.files).map(([file, f]) => {
    const isTestFile = isTestPath(file);
    return {
      file,
      language: 'py',
      isTestFile,
      spans: f.spans.map((s) => ({ ...s, file, isTest: isTestFile && s.kind !== 'class' && s.name.startsWith('test') })),
      imports: f.imports.map((i) => ({ specifier: i.module, level: i.level, names: i.names, line: i.line })),
      calls: f.calls,
    };
  });
  return { indexes, errors: parsed.errors };
}

/** Mutation sites (tokens and AST nodes) of one Python file within a line range. */
export async function pythonSites({ root, file, start, end }: { root: string; file: string; start: number; end: number }): Promise<PySite[]> {
  const { sources, errors } = await readWorkspaceSources(root, [file]);
  if (!sources.length) throw new PythonHelperError(errors[file] ?? `cannot read ${file}`);
  const parsed = z.object({ sites: z.array(PySiteSchema) }).parse(await pythonRequest({ mode: 'sites', ...sources[0], start, end }));
  return parsed.sites;
}

/**
 * The bytes of workspace files for the helper, which sees no files itself (it
 * runs in the sandbox). A path that leaves `root`, through `..` or a symlink,
 * is an error like a missing file: the server must not read it for anyone.
 */
async function readWorkspaceSources(
  root: string,
  files: string[],
): Promise<{ sources: Array<{ file: string; base64: string }>; errors: Record<string, string> }> {
  const sources: Array<{ file: string; base64: string }> = [];
  const errors: Record<string, string> = {};
  const realRoot = await realpath(root);
  for (const file of files) {
    try {
      const abs = await realpath(path.resolve(realRoot, file));
      if (!abs.startsWith(realRoot + path.sep)) throw new Error(`${file} leaves the workspace`);
      sources.push({ file, base64: (await readFile(abs)).toString('base64') });
    } catch (err) {
      errors[file] = `OSError: ${(err as Error).message}`;
    }
  }
  return { sources, errors };
}
