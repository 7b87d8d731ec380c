'use client';

import { loader } from '@monaco-editor/react';
// The core editor API only, plus the few features and tokenisers a read-only
// (or lightly edited) diff needs. The full `monaco-editor` entry also brings
// the TypeScript/CSS/HTML/JSON language services, each with its own worker
// and megabytes of code, for nothing a reviewer uses here.
import * as monaco from 'monaco-editor/editor';
import 'monaco-editor/features/codicon/register';
import 'monaco-editor/features/diffEditor/register';
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/folding/register';
import 'monaco-editor/languages/definitions/javascript/register';
import 'monaco-editor/languages/definitions/typescript/register';
import 'monaco-editor/languages/definitions/python/register';
import 'monaco-editor/languages/definitions/markdown/register';
import 'monaco-editor/languages/definitions/yaml/register';
import 'monaco-editor/languages/definitions/shell/register';
import 'monaco-editor/languages/definitions/css/register';
import 'monaco-editor/languages/definitions/scss/register';
import 'monaco-editor/languages/definitions/html/register';
import 'monaco-editor/languages/definitions/go/register';
import 'monaco-editor/languages/definitions/java/register';
import 'monaco-editor/languages/definitions/kotlin/register';
import 'monaco-editor/languages/definitions/rust/register';
import 'monaco-editor/languages/definitions/ruby/register';
import 'monaco-editor/languages/definitions/cpp/register';
import 'monaco-editor/languages/definitions/sql/register';
import 'monaco-editor/languages/definitions/dockerfile/register';

// Every worker label gets the editor worker: no language service above
// registers a worker of its own, and Monaco must get an answer for each label.
globalThis.MonacoEnvironment = {
  getWorker: () => new Worker(new URL('./editor.worker.ts', import.meta.url), { type: 'module', name: 'monaco-editor' }),
};

// @monaco-editor/react would otherwise load Monaco from a CDN (and here,
// without one, wait forever).
loader.config({ monaco });

// Monaco's own themes colour some tokens, and their diff tints, below the
// 4.5:1 contrast WCAG AA asks of text; these keep their look with token
// colours and add/remove tints that keep 4.5:1 on every background a token
// can sit on (editor, changed line, changed characters). The light one has
// darker tokens and lighter tints (GitHub's), the dark one (vs-dark's)
// lighter tokens and darker tints.
export const MONACO_THEMES = { light: 'flowfix-light', dark: 'flowfix-dark' } as const;
monaco.editor.defineTheme(MONACO_THEMES.light, {
  base: 'vs',
  inherit: true,
  rules: [
    { token: 'comment', foreground: '3d6b2e' },
    { token: 'number', foreground: '0b5e44' },
    { token: 'string', foreground: '8b1a1a' },
    { token: 'keyword', foreground: '0033b3' },
    { token: 'type', foreground: '1d5a6e' },
    { token: 'type.identifier', foreground: '1d5a6e' },
    { token: 'regexp', foreground: '6f1a38' },
    { token: 'annotation', foreground: '5c5c5c' },
    { token: 'attribute.name', foreground: '8a1f11' },
    { token: 'attribute.value', foreground: '0033b3' },
    { token: 'tag', foreground: '7a1111' },
    { token: 'delimiter', foreground: '333333' },
    { token: 'variable.predefined', foreground: '0a5a7a' },
    { token: 'constant', foreground: '0b5e44' },
  ],
  colors: {
    'editorLineNumber.foreground': '#5e6b7d',
    'editorLineNumber.activeForeground': '#1c2430',
    'editorLineNumber.dimmedForeground': '#5e6b7d',
    'diffEditor.insertedLineBackground': '#e6ffec',
    'diffEditor.insertedTextBackground': '#acf2bd',
    'diffEditor.removedLineBackground': '#ffebe9',
    'diffEditor.removedTextBackground': '#ffc1bd',
  },
});
monaco.editor.defineTheme(MONACO_THEMES.dark, {
  base: 'vs-dark',
  inherit: true,
  rules: [
    { token: 'comment', foreground: '8fbf7a' },
    { token: 'number', foreground: 'b5cea8' },
    { token: 'string', foreground: 'e0a58a' },
    { token: 'keyword', foreground: '79b8ff' },
    { token: 'keyword.flow', foreground: 'd19fd0' },
    { token: 'type', foreground: '4ec9b0' },
    { token: 'type.identifier', foreground: '4ec9b0' },
    { token: 'regexp', foreground: 'f08c8c' },
    { token: 'annotation', foreground: 'b0b8c4' },
    { token: 'attribute.name', foreground: '9cdcfe' },
    { token: 'attribute.value', foreground: 'e0a58a' },
    { token: 'tag', foreground: '79b8ff' },
    { token: 'delimiter', foreground: 'd4d4d4' },
    { token: 'variable.predefined', foreground: '9cdcfe' },
    { token: 'constant', foreground: 'b5cea8' },
  ],
  colors: {
    // the page's code background (--surface-code of the dark theme)
    'editor.background': '#0f1419',
    'editorGutter.background': '#0f1419',
    'editorLineNumber.foreground': '#9aa4b0',
    'editorLineNumber.activeForeground': '#e6edf3',
    'editorLineNumber.dimmedForeground': '#9aa4b0',
    'diffEditor.insertedLineBackground': '#10291a',
    'diffEditor.insertedTextBackground': '#174026',
    'diffEditor.removedLineBackground': '#2f1214',
    'diffEditor.removedTextBackground': '#4a181c',
  },
});

const known = new Set(monaco.languages.getLanguages().map((l) => l.id));

/** A language id Monaco knows, else plain text. */
export function monacoLanguage(id: string): string {
  return known.has(id) ? id : 'plaintext';
}

export { monaco };
