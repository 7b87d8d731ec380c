// The stale expectation: the change deliberately changed a behaviour and a
// test still asserts the old one. The fix is the test's expected value, and
// only when the evidence says the change meant it — otherwise updating a test
// to whatever the code now does would hide every real bug.
import type { ChangeContext, Evidence, ExpectedActual } from '../../types';
import { isTestPath } from '../../scaffold/model';
import { indexPyFiles } from '../../scaffold/python';
import { indexTsFile } from '../../scaffold/typescript';
import { toRelative } from '../../scaffold/rank';
import type { Mutation, Site, SiteLanguage } from './model';
import { siteLanguage } from './sites';
import { differingWords, evidenceValue, renderLiteral } from './literals';

export interface Deliberateness {
  /** strong: the diff swapped the old value for the new; stated: the description says so */
  level: 'strong' | 'stated' | 'none';
  why: string;
  /** for a strong verdict on strings: the text the change took out and what it put in */
  old?: string;
  now?: string;
}

// How change descriptions speak about behaviour. A denial wins over everything
// ("no behaviour change intended" is the author saying the tests are right);
// an explicit statement of intent is as good as the diff showing it; phrasing
// that only implies a new behaviour puts the test update after the code edits.
const DENIED =
  /\b(no (intended |functional )?behaviou?r(al)? changes?|no changes? (in|to) behaviou?r|(behaviou?r|semantics|output) (is |are )?unchanged|unchanged (behaviou?r|semantics)|not (meant|intended) to change|pure refactor(ing)?|no-op refactor)\b/i;
const EXPLICIT = /\b(deliberate(ly)?|intentional(ly)?|intended (behaviou?r )?change|by design|on purpose|breaking change|behaviou?r change)\b/i;
const IMPLIED =
  /\b((is|are) now|now (returns?|rounds?|uses?|is|are|gives?|formats?|greets?|shows?|prints?|sorts?|starts?|counts?|includes?|excludes?|treats?|defaults?|reads?|says)|instead of|no longer|changes? (the )?(default|format|rule|rate|behaviou?r|wording|greeting|message|rounding|order|limit|threshold|separator|prefix|suffix))\b/i;

/** node:assert and jest give expected/actual; a pytest message the evidence missed still has `assert a == b`. */
export function expectedActualOf(evidence: Evidence): ExpectedActual[] {
  if (evidence.expectedActual.length) return evidence.expectedActual;
  const out: ExpectedActual[] = [];
  for (const t of evidence.failingTests) {
    // pytest convention: the computed value on the left, the expectation on the right
    const m = /(?:^|\n|: )assert (.+?) == (.+?)\s*(?:\n|$)/.exec(t.message);
    if (m) out.push({ testId: t.id, actual: m[1].trim(), expected: m[2].trim(), operator: '==' });
  }
  return out;
}

export function diffSides(diff: string): { removed: string; added: string } {
  const removed: string[] = [];
  const added: string[] = [];
  let file = '';
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) file = line.slice(4).replace(/^b\//, '');
    else if (line.startsWith('--- ')) continue;
    else if (isTestPath(file))
      continue; // the change's own test edits say nothing about the code's intent
    else if (line.startsWith('-')) removed.push(line.slice(1));
    else if (line.startsWith('+')) added.push(line.slice(1));
  }
  return { removed: removed.join('\n'), added: added.join('\n') };
}

export function judgeDeliberate({ change, evidence }: { change: ChangeContext; evidence: Evidence }): Deliberateness {
  const text = `${change.title}\n${change.description}`;
  const denied = DENIED.exec(text);
  if (denied) return { level: 'none', why: `the change description says "${denied[0]}": the tests are the reference` };
  const { removed, added } = diffSides(change.diff);
  for (const ea of expectedActualOf(evidence)) {
    const e = evidenceValue(ea.expected);
    const a = evidenceValue(ea.actual);
    if (e.kind !== 'string' || a.kind !== 'string') continue;
    const mid = differingWords(e.value, a.value);
    // The change took out the old text and put in the new one: it meant it.
    if (mid.a.trim() && mid.b.trim() && removed.includes(mid.a) && added.includes(mid.b) && !removed.includes(mid.b)) {
      return { level: 'strong', why: `the change replaced "${mid.a}" with "${mid.b}" and the test still expects "${mid.a}"`, old: mid.a, now: mid.b };
    }
  }
  const explicit = EXPLICIT.exec(text);
  if (explicit) return { level: 'strong', why: `the change description says "${explicit[0]}"` };
  const implied = IMPLIED.exec(text);
  if (implied) return { level: 'stated', why: `the change description says "${implied[0]}"` };
  return { level: 'none', why: 'nothing says the change meant to change this behaviour' };
}

export interface StaleSite {
  file: string;
  lang: SiteLanguage;
  /** from the failing assertion's line to the end of its test (later assertions go stale too) */
  start: number;
  end: number;
}

/** The test case around a line, by the scaffold's spans; a few lines when none is found. */
async function testSpanEnd({ root, file, text, line }: { root: string; file: string; text: string; line: number }): Promise<number> {
  const spans = siteLanguage(file) === 'ts' ? indexTsFile(file, text).spans : ((await indexPyFiles({ root, files: [file] })).indexes[0]?.spans ?? []);
  const around = spans
    .filter((s) => s.startLine <= line && line <= s.endLine && s.kind !== 'class')
    .sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
  return around ? around.endLine : line + 3;
}

