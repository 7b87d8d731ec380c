import { z } from 'zod';
import { getDb } from '../db';
import { AppError } from '../errors';
import type { FixStatus, Prisma } from '../generated/prisma/client';
import { sanitizeHtml } from '../html/sanitize';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { applyFilePatch, fragmentsFromPatch, languageForPath, parsePatch, patchPath, PatchMismatchError } from '../diff/apply';
import { readFileAtRevision, unifiedDiffFromTexts } from '../diff/git-text';

// Read-only fix queries for the dashboard's pages (the change page, the review
// queue, the diff viewer). Decisions — preview, accept, edit, reject — live in
// the review-apply module beside this one; nothing here writes.

// ───── evidence (Fix.evidence, a JSON column: validated on the way out) ─────

const GateSchema = z
  .object({
    passed: z.boolean(),
    durationMs: z.number().nonnegative().catch(0),
    detail: z.string().optional().catch(undefined),
    tests: z.array(z.object({ id: z.string(), status: z.string() }).passthrough()).optional().catch(undefined),
  })
  .passthrough();

// Written by agent/pipeline.ts (RepairEvidence) for real runs and by
// demo/history.ts for the generated history; both carry the four gates.
const EvidenceSchema = z
  .object({
    red: GateSchema.optional().catch(undefined),
    green: GateSchema.optional().catch(undefined),
    regression: GateSchema.optional().catch(undefined),
    final: GateSchema.optional().catch(undefined),
    targets: z.array(z.string()).optional().catch(undefined),
    tests: z.array(z.string()).optional().catch(undefined),
    notCausedByChange: z.boolean().optional().catch(undefined),
    history: z.boolean().optional().catch(undefined),
  })
  .passthrough();

export const GATE_ORDER = ['red', 'green', 'regression', 'final'] as const;
export type GateKey = (typeof GATE_ORDER)[number];

export interface GateView {
  gate: GateKey;
  passed: boolean;
  durationMs: number;
  detail: string | null;
  /** how many tests the gate ran, when it says */
  testCount: number | null;
}

export interface FixEvidenceView {
  gates: GateView[];
  targets: string[];
}

/**
 * How many tests a gate ran. The regression gate lists only its failing tests
 * (the suite can be thousands), so its count comes from the "X of Y tests
 * pass" detail; target gates list every target.
 */
function testCountOf(g: { detail?: string | null; tests?: unknown[] }): number | null {
  const m = /(\d+) of (\d+) tests? pass/.exec(g.detail ?? '');
  if (m) return Number(m[2]);
  return g.tests ? g.tests.length : null;
}

export function readFixEvidence(raw: unknown): FixEvidenceView {
  const parsed = EvidenceSchema.safeParse(raw ?? {});
  if (!parsed.success) return { gates: [], targets: [] };
  const e = parsed.data;
  const gates: GateView[] = [];
  for (const gate of GATE_ORDER) {
    const g = e[gate];
    if (!g) continue;
    gates.push({
      gate,
      passed: g.passed,
      durationMs: g.durationMs,
      detail: g.detail ? g.detail.slice(0, 2000) : null,
      testCount: testCountOf(g),
    });
  }
  return { gates, targets: e.targets ?? e.tests ?? [] };
}

// ───── the fix as pages see it ─────

export type FixStatusName = `${FixStatus}`;

export interface FixView {
  id: string;
  runId: string;
  changeId: string;
  status: FixStatusName;
  dropReason: string | null;
  /** sanitised again on the way out: written by a model, so never trusted even from our own database */
  summaryHtml: string;
  files: string[];
  diffStat: { files: number; added: number; removed: number };
  evidence: FixEvidenceView;
  appliedCommit: string | null;
  appliedAt: string | null;
  appliedBy: string | null;
  createdAt: string;
  revisionNumber: number;
  /** the fix was made on the change's latest revision */
  onLatestRevision: boolean;
  isHistory: boolean;
  run: {
    id: string;
    policy: string;
    model: string | null;
    trigger: string;
    toolCalls: number;
    promptTokens: number;
    completionTokens: number;
    costUsd: number;
    durationMs: number | null;
  };
  /** the decision that closed the fix (accept, edit-accept, reject), if any */
  decision: {
    kind: 'ACCEPT' | 'EDIT_ACCEPT' | 'REJECT';
    by: string;
    at: string;
    surface: string;
    reason: string | null;
    reasonText: string | null;
  } | null;
  previews: number;
}

