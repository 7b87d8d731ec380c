// Candidate generation for the offline policy: templates applied at the
// ranked suspects' sites, turned into exact-replacement edits, ordered by
// suspiciousness × pattern prior × edit size (priors.ts) and deduplicated by
// the syntax tree they produce. Pure apart from reading files (and Python's
// own parser), so it is tested without gates.
import { createHash } from 'node:crypto';
import ts from 'typescript';
import { z } from 'zod';
import { pythonRequest } from '../../python/client';
import type { ChangeContext, Edit, Evidence, Suspect } from '../../types';
import { parseUnifiedDiff } from '../../edits/diff';
import { isTestPath } from '../../scaffold/model';
import { parseTs } from '../../scaffold/typescript';
import { CRASH_SITE_FACTOR, EVIDENCE_FACTOR, editSize, sizeFactor, templatePrior } from './priors';
import type { Mutation, Site, SiteLanguage, TemplateName } from './model';
import { lineStarts, pySites, siteLanguage, tsSites } from './sites';
import type { Deliberateness } from './stale';
import { assertionWindows, combineMutations, diffSides, expectedActualOf, judgeDeliberate, staleMutations } from './stale';
import { mutationsForSites } from './templates';
import { propertiesReadOffMissing } from './shapes';
import { restoreValueMutations } from './restore';
import { shapeMutations } from './shapes';

export interface Candidate {
  /** 1-based position in the order candidates are tried */
  rank: number;
  template: TemplateName;
  file: string;
  line: number;
  /** the suspect's symbol, or the test file for a stale expectation */
  symbol: string;
  description: string;
  /** applied in order, each through the compile gate; most candidates have one */
  edits: Array<Extract<Edit, { kind: 'replace' }>>;
  score: number;
  onEditedLine: boolean;
}

export interface GenerateInput {
  root: string;
  readFile: (rel: string) => Promise<string>;
  suspects: Suspect[];
  evidence: Evidence;
  change: ChangeContext;
  max?: number;
  /** the repository's tests and test helpers (agent/testing/test-files.ts); default: the conventions */
  isTestFile?: (rel: string) => boolean;
  /** the post filters keep a fix that undoes the whole change; when they do not, such an edit is never tried */
  revertKept?: boolean;
}

export interface Generated {
  candidates: Candidate[];
  deliberate: Deliberateness;
  /** suspects that yielded no candidates, with why */
  skipped: string[];
  /** edits left out before validation: the same syntax tree as a better-ranked one (or as the file itself), or no tree at all; the whole change undone (the post filters would drop it) */
  pruned: { duplicates: number; unparsable: number; reverts: number };
}

/** A change's edited lines make a candidate there this much more likely to be the fix. */
const EDITED_LINE_FACTOR = 1.5;

/**
 * An edit of a line the change wrote that gives back the line the change
 * removed there (its hunk's old side) is this much more likely, when nothing
 * says the change meant its new behaviour: the tests passed before that
 * edit. Stronger than the whole spread of the pattern priors (the commonest
 * template is 8× an unseen one), so the change's own old text outweighs which
 * template family happens to express it.
 */
export const RESTORES_CHANGE_FACTOR = 10;

interface OldSide {
  /** the head lines the hunk wrote */
  start: number;
  end: number;
  /** the lines it removed, trimmed */
  removed: Set<string>;
  /** the hunk is the change's only edit outside tests: giving all of it back undoes the whole change */
  only: boolean;
  removedCount: number;
}

/** The old side of each hunk of the change that replaced lines, by file (test files left out). */
function hunksOldSide(change: ChangeContext, isTest: (rel: string) => boolean): Map<string, OldSide[]> {
  const out = new Map<string, OldSide[]>();
  const files = parseUnifiedDiff(change.diff).filter((f) => !f.binary && !isTest(f.newPath ?? f.oldPath ?? ''));
  const only = files.length === 1 && files[0].hunks.length === 1;
  for (const file of files) {
    if (!file.newPath) continue;
    const hunks = file.hunks.flatMap((h) => {
      const removedLines = h.lines
        .filter((l) => l.type === '-')
        .map((l) => l.text.trim())
        .filter(Boolean);
      const added = h.lines.filter((l) => l.type === '+').map((l) => l.newLine as number);
      return removedLines.length && added.length
        ? [{ start: Math.min(...added), end: Math.max(...added), removed: new Set(removedLines), only, removedCount: removedLines.length }]
        : [];
    });
    if (hunks.length) out.set(file.newPath, hunks);
  }
  return out;
}