/** Where the failing assertions are: test-file frames, lines not edited by the change. */
export async function assertionWindows({
  root,
  evidence,
  change,
  readFile,
}: {
  root: string;
  evidence: Evidence;
  change: ChangeContext;
  readFile: (rel: string) => Promise<string>;
}): Promise<StaleSite[]> {
  const testFiles = new Set(evidence.failingTests.map((t) => (t.file ? toRelative(root, t.file) : null)).filter((f): f is string => !!f));
  const out: StaleSite[] = [];
  const seen = new Set<string>();
  for (const fr of evidence.frames) {
    const file = toRelative(root, fr.file);
    if (!file || !(testFiles.has(file) || isTestPath(file))) continue;
    const lang = siteLanguage(file);
    if (!lang) continue;
    const key = `${file}:${fr.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const text = await readFile(file).catch(() => null);
    if (text === null) continue;
    const end = await testSpanEnd({ root, file, text, line: fr.line });
    // A developer who edited this test in this very change wrote the expectation on purpose.
    const edited = change.editedSpans.some((s) => s.file === file && s.startLine <= end && fr.line <= s.endLine);
    if (edited) continue;
    out.push({ file, lang, start: fr.line, end: Math.max(end, fr.line) });
  }
  return out;
}

function literalValue(site: Site, source: string): { kind: 'string' | 'number'; value: string; negative?: boolean } | null {
  if (site.kind === 'number') {
    const negative = source[site.range.start - 1] === '-';
    return { kind: 'number', value: site.text, negative };
  }
  if (site.kind === 'string') {
    const m = /^[rRuU]?('''|"""|['"`])([\s\S]*)\1$/.exec(site.text);
    if (!m) return null;
    return { kind: 'string', value: m[2].replace(/\\(['"`\\])/g, '$1').replace(/\\n/g, '\n') };
  }
  return null;
}

/**
 * Replace the assertion's literal with the value the code now produces. The
 * literal may be either side of the evidence (tests write `equal(actual,
 * expected)` and `assert expected == actual`): whichever one the test spells
 * out literally is the stale one, and it becomes the other.
 */
export function staleMutations({
  sites,
  source,
  lang,
  evidence,
  deliberate,
}: {
  sites: Site[];
  source: string;
  lang: SiteLanguage;
  evidence: Evidence;
  deliberate: Deliberateness;
}): Mutation[] {
  const out: Mutation[] = [];
  const taken = new Set<number>();
  for (const ea of expectedActualOf(evidence)) {
    const e = evidenceValue(ea.expected);
    const a = evidenceValue(ea.actual);
    if (e.kind === 'other' || a.kind === 'other' || e.value === a.value) continue;
    for (const site of sites) {
      if (site.kind !== 'number' && site.kind !== 'string') continue;
      const lit = literalValue(site, source);
      if (!lit || taken.has(site.range.start)) continue;
      for (const [stale, now] of [
        [e, a],
        [a, e],
      ] as const) {
        if (lit.kind !== stale.kind) continue;
        const matches = lit.kind === 'number' ? Number(lit.negative ? `-${lit.value}` : lit.value) === Number(stale.value) : lit.value === stale.value;
        if (!matches) continue;
        const rendered = renderLiteral(now, lang, site.kind === 'string' ? site.text : undefined);
        if (!rendered) continue;
        const range = lit.kind === 'number' && lit.negative ? { start: site.range.start - 1, end: site.range.end } : site.range;
        taken.add(site.range.start);
        out.push({
          template: 'stale-expectation',
          range,
          replacement: rendered,
          prior: 1,
          description: `update the test's expected value ${source.slice(range.start, range.end)} → ${rendered}`,
        });
        break;
      }
    }
  }
  // The change renamed a piece of text on purpose: the test's other literals
  // that spell the old text (later assertions of the same test) follow it.
  if (deliberate.level === 'strong' && deliberate.old && deliberate.now !== undefined) {
    for (const site of sites) {
      if (site.kind !== 'string' || taken.has(site.range.start)) continue;
      if (site.text.split(deliberate.old).length !== 2 || site.text.includes(deliberate.now)) continue;
      const replacement = site.text.replace(deliberate.old, () => deliberate.now as string);
      taken.add(site.range.start);
      out.push({
        template: 'stale-expectation',
        range: site.range,
        replacement,
        prior: 1,
        description: `follow the change's "${deliberate.old}" → "${deliberate.now}" in ${site.text}`,
      });
    }
  }
  return out;
}

/** Several non-overlapping mutations of one file as one: applied together or not at all. */
export function combineMutations(source: string, mutations: Mutation[]): Mutation | null {
  if (mutations.length === 0) return null;
  const sorted = [...mutations].sort((x, y) => x.range.start - y.range.start);
  for (let i = 1; i < sorted.length; i += 1) if (sorted[i].range.start < sorted[i - 1].range.end) return null;
  const start = sorted[0].range.start;
  const end = sorted[sorted.length - 1].range.end;
  let replacement = '';
  let at = start;
  for (const m of sorted) {
    replacement += source.slice(at, m.range.start) + m.replacement;
    at = m.range.end;
  }
  return {
    template: 'stale-expectation',
    range: { start, end },
    replacement,
    prior: 1,
    description: sorted.length === 1 ? sorted[0].description : `update ${sorted.length} stale expected values`,
  };
}
