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

// Monaco's own light theme colours some tokens, and its diff tints, below the
// 4.5:1 contrast WCAG AA asks of text; this theme keeps its look with darker
// token colours and lighter add/remove tints (GitHub's).
export const MONACO_THEME = 'flowfix-light';
monaco.editor.defineTheme(MONACO_THEME, {
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

const known = new Set(monaco.languages.getLanguages().map((l) => l.id));

/** A language id Monaco knows, else plain text. */
export function monacoLanguage(id: string): string {
  return known.has(id) ? id : 'plaintext';
}

export { monaco };