/** Where a site starts (its line decides which suspect it belongs to); null for a donor, which serves the whole file. */
function siteStart(site: Site): number | null {
  if (site.kind === 'call-args') return site.args[0]?.start ?? 0;
  if (site.kind === 'comparison' || site.kind === 'operands' || site.kind === 'equality') return site.left.start;
  if (site.kind === 'entry') return site.insertAt;
  if (site.kind === 'dereference') return site.dot.start;
  if (site.kind === 'donor') return null;
  if (site.kind === 'regex') return site.pattern.start;
  return site.range.start;
}

// Python sites come from a python3 process: one per file per run, not one per
// suspect (each spawn costs tens of milliseconds, more on a busy machine).
const pyFileSites = new WeakMap<object, Map<string, Promise<Site[]>>>();

export async function sitesFor({
  root,
  file,
  text,
  lang,
  start,
  end,
  cache,
}: {
  root: string;
  file: string;
  text: string;
  lang: SiteLanguage;
  start: number;
  end: number;
  cache?: object;
}): Promise<Site[]> {
  if (lang === 'ts') return tsSites({ file, text, start, end });
  if (!cache) return pySites({ root, file, text, start, end });
  let perFile = pyFileSites.get(cache);
  if (!perFile) pyFileSites.set(cache, (perFile = new Map()));
  let all = perFile.get(file);
  if (!all) perFile.set(file, (all = pySites({ root, file, text, start: 1, end: Number.MAX_SAFE_INTEGER })));
  const starts = lineStarts(text);
  return (await all).filter((site) => {
    const at = siteStart(site);
    if (at === null) return true;
    const line = lineAt(starts, at);
    return line >= start && line <= end;
  });
}

/** A suspect's lines start..end (1-based, inclusive) as offsets into its file. */
function windowOf(source: string, start: number, end: number): { start: number; end: number } {
  const starts = lineStarts(source);
  return { start: starts[Math.max(0, start - 1)] ?? source.length, end: end < starts.length ? starts[end] : source.length };
}

function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * An exact replacement of whole lines around the mutation, widened with
 * neighbouring lines until the old text occurs once in the file, so the edit
 * cannot land anywhere else.
 */
export function replaceEdit({ file, source, mutation }: { file: string; source: string; mutation: Mutation }): Extract<Edit, { kind: 'replace' }> {
  const starts = lineStarts(source);
  let first = lineAt(starts, mutation.range.start);
  let last = lineAt(starts, Math.max(mutation.range.start, mutation.range.end - 1));
  const lineEnd = (line: number) => (line < starts.length ? starts[line] - 1 : source.length);
  for (;;) {
    const from = starts[first - 1];
    const to = lineEnd(last);
    const oldText = source.slice(from, to);
    const occurrences = source.split(oldText).length - 1;
    if (occurrences <= 1 || (first === 1 && last === starts.length)) {
      const newText = source.slice(from, mutation.range.start) + mutation.replacement + source.slice(mutation.range.end, to);
      return { kind: 'replace', file, oldText, newText };
    }
    if (first > 1) first -= 1;
    if (last < starts.length) last += 1;
  }
}

function onEdited(change: ChangeContext, file: string, line: number): boolean {
  return change.editedSpans.some((s) => s.file === file && s.startLine <= line && line <= s.endLine);
}

