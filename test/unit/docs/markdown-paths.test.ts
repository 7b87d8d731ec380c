// Every repository path a Markdown file names must exist. The READMEs and
// docs/ point newcomers at files ("the sandbox is `lib/sandbox/argv.ts`");
// a file moved or renamed leaves such a pointer dangling without anyone
// noticing. This scans every *.md of the repository and checks:
//   - inline code spans (`agent/workspace/exec.ts`, `lib/sandbox/`) whose
//     first segment is a top-level folder or file of the repository, with no
//     spaces, wildcards or placeholders (`<`, `{`, `*`, `…`, `$`): each must
//     exist from the repository's root or from the Markdown file's folder;
//   - relative links and images ([usage](docs/usage.md)): each must exist
//     from the Markdown file's folder (as a browser resolves it), or from the
//     root when it starts with `/`.
// Left out: fenced code blocks (they hold commands, sample output and other
// repositories' files, a CI workflow's `reports/junit.xml`), and paths into
// folders a run or a build makes and git ignores (`bench/out/`, `test-results/`,
// `.data/`, the extension's `extension/dist/`, which the end-to-end suite builds).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Folders that are generated, installed or local, never the repository's own. */
const NOT_REPOSITORY =
  /^(node_modules|\.git|\.next.*|\.data.*|test-results|playwright-report|lib\/generated|bench\/out|extension\/dist|.*\.tsbuildinfo|next-env\.d\.ts|\.env|\.env\.local)$/;

function repositoryEntry(rel: string): boolean {
  return !NOT_REPOSITORY.test(rel) && !rel.split('/').includes('node_modules');
}

/** The names at the repository's top level: a token is a path when it starts with one. */
export function topLevelNames(root: string): Set<string> {
  return new Set(fs.readdirSync(root).filter((name) => repositoryEntry(name)));
}

/** Every *.md of the repository, relative to the root, outside generated and installed folders. */
export function markdownFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (!repositoryEntry(rel)) continue;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile() && entry.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

export interface PathRef {
  /** as written */
  text: string;
  kind: 'code' | 'link';
  line: number;
}

/** Markdown without its fenced code blocks (their lines kept empty, so line numbers hold). */
function withoutFences(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      return '';
    }
    if (marker) {
      fence = marker;
      return '';
    }
    return line;
  });
}

/** The repository paths a Markdown text names: code spans that start with a top-level name, and relative links. */
export function pathRefs(markdown: string, topLevel: Set<string>): PathRef[] {
  const refs: PathRef[] = [];
  withoutFences(markdown).forEach((line, i) => {
    // code spans first; link syntax inside them is no link
    const spans = [...line.matchAll(/(`+)([^`]+?)\1(?!`)/g)];
    for (const [, , body] of spans) {
      const token = body!.trim().replace(/:\d+(-\d+)?$/, '');
      if (!token || /[\s<>{}*?…$|,;'"]/.test(token)) continue;
      if (/^[a-z][a-z0-9+.-]*:/i.test(token)) continue; // a URL or host:port
      const segments = token.replace(/^\.\//, '').split('/');
      if (!topLevel.has(segments[0]!)) continue;
      // a folder the repository leaves out (bench/out/, lib/generated/): made by a run, not kept
      if (
        segments.some(
          (_, n) =>
            n > 0 &&
            !repositoryEntry(
              segments
                .slice(0, n + 1)
                .join('/')
                .replace(/\/$/, ''),
            ),
        )
      )
        continue;
      refs.push({ text: token, kind: 'code', line: i + 1 });
    }
    const prose = line.replace(/(`+)[^`]+?\1(?!`)/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue; // https:, mailto:, an anchor
      refs.push({ text: target, kind: 'link', line: i + 1 });
    }
  });
  return refs;
}