export const FIX_VIEW_INCLUDE = {
  run: {
    select: {
      id: true,
      policy: true,
      model: true,
      trigger: true,
      toolCalls: true,
      promptTokens: true,
      completionTokens: true,
      costUsd: true,
      startedAt: true,
      finishedAt: true,
    },
  },
  revision: { select: { number: true, supersededAt: true } },
  change: { select: { origin: true, revisionNumber: true } },
  appliedBy: { select: { name: true } },
  decisions: {
    where: { kind: { in: ['ACCEPT', 'EDIT_ACCEPT', 'REJECT'] } },
    orderBy: { createdAt: 'desc' },
    take: 1,
    include: { user: { select: { name: true } } },
  },
  _count: { select: { decisions: { where: { kind: 'PREVIEW' } } } },
} satisfies Prisma.FixInclude;

type FixRow = Prisma.FixGetPayload<{ include: typeof FIX_VIEW_INCLUDE }>;

export function diffStatOf(diff: string): FixView['diffStat'] {
  let added = 0;
  let removed = 0;
  const patches = parsePatch(diff);
  for (const p of patches)
    for (const h of p.hunks)
      for (const l of h.lines) {
        if (l.type === '+') added++;
        else if (l.type === '-') removed++;
      }
  return { files: patches.length, added, removed };
}

export function toFixView(row: FixRow): FixView {
  const decision = row.decisions[0];
  return {
    id: row.id,
    runId: row.runId,
    changeId: row.changeId,
    status: row.status,
    dropReason: row.dropReason,
    summaryHtml: sanitizeHtml(row.summaryHtml),
    files: row.files,
    diffStat: diffStatOf(row.diff),
    evidence: readFixEvidence(row.evidence),
    appliedCommit: row.appliedCommit,
    appliedAt: row.appliedAt?.toISOString() ?? null,
    appliedBy: row.appliedBy?.name ?? null,
    createdAt: row.createdAt.toISOString(),
    revisionNumber: row.revision.number,
    onLatestRevision: row.revision.supersededAt === null && row.revision.number === row.change.revisionNumber,
    isHistory: row.change.origin === 'DEMO_HISTORY',
    run: {
      id: row.run.id,
      policy: row.run.policy,
      model: row.run.model,
      trigger: row.run.trigger,
      toolCalls: row.run.toolCalls,
      promptTokens: row.run.promptTokens,
      completionTokens: row.run.completionTokens,
      costUsd: row.run.costUsd,
      durationMs:
        row.run.startedAt && row.run.finishedAt ? row.run.finishedAt.getTime() - row.run.startedAt.getTime() : null,
    },
    decision: decision
      ? {
          kind: decision.kind as 'ACCEPT' | 'EDIT_ACCEPT' | 'REJECT',
          by: decision.user.name,
          at: decision.createdAt.toISOString(),
          surface: decision.surface,
          reason: decision.reason,
          reasonText: decision.reasonText,
        }
      : null,
    previews: row._count.decisions,
  };
}

/** One fix as the pages show it; 404 when absent. */
export async function getFixById({ id }: { id: string }): Promise<FixView> {
  const row = await getDb().fix.findUnique({ where: { id }, include: FIX_VIEW_INCLUDE });
  if (!row) throw new AppError('not_found', 'No such fix');
  return toFixView(row);
}

// ───── the review queue ─────

export interface ReviewQueueItem {
  fixId: string;
  changeId: string;
  title: string;
  externalId: string;
  repository: string;
  author: string;
  authorKind: 'HUMAN' | 'BOT';
  branch: string;
  createdAt: string;
  files: string[];
  diffStat: FixView['diffStat'];
  /** the root cause as plain text, short: the queue never renders model HTML */
  summaryText: string;
  gatesPassed: number;
  gatesTotal: number;
  isHistory: boolean;
}

