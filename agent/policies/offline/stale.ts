// The stale expectation: the change deliberately changed a behaviour and a
// test still asserts the old one. The fix is the test's expected value, and
// only when the evidence says the change meant it — otherwise updating a test
// to whatever the code now does would hide every real bug.
import type { ChangeContext, Evidence } from '../../types';
import { isTestPath } from '../../scaffold/model';
import { toRelative } from '../../scaffold/rank';
import type { Site, SiteLanguage } from './sites';
import { siteLanguage } from './sites';
import type { Mutation } from './templates';
import { differingWords, evidenceValue, renderLiteral } from './templates';

export interface Deliberateness {
  /** strong: the diff swapped the old value for the new; stated: the description says so */
  level: 'strong' | 'stated' | 'none';
  why: string;
}

// Phrases a change description uses when it changes behaviour on purpose.
const STATED = /\b(now (returns?|rounds?|uses?|is|are|gives?|formats?|greets?|shows?|prints?|sorts?|starts?|counts?|includes?|excludes?|treats?|defaults?|reads?|says)|instead of|no longer|by design|intentional(ly)?|deliberate(ly)?|breaking change|behaviou?r change|changes? (the )?(default|format|rule|rate|behaviou?r|wording|greeting|message|rounding|order|limit|threshold|separator|prefix|suffix))\b/i;

function diffSides(diff: string): { removed: string; added: string } {
  const removed: string[] = [];
  const added: string[] = [];
  let file = '';
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) file = line.slice(4).replace(/^b\//, '');
    else if (line.startsWith('--- ')) continue;
    else if (isTestPath(file)) continue; // the change's own test edits say nothing about the code's intent
    else if (line.startsWith('-')) removed.push(line.slice(1));
    else if (line.startsWith('+')) added.push(line.slice(1));
  }
  return { removed: removed.join('\n'), added: added.join('\n') };
}

export function judgeDeliberate({ change, evidence }: { change: ChangeContext; evidence: Evidence }): Deliberateness {
  const { removed, added } = diffSides(change.diff);
  for (const ea of evidence.expectedActual) {
    const e = evidenceValue(ea.expected);
    const a = evidenceValue(ea.actual);
    if (e.kind !== 'string' || a.kind !== 'string') continue;
    const mid = differingWords(e.value, a.value);
    // The change took out the old text and put in the new one: it meant it.
    if (mid.a.trim().length >= 2 && mid.b.trim().length >= 2 && removed.includes(mid.a) && added.includes(mid.b) && !removed.includes(mid.b)) {
      return { level: 'strong', why: `the change replaced "${mid.a}" with "${mid.b}" and the test still expects "${mid.a}"` };
    }
  }
  const stated = STATED.exec(`${change.title}\n${change.description}`);
  if (stated) return { level: 'stated', why: `the change description says "${stated[0]}"` };
  return { level: 'none', why: 'nothing says the change meant to change this behaviour' };
}

export interface StaleSite {
  file: string;
  lang: SiteLanguage;
  /** lines of the assertion (frame line and a few after: assertions wrap) */
  start: number;
  end: number;
}

/** Where the failing assertions are: test-file frames, lines not edited by the change. */
export function assertionWindows({ root, evidence, change }: { root: string; evidence: Evidence; change: ChangeContext }): StaleSite[] {
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
    // A developer who edited this assertion in this very change wrote the expectation on purpose.
    const edited = change.editedSpans.some((s) => s.file === file && s.startLine <= fr.line + 3 && fr.line <= s.endLine);
    if (edited) continue;
    out.push({ file, lang, start: fr.line, end: fr.line + 3 });
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
export function staleMutations({ sites, source, lang, evidence }: { sites: Site[]; source: string; lang: SiteLanguage; evidence: Evidence }): Mutation[] {
  const out: Mutation[] = [];
  for (const ea of evidence.expectedActual) {
    const e = evidenceValue(ea.expected);
    const a = evidenceValue(ea.actual);
    if (e.kind === 'other' || a.kind === 'other' || e.value === a.value) continue;
    for (const site of sites) {
      const lit = literalValue(site, source);
      if (!lit || site.kind === 'call-args') continue;
      for (const [stale, now] of [[e, a], [a, e]] as const) {
        if (lit.kind !== stale.kind) continue;
        const matches =
          lit.kind === 'number'
            ? Number(lit.negative ? `-${lit.value}` : lit.value) === Number(stale.value)
            : lit.value === stale.value;
        if (!matches) continue;
        const rendered = renderLiteral(now, lang, site.kind === 'string' ? site.text : undefined);
        if (!rendered || !('range' in site)) continue;
        const range = lit.kind === 'number' && lit.negative ? { start: site.range.start - 1, end: site.range.end } : site.range;
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
  return out;
}
