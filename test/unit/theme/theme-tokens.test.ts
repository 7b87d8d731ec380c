import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// The design tokens of app/globals.css, read from the file itself: every pair
// of text and background the CSS puts together keeps WCAG AA contrast (4.5:1
// for text, 3:1 for chart series and focus rings) in the light theme and in
// the dark one, and no CSS file paints with a colour that is not a token.

const CSS_FILES = ['app/globals.css', 'components/change/change.css', 'components/run/run.css', 'components/grading/grading.css'];
const globals = fs.readFileSync(path.resolve('app/globals.css'), 'utf8');

function block(selector: string): Record<string, string> {
  const start = globals.indexOf(`${selector} {`);
  assert.ok(start >= 0, `app/globals.css has a "${selector}" block`);
  const body = globals.slice(start, globals.indexOf('\n}', start));
  return Object.fromEntries([...body.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]));
}

const light = block(':root');
const darkOverrides = block(":root[data-theme='dark']");
const dark = { ...light, ...darkOverrides };
const THEMES = { light, dark } as const;

function rgb(hex: string): [number, number, number] {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  assert.ok(m, `${hex} is a #rrggbb colour`);
  return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16)) as [number, number, number];
}

function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

function token(theme: Record<string, string>, name: string): string {
  const value = theme[name];
  assert.ok(value, `token ${name} is defined`);
  return value;
}

const TEXT = ['--text', '--muted', '--accent', '--ok', '--warn', '--bad', '--info', '--neutral', '--neutral-strong'];
const SURFACES = ['--bg', '--panel', '--surface-subtle', '--surface-code', '--row-hover', '--btn-bg'];
// [text, background] pairs the CSS puts together, beyond TEXT × SURFACES
const PAIRS: Array<[string, string]> = [
  ...['--text', '--muted', '--accent'].flatMap((fg) =>
    ['--surface-hover', '--btn-hover', '--input-bg', '--accent-subtle', '--ok-subtle', '--bad-subtle'].map((bg): [string, string] => [fg, bg]),
  ),
  ...['--accent', '--ok', '--warn', '--bad', '--info', '--neutral', '--neutral-strong'].map((fg): [string, string] => [
    fg,
    fg === '--neutral' || fg === '--neutral-strong' ? '--neutral-weak' : `${fg}-weak`,
  ]),
  ['--text', '--accent-weak'],
  ['--accent-strong', '--accent-weak'],
  ['--ok', '--ok-subtle'],
  ['--bad', '--bad-subtle'],
  ['--text', '--diff-add-bg'],
  ['--text', '--diff-del-bg'],
  ['--text', '--diff-add-mark'],
  ['--text', '--diff-del-mark'],
  ['--muted', '--diff-add-bg'],
  ['--muted', '--diff-del-bg'],
  ['--info', '--diff-hunk-bg'],
  ['--on-primary', '--primary-bg'],
  ['--on-primary', '--primary-hover'],
  ['--on-solid', '--solid-ok'],
  ['--on-solid', '--solid-bad'],
  ['--header-text', '--header-bg'],
  ['--header-link', '--header-bg'],
  ['--header-link-current', '--header-bg'],
  ['--header-muted', '--header-bg'],
  ['--header-text', '--header-control-bg'],
  ['--log-text', '--log-bg'],
  ['--log-text', '--log-hit'],
  ['--log-line-number', '--log-bg'],
  ['--log-line-number', '--log-hit'],
  ['--log-mark-text', '--log-mark-bg'],
  ['--chart-axis', '--panel'],
  ['--chart-tooltip-text', '--chart-tooltip-bg'],
  // a share written inside the bar of correct fixes (quality-view.tsx)
  ['--chart-on-bar', '--chart-green'],
];
const SERIES = ['--chart-blue', '--chart-green', '--chart-amber', '--chart-red', '--chart-violet', '--chart-slate', '--chart-teal', '--chart-pink'];

for (const [name, theme] of Object.entries(THEMES)) {
  test(`${name} theme: text keeps 4.5:1 on every background it sits on`, () => {
    const low: string[] = [];
    const pairs: Array<[string, string]> = [...TEXT.flatMap((fg) => SURFACES.map((bg): [string, string] => [fg, bg])), ...PAIRS];
    for (const [fg, bg] of pairs) {
      const ratio = contrast(token(theme, fg), token(theme, bg));
      if (ratio < 4.5) low.push(`${fg} on ${bg}: ${ratio.toFixed(2)}`);
    }
    assert.deepEqual(low, []);
  });

  test(`${name} theme: chart series and focus rings keep 3:1 against the card`, () => {
    const low: string[] = [];
    for (const [fg, bg] of [
      ...SERIES.map((s): [string, string] => [s, '--panel']),
      ['--focus-ring', '--panel'],
      ['--focus-ring', '--bg'],
      ['--header-focus', '--header-bg'],
    ] as Array<[string, string]>) {
      const ratio = contrast(token(theme, fg), token(theme, bg));
      if (ratio < 3) low.push(`${fg} on ${bg}: ${ratio.toFixed(2)}`);
    }
    assert.deepEqual(low, []);
  });
}

test('the dark theme overrides only tokens the light theme defines', () => {
  assert.deepEqual(
    Object.keys(darkOverrides).filter((k) => !(k in light)),
    [],
  );
  // and it is really a dark theme: light text on a dark page
  assert.ok(luminance(dark['--bg']!) < 0.02 && luminance(dark['--text']!) > 0.7);
});

test('every focus outline is the focus ring: a focused field is as visible as a focused button', () => {
  const found: string[] = [];
  for (const file of CSS_FILES) {
    const text = fs.readFileSync(path.resolve(file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const rule of text.matchAll(/([^{}]*:focus[^{}]*)\{([^}]*)\}/g)) {
      const outline = /outline(?:-color)?:\s*([^;]+)/.exec(rule[2])?.[1].trim();
      if (!outline || outline === 'none') continue;
      // the header's dark bar has a ring of its own, as contrast-checked above
      if (!/var\(--(focus-ring|header-focus)\)/.test(outline)) found.push(`${file}: ${rule[1].trim()} { outline: ${outline} }`);
    }
  }
  assert.deepEqual(found, []);
});

test('no CSS file paints with a colour of its own: only the token blocks hold colours', () => {
  const found: string[] = [];
  for (const file of CSS_FILES) {
    let text = fs.readFileSync(path.resolve(file), 'utf8');
    // the token blocks themselves, and comments
    if (file === 'app/globals.css') {
      for (const selector of [':root {', ":root[data-theme='dark'] {"]) {
        const at = text.indexOf(selector);
        text = text.slice(0, at) + text.slice(text.indexOf('\n}', at));
      }
    }
    text = text.replace(/\/\*[\s\S]*?\*\//g, '');
    text.split('\n').forEach((line, i) => {
      if (/#[0-9a-f]{3,8}\b|rgba?\(|hsla?\(|:\s*(white|black)\b/i.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});
