// uvu prints dots and a summary, and has no reporter option: flowfix brings
// one inside its own command, never in the repository. A module preloaded
// with NODE_OPTIONS (`--import=data:…`, so no file has to reach the sandbox)
// rewrites uvu's runner as it loads — ESM through a load hook, CommonJS
// through Module's compile step — so that each test's verdict is also handed
// to a recorder, which writes TAP (node-tap's layout: a subtest per file) to
// flowfix-report.tap when the process exits. The four lines it hooks
// (`write(PASS);`, `write(FAIL);`, `let name = group.shift();` and the
// summary's `Total:`) are the same in uvu 0.3 through 0.5. A process that
// ends before uvu's summary (a test file that throws on import, an exit in a
// test) writes no plan, which the TAP reader takes as a run cut short. Node
// processes that never load uvu (a build step, a child the tests spawn)
// write nothing.

/** The rewrite of uvu's dist/index.{js,mjs}, shared by both hooks (its source text goes into each). */
const PATCH = `(src) => String(src)
  .replace('write(PASS);', 'write(PASS);globalThis.__flowfixUvu&&globalThis.__flowfixUvu.test(name,test.name);')
  .replace('write(FAIL);', 'write(FAIL);globalThis.__flowfixUvu&&globalThis.__flowfixUvu.test(name,test.name,err);')
  .replace('let name = group.shift();', 'let name = group.shift();globalThis.__flowfixUvu&&globalThis.__flowfixUvu.file(name);')
  .replace("write('\\\\n  Total:", "globalThis.__flowfixUvu&&globalThis.__flowfixUvu.done();write('\\\\n  Total:")
  + ';globalThis.__flowfixUvu&&globalThis.__flowfixUvu.loaded();'`;

const UVU_DIST = String.raw`/[\\/]uvu[\\/]dist[\\/]index\.m?js$/`;

/** The ESM load hook (runs in Node's hooks thread). */
const HOOKS = `const patch = ${PATCH};
export async function load(url, context, next) {
  const out = await next(url, context);
  if (!${UVU_DIST}.test(url.split('?')[0]) || out.source == null) return out;
  return { ...out, source: patch(out.source) };
}
`;

const dataUrl = (source: string) => `data:text/javascript;base64,${Buffer.from(source).toString('base64')}`;

/**
 * The CommonJS hook, compiled under a short file name so that the stack of
 * any module that fails to load names `flowfix-uvu-report.cjs`, not this
 * whole preload as a data URL.
 */
const CJS_HOOK = `(function (Module, patch) {
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    return compile.call(this, ${UVU_DIST}.test(filename) ? patch(content) : content, filename);
  };
})`;

/**
 * The preload: the recorder, the CommonJS hook, the ESM hook's registration,
 * the report at exit. uvu names a file relative to the folder it was given
 * (`uvu tests` → "index.js"): the report names it from the working folder
 * ("tests/index.js") when that file exists.
 */
const PRELOAD = `import Module, { register } from 'node:module';
import { existsSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { runInThisContext } from 'node:vm';
const patch = ${PATCH};
runInThisContext(${JSON.stringify(CJS_HOOK)}, { filename: 'flowfix-uvu-report.cjs' })(Module, patch);
if (typeof register === 'function') register(${JSON.stringify(dataUrl(HOOKS))});
const files = [];
let current = null;
let loaded = false;
let done = false;
function folder() {
  const argv = process.argv;
  const at = argv.findIndex((a) => /(\\.bin[\\\\/]uvu|uvu[\\\\/]bin\\.js)$/.test(a));
  if (at < 0) return '.';
  let cwd = '.';
  for (let i = at + 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-C' || a === '--cwd') { cwd = argv[++i] || '.'; continue; }
    if (a.startsWith('--cwd=')) { cwd = a.slice(6); continue; }
    if (/^(-r|--require|-i|--ignore)$/.test(a)) { i++; continue; }
    if (a.startsWith('-')) continue;
    return resolve(cwd, a);
  }
  return resolve(cwd);
}
const open = (name) => {
  let shown = name == null ? '(uvu)' : String(name);
  if (name != null) {
    const full = resolve(folder(), shown);
    if (existsSync(full)) shown = relative(process.cwd(), full).split('\\\\').join('/');
  }
  current = { name: shown, tests: [] };
  files.push(current);
};
globalThis.__flowfixUvu = {
  loaded() { loaded = true; },
  file: open,
  done() { done = true; },
  test(suite, name, err) {
    if (!current) open(null);
    current.tests.push({ name: suite ? suite + ' > ' + name : String(name), err });
  },
};
const plain = (s) => String(s).replace(/\\u001b\\[[0-9;]*m/g, '');
const line = (s) => plain(s).replace(/[\\r\\n#]+/g, ' ').trim() || '(unnamed)';
const yaml = (s) => JSON.stringify(plain(s).slice(0, 4000));
process.on('exit', () => {
  if (!loaded && files.length === 0) return;
  const out = ['TAP version 13'];
  files.forEach((f, i) => {
    out.push('# Subtest: ' + line(f.name));
    f.tests.forEach((t, j) => {
      out.push('    ' + (t.err ? 'not ok ' : 'ok ') + (j + 1) + ' - ' + line(t.name));
      if (t.err) {
        const e = t.err;
        out.push('      ---', '      message: ' + yaml(e && e.message != null ? e.message : e));
        if (e && e.operator) out.push('      operator: ' + yaml(e.operator));
        if (e && e.details) out.push('      details: ' + yaml(e.details));
        if (e && e.stack) out.push('      stack: ' + yaml(String(e.stack).split('\\n').slice(1, 8).join('\\n')));
        out.push('      ...');
      }
    });
    out.push('    1..' + f.tests.length, (f.tests.some((t) => t.err) ? 'not ok ' : 'ok ') + (i + 1) + ' - ' + line(f.name));
  });
  if (done) out.push('1..' + files.length);
  else out.push('# uvu ended before its summary: the run was cut short');
  try { writeFileSync('flowfix-report.tap', out.join('\\n') + '\\n'); } catch {}
});
`;

/** NODE_OPTIONS' word that loads the reporter; the command keeps the environment's own options before it. */
export function uvuReporterImport(): string {
  return `--import=${dataUrl(PRELOAD)}`;
}

/** A command as a person reads it: the reporter's inline module named, not spelled out in base64. */
export function shownCommand(command: string): string {
  return command.replace(/--import=data:text\/javascript;base64,[A-Za-z0-9+/=]{200,}/g, "--import=<flowfix's uvu reporter>");
}
