import { z } from 'zod';
import { getDb } from '../db';
import { AppError } from '../errors';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { applyFilePatch, fragmentsFromPatch, languageForPath, parsePatch, patchPath, PatchMismatchError } from '../diff/apply';
import { readFileAtRevision, unifiedDiffFromTexts } from '../diff/git-text';
import type { DiffStat } from '../../common/diffstat';
import {
  committedEditOf,
  diffStatOf,
  FIX_VIEW_INCLUDE,
  REVIEW_QUEUE_INCLUDE,
  toFixView,
  toReviewQueueItem,
  type FixFile,
  type FixView,
  type Revalidation,
  type ReviewQueuePage,
} from './views';
import { exitReasonLabel } from '../../common/labels';

// Read-only fix queries for the dashboard's pages (the change page, the review
// queue, the diff viewer); the shapes they return are views.ts's, the
// evidence reader evidence.ts's. Decisions — preview, accept, edit, reject —
// live in the review-apply module beside this one; nothing here writes.

/** One fix as the pages show it; 404 when absent. */
export async function getFixById({ id }: { id: string }): Promise<FixView> {
  const row = await getDb().fix.findUnique({ where: { id }, include: FIX_VIEW_INCLUDE });
  if (!row) throw new AppError('not_found', 'No such fix');
  const revalidations = await latestRevalidations({ fixIds: [id] });
  return toFixView(row, revalidations.get(id) ?? null);
}

/**
 * The latest re-validation run of a reviewer's edit of each fix: the page
 * says it is running, or why it refused the edit (the run's exit detail
 * names the tests that failed, with their messages).
 */
export async function latestRevalidations({ fixIds }: { fixIds: string[] }): Promise<Map<string, Revalidation>> {
  if (fixIds.length === 0) return new Map();
  const runs = await getDb().run.findMany({
    where: { trigger: 'REVALIDATE', sourceFixId: { in: fixIds } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true, status: true, exitReason: true, exitDetail: true, sourceFixId: true, createdAt: true },
  });
  const out = new Map<string, Revalidation>();
  for (const r of runs) {
    if (!r.sourceFixId || out.has(r.sourceFixId)) continue;
    const ended = r.status !== 'QUEUED' && r.status !== 'RUNNING';
    out.set(r.sourceFixId, {
      runId: r.id,
      status: r.status,
      message: ended && r.status !== 'FIXED' ? r.exitDetail?.trim() || exitReasonLabel(r.exitReason) : null,
      createdAt: r.createdAt.toISOString(),
    });
  }
  return out;
}

// ───── the review queue ─────

export const ReviewQueueQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
  // demo history fixes are examples, not decisions to make: out of the queue unless asked for
  history: z.enum(['include', 'exclude']).default('exclude'),
});

/** Fixes waiting for a decision (READY), newest first, keyset-paged. */
export async function listReviewQueue({
  limit = 50,
  cursor,
  history = 'exclude',
}: {
  limit?: number;
  cursor?: string;
  history?: 'include' | 'exclude';
}): Promise<ReviewQueuePage> {
  const after = cursor ? decodeCursor(cursor) : null;
  const rows = await getDb().fix.findMany({
    where: {
      status: 'READY',
      ...(history === 'exclude' ? { change: { origin: { not: 'DEMO_HISTORY' } } } : {}),
      ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    include: REVIEW_QUEUE_INCLUDE,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toReviewQueueItem),
    nextCursor: rows.length > limit && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
  };
}

// ───── the files of a fix, whole, for the diff viewer ─────

async function loadFixForFiles(id: string) {
  const fix = await getDb().fix.findUnique({
    where: { id },
    select: {
      id: true,
      diff: true,
      status: true,
      applyClaim: true,
      decisions: {
        where: { kind: { in: ['ACCEPT', 'EDIT_ACCEPT'] } },
        orderBy: { createdAt: 'desc' },
        take: 1,
        select: { kind: true, editedDiff: true, runId: true },
      },
      revision: { select: { headRev: true } },
      change: { select: { repository: { select: { gitUrl: true } } } },
    },
  });
  if (!fix) throw new AppError('not_found', 'No such fix');
  return fix;
}

/**
 * Every file the fix touches, both sides whole where the repository allows.
 * `diffOf`: 'run', the diff the run produced (what graders judge, what an
 * edit starts from); 'committed', the reviewer's edit instead once that is
 * what was committed (the change page and the editor show the branch's truth).
 */
export async function getFixFiles({ id, diffOf = 'run' }: { id: string; diffOf?: 'run' | 'committed' }): Promise<FixFile[]> {
  const fix = await loadFixForFiles(id);
  const repoPath = fix.change.repository.gitUrl;
  const diff = diffOf === 'committed' ? (committedEditOf(fix)?.diff ?? fix.diff) : fix.diff;
  const out: FixFile[] = [];
  for (const patch of parsePatch(diff)) {
    const filePath = patchPath(patch);
    const base = { path: filePath, oldPath: patch.oldPath, status: patch.status, language: languageForPath(filePath) };
    if (patch.binary) {
      out.push({ ...base, original: '', modified: '', complete: false, binary: true });
      continue;
    }
    const original = patch.oldPath === null ? '' : await readFileAtRevision({ repoPath, rev: fix.revision.headRev, filePath: patch.oldPath });
    if (original !== null) {
      try {
        out.push({ ...base, original, modified: applyFilePatch({ original, patch }), complete: true, binary: false });
        continue;
      } catch (err) {
        if (!(err instanceof PatchMismatchError)) throw err;
      }
    }
    out.push({ ...base, ...fragmentsFromPatch(patch), complete: false, binary: false });
  }
  return out;
}

/**
 * The unified diff of a fix after the reviewer edited some of its files'
 * modified sides (the rest as the fix had them), against the same originals.
 */
export async function diffForEditedFix({
  id,
  files,
}: {
  id: string;
  files: Array<{ path: string; modified: string }>;
}): Promise<{ diff: string; stat: DiffStat }> {
  const current = await getFixFiles({ id });
  const byPath = new Map(current.map((f) => [f.path, f]));
  for (const edit of files) {
    const f = byPath.get(edit.path);
    if (!f) throw new AppError('validation', `The fix does not touch ${edit.path}`);
    if (!f.complete || f.binary) {
      throw new AppError('conflict', `${edit.path} cannot be edited here: its text at the fix's revision is not available`);
    }
    if (f.status === 'deleted') throw new AppError('validation', `${edit.path} is deleted by the fix`);
  }
  const edited = new Map(files.map((f) => [f.path, f.modified]));
  const diff = await unifiedDiffFromTexts({
    files: current
      .map((f) => {
        const fromOld = f.status === 'renamed' && f.oldPath ? f.oldPath : f.path;
        return {
          path: f.path,
          // renames: diff the old text against the new path's text; git shows it as a rename only with -M,
          // which apply accepts either way (delete + add)
          original: f.status === 'added' ? null : fromOld === f.path ? f.original : null,
          modified: f.status === 'deleted' ? null : (edited.get(f.path) ?? f.modified),
        };
      })
      .concat(
        current
          .filter((f) => f.status === 'renamed' && f.oldPath && f.oldPath !== f.path)
          .map((f) => ({ path: f.oldPath as string, original: f.original, modified: null })),
      ),
  });
  if (diff.trim() === '') throw new AppError('validation', 'The edited fix changes nothing');
  return { diff, stat: diffStatOf(diff) };
}
