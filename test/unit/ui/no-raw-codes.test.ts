import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

// Pages show words, never the codes flowfix stores (regression_failed,
// WRONG_FIX, NO_FIX, REVALIDATE): every code goes through common/labels.ts.
// This reads every page and component for the ways a code used to reach the
// screen: a code field rendered as it is, or lower-cased, or with its
// underscores swapped by hand instead of looked up.

const root = path.resolve(import.meta.dirname, '../../..');
const CODE_FIELDS = 'exitReason|statusReason|reason|trigger|policy|status|kind';

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.tsx'))
    .map((f) => path.join(dir, f));
}

interface Finding {
  file: string;
  line: number;
  text: string;
  why: string;
}

function scan(file: string): Finding[] {
  const found: Finding[] = [];
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const rules: Array<{ re: RegExp; why: string }> = [
    // `>{run.exitReason}<` or a line of its own in JSX: the stored code as the text
    { re: new RegExp(`(^|[>\\s])\\{\\s*(?:[\\w!?]+\\.)+(?:${CODE_FIELDS})\\s*\\}`), why: 'a code field rendered as it is' },
    // `{r.trigger.toLowerCase()}`: the code, lower-cased (a class name built with `${…}` is fine)
    { re: new RegExp(`(?<![$\\w])\\{\\s*(?:[\\w!?]+\\.)+(?:${CODE_FIELDS})\\.toLowerCase\\(\\)`), why: 'a code field lower-cased for the screen' },
    // `.replace(/_/g, ' ')`: words made by hand from a code
    { re: /\.replace\(\s*(?:\/_\/g?|'_'|"_")\s*,/, why: 'underscores replaced by hand (look the code up in common/labels.ts)' },
  ];
  lines.forEach((text, i) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(text)) return;
    for (const rule of rules) if (rule.re.test(text)) found.push({ file, line: i + 1, text: text.trim(), why: rule.why });
  });
  return found;
}

describe('no raw codes on the pages', () => {
  test('no page or component renders a stored code instead of its words', () => {
    const findings = [...sources('app'), ...sources('components')].flatMap(scan);
    assert.deepEqual(
      findings.map((f) => `${f.file}:${f.line}: ${f.why}: ${f.text}`),
      [],
    );
  });

  test('the scan finds what it looks for', () => {
    const rules = scan.toString();
    assert.ok(rules.includes('toLowerCase'));
    const sample = [
      '<div>{run.exitReason}</div>',
      '  {r.trigger.toLowerCase()} · x',
      "{status.replace('_', ' ')}",
      'className={`badge-${item.status.toLowerCase()}`}',
      'data-status={item.status}',
    ];
    const flagged = sample.map((line) => {
      const tmp = path.join(root, 'test/unit/ui');
      void tmp;
      return [
        new RegExp(`(^|[>\\s])\\{\\s*(?:[\\w!?]+\\.)+(?:${CODE_FIELDS})\\s*\\}`).test(line),
        new RegExp(`(?<![$\\w])\\{\\s*(?:[\\w!?]+\\.)+(?:${CODE_FIELDS})\\.toLowerCase\\(\\)`).test(line),
        /\.replace\(\s*(?:\/_\/g?|'_'|"_")\s*,/.test(line),
      ].some(Boolean);
    });
    assert.deepEqual(flagged, [true, true, true, false, false]);
  });
});
