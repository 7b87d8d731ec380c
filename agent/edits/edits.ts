import { z } from 'zod';
import { parseApplyDiagnostics } from '../gates/diagnostics';
import { workspaceGit } from '../workspace/git';
import type { Diagnostic, Edit } from '../types';
import { BinaryFileError, type Workspace } from '../workspace/workspace';

// What a policy's edit is, and how it lands on the workspace's files. Only the
// compile gate calls applyEditToFiles: it snapshots first and rolls back when
// the edit, its syntax or the build fails.

export const EditSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('replace'), file: z.string().min(1), oldText: z.string().min(1), newText: z.string() }),
  z.object({ kind: z.literal('diff'), diff: z.string().min(1) }),
  z.object({ kind: z.literal('create'), file: z.string().min(1), content: z.string() }),
  z.object({ kind: z.literal('delete'), file: z.string().min(1) }),
]);

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

/**
 * Applies a well-formed edit to the files; returns the touched files, or
 * diagnostics when it does not apply. Throws WorkspacePathError or
 * BinaryFileError for a path the workspace refuses (the caller rolls back).
 */
export async function applyEditToFiles(workspace: Workspace, edit: Edit): Promise<{ files: string[] } | { diagnostics: Diagnostic[] }> {
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
        await workspaceGit(workspace.root, ['apply', ...options, '--check', '-'], { input: patch });
      } catch (err) {
        const stderr = (err as { stderr?: string }).stderr ?? (err as Error).message;
        return { diagnostics: parseApplyDiagnostics(stderr) };
      }
      await workspace.applyPatch(patch, options);
      return { files: paths.filter((p, i, all) => all.indexOf(p) === i) };
    }
  }
}