/** Whether a reference from the Markdown file `mdFile` (relative to `root`) names something that exists. */
export function refExists(root: string, mdFile: string, ref: PathRef): boolean {
  const here = path.dirname(path.join(root, mdFile));
  if (ref.kind === 'link') {
    const target = decodeURIComponent(ref.text.replace(/[?#].*$/, ''));
    if (!target) return true;
    return fs.existsSync(target.startsWith('/') ? path.join(root, target) : path.resolve(here, target));
  }
  const token = ref.text.replace(/^\.\//, '');
  return fs.existsSync(path.join(root, token)) || fs.existsSync(path.resolve(here, token));
}

/** "file:line `path`" for every reference in `files` that names nothing. */
export function missingPaths(root: string, files: string[], topLevel: Set<string>): string[] {
  const missing: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const ref of pathRefs(text, topLevel)) {
      if (!refExists(root, file, ref)) missing.push(`${file}:${ref.line} ${ref.kind === 'code' ? `\`${ref.text}\`` : `(${ref.text})`}`);
    }
  }
  return missing;
}

describe('repository paths named in Markdown', () => {
  test('every path a Markdown file names exists', () => {
    const files = markdownFiles(ROOT);
    assert.ok(files.includes('README.md') && files.length >= 10, `found ${files.length} Markdown files: the scan must see them`);
    const topLevel = topLevelNames(ROOT);
    const refs = files.flatMap((f) => pathRefs(fs.readFileSync(path.join(ROOT, f), 'utf8'), topLevel));
    assert.ok(refs.length > 100, `found ${refs.length} paths: the scan must see them`);
    assert.deepEqual(missingPaths(ROOT, files, topLevel), []);
  });

  test('the checker finds a made-up path, and leaves commands, wildcards and placeholders alone', () => {
    // a small repository of its own: lib/sandbox/index.ts, README.md, docs/ and sub/sample.md
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-markdown-paths-'));
    try {
      fs.mkdirSync(path.join(root, 'lib', 'sandbox'), { recursive: true });
      fs.mkdirSync(path.join(root, 'docs'));
      fs.mkdirSync(path.join(root, 'sub'));
      fs.mkdirSync(path.join(root, 'node_modules'));
      fs.writeFileSync(path.join(root, 'lib', 'sandbox', 'index.ts'), '');
      fs.writeFileSync(path.join(root, 'README.md'), '# x\n');
      fs.writeFileSync(path.join(root, 'docs', 'usage.md'), '# usage\n');
      fs.writeFileSync(
        path.join(root, 'sub', 'sample.md'),
        [
          'The sandbox is `lib/sandbox/index.ts`, its folder `lib/sandbox/`; beside it `sample.md` and `node_modules/x`.',
          'Made up: `lib/sandbox/no-such-door.ts` and [a page](../docs/no-such-page.md).',
          'Not paths: `npm run demo`, `lib/sandbox/*`, `lib/<feature>/README.md`, `docs/{a,b}.md`, `docs/…`, `https://example.com/lib/x`.',
          'Links: [the root README](/README.md), [usage](../docs/usage.md), [an anchor](#top), [a site](https://example.com).',
          'Wrong from here: [usage](docs/usage.md) (a link resolves from this folder).',
          '```sh',
          'cat lib/also-made-up.ts `lib/inside-a-fence.ts`',
          '```',
        ].join('\n'),
      );
      const topLevel = topLevelNames(root);
      assert.deepEqual([...topLevel].sort(), ['README.md', 'docs', 'lib', 'sub']);
      assert.deepEqual(markdownFiles(root), ['README.md', 'docs/usage.md', 'sub/sample.md']);
      const refs = pathRefs(fs.readFileSync(path.join(root, 'sub', 'sample.md'), 'utf8'), topLevel).map((r) => r.text);
      assert.deepEqual(refs, [
        'lib/sandbox/index.ts',
        'lib/sandbox/',
        'lib/sandbox/no-such-door.ts',
        '../docs/no-such-page.md',
        '/README.md',
        '../docs/usage.md',
        'docs/usage.md',
      ]);
      assert.deepEqual(missingPaths(root, markdownFiles(root), topLevel), [
        'sub/sample.md:2 `lib/sandbox/no-such-door.ts`',
        'sub/sample.md:2 (../docs/no-such-page.md)',
        'sub/sample.md:5 (docs/usage.md)',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