export async function generateCandidates(input: GenerateInput): Promise<Generated> {
  const { root, readFile, suspects, evidence, change } = input;
  const max = input.max ?? 40;
  const deliberate = judgeDeliberate({ change, evidence });
  const texts = new Map<string, string>();
  const read = async (file: string) => {
    if (!texts.has(file)) texts.set(file, await readFile(file));
    return texts.get(file) as string;
  };
  const pool: Array<Omit<Candidate, 'rank'>> = [];
  const skipped: string[] = [];

  // With intent on record, an edit that restores a line the change removed
  // undoes the developer's decision instead of fixing a mistake.
  const removedLines = new Set(
    deliberate.level === 'none'
      ? []
      : diffSides(change.diff)
          .removed.split('\n')
          .map((l) => l.trim())
          .filter(Boolean),
  );
  /** The whole lines a mutation touches, as they read after it, with the first and last line number. */
  function linesAfter(source: string, m: Mutation): { from: number; to: number; lines: string[] } {
    const starts = lineStarts(source);
    const from = lineAt(starts, m.range.start);
    const to = lineAt(starts, Math.max(m.range.start, m.range.end - 1));
    const end = to < starts.length ? starts[to] - 1 : source.length;
    const text = source.slice(starts[from - 1], m.range.start) + m.replacement + source.slice(m.range.end, end);
    return {
      from,
      to,
      lines: text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    };
  }
  function restoresRemovedLine(source: string, m: Mutation): boolean {
    if (removedLines.size === 0) return false;
    return linesAfter(source, m).lines.some((l) => removedLines.has(l));
  }
  // Without intent on record, the same restore is the likeliest fix: see RESTORES_CHANGE_FACTOR.
  const oldSides = hunksOldSide(change, input.isTestFile ?? isTestPath);
  /** 'all': the edit gives back the whole of the change's only edit; 'part': some of the change; null: neither */
  function restoresChange(file: string, source: string, m: Mutation): 'all' | 'part' | null {
    const hunks = oldSides.get(file);
    if (!hunks) return null;
    const after = linesAfter(source, m);
    const hunk = hunks.find((h) => h.start <= after.from && after.to <= h.end);
    if (!hunk || after.lines.length === 0 || !after.lines.every((l) => hunk.removed.has(l))) return null;
    return hunk.only && hunk.start === after.from && hunk.end === after.to && after.lines.length === hunk.removedCount ? 'all' : 'part';
  }
  let reverts = 0;

  function add(
    file: string,
    source: string,
    symbol: string,
    m: Mutation,
    score: number,
    extra: Array<{ file: string; source: string; m: Mutation }> = [],
  ): void {
    const before = source.slice(m.range.start, m.range.end);
    if (before === m.replacement) return;
    if (m.template !== 'stale-expectation' && restoresRemovedLine(source, m)) return;
    const line = lineAt(lineStarts(source), m.range.start);
    const edited = onEdited(change, file, line);
    const restores = m.template === 'stale-expectation' ? null : restoresChange(file, source, m);
    // undoing the whole change is not a fix the post filters keep ("revert your change" needs no bot)
    if (restores === 'all' && !input.revertKept) {
      reverts += 1;
      return;
    }
    pool.push({
      template: m.template,
      file,
      line,
      symbol,
      description: m.description,
      edits: [replaceEdit({ file, source, mutation: m }), ...extra.map((x) => replaceEdit({ file: x.file, source: x.source, mutation: x.m }))],
      score: score * (edited ? EDITED_LINE_FACTOR : 1) * (restores && deliberate.level === 'none' ? RESTORES_CHANGE_FACTOR : 1),
      onEditedLine: edited,
    });
  }

  /** suspiciousness (the suspect's score relative to the top one) × pattern prior × the edit's own preference × edit size × evidence */
  const ordered = (suspicion: number, m: Mutation, source: string) =>
    suspicion *
    templatePrior(m.template) *
    m.prior *
    sizeFactor(editSize(source.slice(m.range.start, m.range.end), m.replacement)) *
    (m.fromEvidence ? EVIDENCE_FACTOR : 1) *
    (m.atCrash ? CRASH_SITE_FACTOR : 1) *
    (m.likelihood ?? 1);

  // Stale expectations first when the change meant its new behaviour: then a
  // source mutation that "fixes" the test would undo what the developer wanted.
  if (deliberate.level !== 'none') {
    const perFile: Array<{ file: string; source: string; mutations: Mutation[] }> = [];
    for (const w of await assertionWindows({ root, evidence, change, readFile: read })) {
      const source = await read(w.file);
      const sites = await sitesFor({ root, file: w.file, text: source, lang: w.lang, start: w.start, end: w.end, cache: texts });
      const mutations = staleMutations({ sites, source, lang: w.lang, evidence, deliberate });
      const entry = perFile.find((p) => p.file === w.file);
      if (entry) entry.mutations.push(...mutations.filter((m) => !entry.mutations.some((e) => e.range.start === m.range.start)));
      else if (mutations.length) perFile.push({ file: w.file, source, mutations });
    }
    // stated-only intent is weaker evidence than the code's own mutations
    const score = deliberate.level === 'strong' ? 100 : 0.05;
    // Every failing assertion at once (the targets must all pass), then each alone.
    const combined = perFile
      .map((p) => ({ file: p.file, source: p.source, m: combineMutations(p.source, p.mutations) }))
      .filter((x): x is { file: string; source: string; m: Mutation } => x.m !== null);
    const singles = perFile.flatMap((p) => p.mutations.map((m) => ({ file: p.file, source: p.source, m })));
    if (combined.length && (combined.length > 1 || singles.length > 1)) {
      const [head, ...rest] = combined;
      const description = `update ${singles.length} stale expected values in ${combined.map((c) => c.file).join(', ')}`;
      add(head.file, head.source, head.file, { ...head.m, description }, score * 1.01, rest);
    }
    for (const x of singles) add(x.file, x.source, x.file, x.m, score);
  }

  const missingReads = propertiesReadOffMissing(evidence.messages);
  const top = Math.max(...suspects.map((s) => s.score), 1e-9);
  for (const suspect of suspects) {
    const lang = siteLanguage(suspect.file);
    if (!lang) {
      skipped.push(`${suspect.file}: no templates for this language`);
      continue;
    }
    if ((input.isTestFile ?? isTestPath)(suspect.file)) {
      skipped.push(`${suspect.symbol}: a test file; only a stale expectation is ever edited there`);
      continue;
    }
    const source = await read(suspect.file).catch(() => null);
    if (source === null) {
      skipped.push(`${suspect.file}: unreadable`);
      continue;
    }
    const sites = await sitesFor({ root, file: suspect.file, text: source, lang, start: suspect.startLine, end: suspect.endLine, cache: texts });
    const mutations = [
      ...mutationsForSites({ sites, source, lang, evidence: expectedActualOf(evidence), missingReads }),
      ...shapeMutations({
        file: suspect.file,
        sites,
        source,
        lang,
        evidence: { messages: evidence.messages, expectedActual: expectedActualOf(evidence), testNames: evidence.failingTests.map((t) => t.name) },
        window: windowOf(source, suspect.startLine, suspect.endLine),
      }),
      // a value the change replaced by a literal (not when it meant to: then restoring undoes the developer's decision)
      ...(deliberate.level === 'none'
        ? restoreValueMutations({ diff: change.diff, file: suspect.file, source, start: suspect.startLine, end: suspect.endLine })
        : []),
    ];
    if (mutations.length === 0) skipped.push(`${suspect.symbol}: no site a template applies to`);
    for (const m of mutations) add(suspect.file, source, suspect.symbol, m, ordered(suspect.score / top, m, source));
  }

  // The same edit reached from two suspects (a method and its class) is tried once.
  const seen = new Set<string>();
  const sorted = pool
    .map((c, i) => ({ c, i }))
    .sort((x, y) => y.c.score - x.c.score || x.i - y.i)
    .map(({ c }) => c)
    .filter((c) => {
      const key = createHash('sha1')
        .update(c.edits.map((e) => `${e.file}\0${e.oldText}\0${e.newText}`).join('\0'))
        .digest('hex');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  // Different edits with the same resulting syntax tree (`a - b` swapped when
  // a is b, a clause added that is already there in other words) are one
  // candidate; an edit whose file no longer parses is none.
  const budget = Math.max(max * AST_CHECK_FACTOR, max);
  const deduped = await dedupeByTree({ candidates: sorted.slice(0, budget), texts });
  const { unique } = deduped;
  const pruned = { ...deduped.pruned, reverts };
  unique.push(...sorted.slice(budget));
  // A stated (not proven) intent puts the stale expectation last, but never
  // lets the candidate cap cut it off.
  const stale = unique.filter((c) => c.template === 'stale-expectation');
  const rest = unique.filter((c) => c.template !== 'stale-expectation');
  const order = deliberate.level === 'strong' ? [...stale, ...rest].slice(0, max) : [...rest.slice(0, Math.max(0, max - stale.length)), ...stale];
  return {
    candidates: order.map((c, i) => ({ ...c, rank: i + 1, score: Math.round(c.score * 1000) / 1000 })),
    deliberate,
    skipped,
    pruned,
  };
}

/** Candidates whose syntax trees are checked for duplicates: a few times the budget (the rest are rarely reached). */
const AST_CHECK_FACTOR = 4;

/** A file's text after a candidate's edits (each old text occurs once: replaceEdit made sure). */
function applyEdits(text: string, edits: Candidate['edits'], file: string): string {
  let out = text;
  for (const e of edits) if (e.file === file) out = out.replace(e.oldText, () => e.newText);
  return out;
}

const printer = ts.createPrinter({ removeComments: true });

/** A TypeScript/JavaScript file's syntax tree as text (layout and comments gone), or null when it does not parse. */
function tsTreeKey(file: string, text: string): string | null {
  const sf = parseTs(file, text);
  if ((sf as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics?.length) return null;
  return createHash('sha1').update(printer.printFile(sf)).digest('hex');
}

export async function dedupeByTree({
  candidates,
  texts,
}: {
  candidates: Array<Omit<Candidate, 'rank'>>;
  texts: Map<string, string>;
}): Promise<{ unique: Array<Omit<Candidate, 'rank'>>; pruned: Omit<Generated['pruned'], 'reverts'> }> {
  // every edited file's text per candidate, then one key per file: TS in process, Python in one helper request
  const variants = candidates.map((c) =>
    [...new Set(c.edits.map((e) => e.file))].map((file) => ({ file, text: applyEdits(texts.get(file) ?? '', c.edits, file) })),
  );
  const pyJobs: Array<{ file: string; text: string }> = [];
  const keys = new Map<string, string | null>();
  const keyOf = (file: string, text: string) => `${file}\0${createHash('sha1').update(text).digest('hex')}`;
  const originals = [...new Set(variants.flat().map((v) => v.file))].map((file) => ({ file, text: texts.get(file) ?? '' }));
  for (const v of [...originals, ...variants.flat()]) {
    const k = keyOf(v.file, v.text);
    if (keys.has(k)) continue;
    if (v.file.endsWith('.py')) {
      keys.set(k, null);
      pyJobs.push(v);
    } else {
      keys.set(k, siteLanguage(v.file) === 'ts' ? tsTreeKey(v.file, v.text) : createHash('sha1').update(v.text).digest('hex'));
    }
  }
  if (pyJobs.length) {
    try {
      const reply = z
        .object({ hashes: z.array(z.string().nullable()) })
        .parse(await pythonRequest({ mode: 'fingerprint', sources: pyJobs.map((j) => ({ file: j.file, base64: Buffer.from(j.text).toString('base64') })) }));
      pyJobs.forEach((j, i) => keys.set(keyOf(j.file, j.text), reply.hashes[i] ?? null));
    } catch {
      // without the helper the edits' own texts decide (the compile gate still checks each)
      for (const j of pyJobs) keys.set(keyOf(j.file, j.text), createHash('sha1').update(j.text).digest('hex'));
    }
  }
  const seen = new Set(originals.map((o) => `${o.file}\0${keys.get(keyOf(o.file, o.text))}`));
  const unique: Array<Omit<Candidate, 'rank'>> = [];
  const pruned = { duplicates: 0, unparsable: 0 };
  candidates.forEach((c, i) => {
    const fileKeys = variants[i].map((v) => ({ file: v.file, key: keys.get(keyOf(v.file, v.text)) ?? null }));
    if (fileKeys.some((f) => f.key === null)) {
      pruned.unparsable += 1;
      return;
    }
    const key = fileKeys.map((f) => `${f.file}\0${f.key}`).join('\0');
    // a single-file candidate equal to the file itself changes nothing
    if (seen.has(key)) {
      pruned.duplicates += 1;
      return;
    }
    seen.add(key);
    unique.push(c);
  });
  return { unique, pruned };
}
