// Candidate generation for the offline policy: templates applied at the
// ranked suspects' sites, turned into exact-replacement edits and ordered by
// suspiciousness. Pure apart from reading files (and Python's tokenizer), so
// it is tested without gates.
import { createHash } from 'node:crypto';
import type { ChangeContext, Edit, Evidence, Suspect } from '../../types';
import { isTestPath } from '../../scaffold/model';
import type { Site, SiteLanguage } from './sites';
import { lineStarts, pySites, siteLanguage, tsSites } from './sites';
import type { Deliberateness } from './stale';
import { assertionWindows, judgeDeliberate, staleMutations } from './stale';
import type { Mutation, TemplateName } from './templates';
import { mutationsForSites } from './templates';

export interface Candidate {
  /** 1-based position in the order candidates are tried */
  rank: number;
  template: TemplateName;
  file: string;
  line: number;
  /** the suspect's symbol, or the test file for a stale expectation */
  symbol: string;
  description: string;
  edit: Extract<Edit, { kind: 'replace' }>;
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
}

export interface Generated {
  candidates: Candidate[];
  deliberate: Deliberateness;
  /** suspects that yielded no candidates, with why */
  skipped: string[];
}

/** A change's edited lines make a candidate there this much more likely to be the fix. */
const EDITED_LINE_FACTOR = 1.5;

export async function sitesFor({ root, file, text, lang, start, end }: { root: string; file: string; text: string; lang: SiteLanguage; start: number; end: number }): Promise<Site[]> {
  return lang === 'ts' ? tsSites({ file, text, start, end }) : pySites({ root, file, text, start, end });
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

  function add(file: string, source: string, symbol: string, m: Mutation, score: number): void {
    if (source.slice(m.range.start, m.range.end) === m.replacement) return;
    const line = lineAt(lineStarts(source), m.range.start);
    const edited = onEdited(change, file, line);
    pool.push({
      template: m.template,
      file,
      line,
      symbol,
      description: m.description,
      edit: replaceEdit({ file, source, mutation: m }),
      score: score * (edited ? EDITED_LINE_FACTOR : 1),
      onEditedLine: edited,
    });
  }

  // Stale expectations first when the change meant its new behaviour: then a
  // source mutation that "fixes" the test would undo what the developer wanted.
  if (deliberate.level !== 'none') {
    for (const w of assertionWindows({ root, evidence, change })) {
      const source = await read(w.file).catch(() => null);
      if (source === null) continue;
      const sites = await sitesFor({ root, file: w.file, text: source, lang: w.lang, start: w.start, end: w.end });
      for (const m of staleMutations({ sites, source, lang: w.lang, evidence })) {
        // stated-only intent is weaker evidence than the code's own mutations
        add(w.file, source, w.file, m, deliberate.level === 'strong' ? 100 : 0.05);
      }
    }
  }

  const top = Math.max(...suspects.map((s) => s.score), 1e-9);
  for (const suspect of suspects) {
    const lang = siteLanguage(suspect.file);
    if (!lang) {
      skipped.push(`${suspect.file}: no templates for this language`);
      continue;
    }
    if (isTestPath(suspect.file)) {
      skipped.push(`${suspect.symbol}: a test file; only a stale expectation is ever edited there`);
      continue;
    }
    const source = await read(suspect.file).catch(() => null);
    if (source === null) {
      skipped.push(`${suspect.file}: unreadable`);
      continue;
    }
    const sites = await sitesFor({ root, file: suspect.file, text: source, lang, start: suspect.startLine, end: suspect.endLine });
    const mutations = mutationsForSites({ sites, source, lang, evidence: evidence.expectedActual });
    if (mutations.length === 0) skipped.push(`${suspect.symbol}: no site a template applies to`);
    for (const m of mutations) add(suspect.file, source, suspect.symbol, m, (suspect.score / top) * m.prior);
  }

  // The same edit reached from two suspects (a method and its class) is tried once.
  const seen = new Set<string>();
  const unique = pool
    .map((c, i) => ({ c, i }))
    .sort((x, y) => y.c.score - x.c.score || x.i - y.i)
    .map(({ c }) => c)
    .filter((c) => {
      const key = createHash('sha1').update(`${c.file}\0${c.edit.oldText}\0${c.edit.newText}`).digest('hex');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  // A stated (not proven) intent puts the stale expectation last, but never
  // lets the candidate cap cut it off.
  const stale = unique.filter((c) => c.template === 'stale-expectation');
  const rest = unique.filter((c) => c.template !== 'stale-expectation');
  const ordered = deliberate.level === 'strong' ? [...stale, ...rest].slice(0, max) : [...rest.slice(0, Math.max(0, max - stale.length)), ...stale];
  return {
    candidates: ordered.map((c, i) => ({ ...c, rank: i + 1, score: Math.round(c.score * 1000) / 1000 })),
    deliberate,
    skipped,
  };
}
