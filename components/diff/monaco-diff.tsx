'use client';

import { DiffEditor, type DiffOnMount } from '@monaco-editor/react';
import { useEffect, useRef, useState } from 'react';
import { MONACO_THEMES, monacoLanguage } from './monaco-setup';
import { useResolvedTheme } from '../shell/use-theme';

// The Monaco diff editor for one file. Loaded only in the browser (through
// next/dynamic with ssr: false in fix-diff.tsx): Monaco touches `window` and
// `self` as soon as it is imported.

export interface MonacoDiffProps {
  path: string;
  language: string;
  original: string;
  modified: string;
  sideBySide: boolean;
  /** the modified side can be edited ("edit then accept") */
  editable: boolean;
  onModifiedChange?: (text: string) => void;
  height?: number;
}

export default function MonacoDiff({ path, language, original, modified, sideBySide, editable, onModifiedChange, height }: MonacoDiffProps) {
  // Monaco owns the text once mounted: a new `modified` prop (the parent keeps
  // the reviewer's edits) must not be pushed back into the model mid-typing,
  // which would drop keystrokes. The parent remounts (key) for another file.
  const [texts] = useState(() => ({ original, modified }));
  // follows the header's theme toggle (and the system, for System) while open
  const theme = useResolvedTheme();
  // tall enough for the longer side, within reason: short fixes get a short editor
  const lines = Math.max(texts.original.split('\n').length, texts.modified.split('\n').length);
  const frameHeight = height ?? Math.min(640, Math.max(140, lines * 19 + 24));
  const onChangeRef = useRef(onModifiedChange);
  useEffect(() => {
    onChangeRef.current = onModifiedChange;
  }, [onModifiedChange]);

  // @monaco-editor/react disposes the two models before the diff editor when
  // it unmounts, and Monaco warns "TextModel got disposed before
  // DiffEditorWidget model got reset". So the wrapper keeps the models and
  // they are disposed here once the editor is gone (after the unmount's
  // synchronous cleanups), unless a new editor already took them up.
  const models = useRef<Array<{ dispose(): void; isAttachedToEditor(): boolean }>>([]);
  useEffect(
    () => () => {
      const owned = models.current;
      models.current = [];
      queueMicrotask(() => owned.forEach((m) => m.isAttachedToEditor() || m.dispose()));
    },
    [],
  );

  const handleMount: DiffOnMount = (editor) => {
    const model = editor.getModel();
    if (model) models.current = [model.original, model.modified];
    const modifiedEditor = editor.getModifiedEditor();
    modifiedEditor.onDidChangeModelContent(() => onChangeRef.current?.(modifiedEditor.getValue()));
  };

  return (
    <div className="diff-editor-frame" data-testid="diff-editor" data-path={path} style={{ height: frameHeight }}>
      <DiffEditor
        height="100%"
        language={monacoLanguage(language)}
        original={texts.original}
        modified={texts.modified}
        originalModelPath={`inmemory://original/${path}`}
        modifiedModelPath={`inmemory://modified/${path}`}
        onMount={handleMount}
        keepCurrentOriginalModel
        keepCurrentModifiedModel
        theme={MONACO_THEMES[theme]}
        loading={<div className="muted small diff-loading">Loading the diff editor…</div>}
        options={{
          readOnly: !editable,
          originalEditable: false,
          // the names screen readers give the two sides (and their edit fields)
          originalAriaLabel: `${path}, before the fix`,
          modifiedAriaLabel: `${path}, after the fix${editable ? ' (editable)' : ''}`,
          accessibilityVerbose: true,
          renderSideBySide: sideBySide,
          useInlineViewWhenSpaceIsLimited: false,
          hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 3, revealLineCount: 20 },
          automaticLayout: true,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          renderOverviewRuler: false,
          fontSize: 12.5,
          lineNumbersMinChars: 3,
          wordWrap: 'off',
          diffAlgorithm: 'advanced',
        }}
      />
    </div>
  );
}
