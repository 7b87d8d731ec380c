// Monaco's editor worker (diff computation, word ranges), bundled from the
// local package so the browser never fetches it from a CDN.
import 'monaco-editor/editor/editor.worker';