export interface ReviewQueuePage {
  items: ReviewQueueItem[];
  nextCursor: string | null;
}

export const ReviewQueueQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
  // demo history fixes are examples, not decisions to make: out of the queue unless asked for
  history: z.enum(['include', 'exclude']).default('exclude'),
});

/** Plain text of sanitised HTML, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  return sanitizeHtml(html)
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

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
    include: {
      change: {
        select: {
          title: true,
          externalId: true,
          author: true,
          authorKind: true,
          branch: true,
          origin: true,
          repository: { select: { name: true } },
        },
      },
    },
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => {
      const evidence = readFixEvidence(row.evidence);
      const text = htmlToText(row.summaryHtml);
      return {
        fixId: row.id,
        changeId: row.changeId,
        title: row.change.title,
        externalId: row.change.externalId,
        repository: row.change.repository.name,
        author: row.change.author,
        authorKind: row.change.authorKind,
        branch: row.change.branch,
        createdAt: row.createdAt.toISOString(),
        files: row.files,
        diffStat: diffStatOf(row.diff),
        summaryText: text.length > 280 ? `${text.slice(0, 279)}…` : text,
        gatesPassed: evidence.gates.filter((g) => g.passed).length,
        gatesTotal: evidence.gates.length,
        isHistory: row.change.origin === 'DEMO_HISTORY',
      };
    }),
    nextCursor: rows.length > limit && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
  };
}

// ───── the files of a fix, whole, for the diff viewer ─────

export interface FixFile {
  path: string;
  oldPath: string | null;
  status: 'added' | 'deleted' | 'renamed' | 'modified';
  language: string;
  original: string;
  modified: string;
  /**
   * true: both sides are the whole file (read at the fix's revision, patch
   * applied). false: only what the hunks show, because the original could not
   * be read or did not match; such a file cannot be edited.
   */
  complete: boolean;
  binary: boolean;
}

async function loadFixForFiles(id: string) {
  const fix = await getDb().fix.findUnique({
    where: { id },
    select: {
      id: true,
      diff: true,
      revision: { select: { headRev: true } },
      change: { select: { repository: { select: { gitUrl: true } } } },
    },
  });
  if (!fix) throw new AppError('not_found', 'No such fix');
  return fix;
}

/** Every file the fix touches, both sides whole where the repository allows. */
export async function getFixFiles({ id }: { id: string }): Promise<FixFile[]> {
  const fix = await loadFixForFiles(id);
  const repoPath = fix.change.repository.gitUrl;
  const out: FixFile[] = [];
  for (const patch of parsePatch(fix.diff)) {
    const filePath = patchPath(patch);
    const base = { path: filePath, oldPath: patch.oldPath, status: patch.status, language: languageForPath(filePath) };
    if (patch.binary) {
      out.push({ ...base, original: '', modified: '', complete: false, binary: true });
      continue;
    }
    const original =
      patch.oldPath === null
        ? ''
        : await readFileAtRevision({ repoPath, rev: fix.revision.headRev, filePath: patch.oldPath });
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
}): Promise<{ diff: string; stat: FixView['diffStat'] }> {
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
    files: current.map((f) => {
      const fromOld = f.status === 'renamed' && f.oldPath ? f.oldPath : f.path;
      return {
        path: f.path,
        // renames: diff the old text against the new path's text; git shows it as a rename only with -M,
        // which apply accepts either way (delete + add)
        original: f.status === 'added' ? null : fromOld === f.path ? f.original : null,
        modified: f.status === 'deleted' ? null : (edited.get(f.path) ?? f.modified),
      };
    }).concat(
      current
        .filter((f) => f.status === 'renamed' && f.oldPath && f.oldPath !== f.path)
        .map((f) => ({ path: f.oldPath as string, original: f.original, modified: null })),
    ),
  });
  if (diff.trim() === '') throw new AppError('validation', 'The edited fix changes nothing');
  return { diff, stat: diffStatOf(diff) };
}
