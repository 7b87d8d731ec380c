'use strict';
// flowfix's per-test coverage for node:test (agent/coverage/index.ts). Copied
// into the run's tmp folder and preloaded with NODE_OPTIONS=--require for one
// instrumented run of the target tests; nothing of it is written into the
// repository. NODE_V8_COVERAGE has V8 count every block; in each test file's
// process (node --test runs one per file and marks it with NODE_TEST_CONTEXT)
// root-level hooks write the counts around every test with v8.takeCoverage(),
// which also resets them, so each file holds exactly one test's execution.
// Other processes (the runner's parent, tools) are left alone.
const outDir = process.env.REPAIR_COVERAGE_DIR;
const root = process.env.REPAIR_COVERAGE_ROOT;
const v8Dir = process.env.NODE_V8_COVERAGE;
if (outDir && root && v8Dir && process.env.NODE_TEST_CONTEXT) {
  const v8 = require('node:v8');
  const fs = require('node:fs');
  const path = require('node:path');
  const { pathToFileURL } = require('node:url');
  const { threadId } = require('node:worker_threads');
  const { beforeEach, afterEach } = require('node:test');
  const rootUrl = `${pathToFileURL(root).href}/`;
  // V8 names a write coverage-<pid>-<ms>-<thread>.json: two writes in one
  // millisecond share a name, so each is taken away at once.
  const prefix = `coverage-${process.pid}-`;
  const suffix = `-${threadId}.json`;
  const log = path.join(outDir, `node-${process.pid}-${threadId}.jsonl`);
  // Node repeats every loaded module's source map (with its sources) in every
  // write: each map is kept once per process, without the sources.
  const mapsWritten = new Set();
  let seq = 0;
  const mine = (url) => url.startsWith(rootUrl) && !url.includes('/node_modules/');
  const compact = (raw) => {
    const data = JSON.parse(raw);
    const result = (data.result || [])
      .filter((s) => mine(s.url))
      .map((s) => ({ url: s.url, functions: s.functions.filter((f) => f.ranges.some((r) => r.count > 0)).map((f) => ({ ranges: f.ranges })) }))
      .filter((s) => s.functions.length > 0);
    const maps = {};
    for (const s of result) {
      const m = data['source-map-cache'] && data['source-map-cache'][s.url];
      if (!m || mapsWritten.has(s.url)) continue;
      mapsWritten.add(s.url);
      maps[s.url] = { lineLengths: m.lineLengths, data: m.data ? { mappings: m.data.mappings, sources: m.data.sources, sourceRoot: m.data.sourceRoot } : null };
    }
    return { result, 'source-map-cache': maps };
  };
  const take = (record) => {
    try {
      v8.takeCoverage();
      for (const f of fs.readdirSync(v8Dir)) {
        if (!f.startsWith(prefix) || !f.endsWith(suffix)) continue;
        const from = path.join(v8Dir, f);
        const raw = fs.readFileSync(from, 'utf8');
        fs.unlinkSync(from);
        if (record.kind !== 'test') continue;
        const name = `node-${process.pid}-${threadId}-${seq++}.json`;
        fs.writeFileSync(path.join(outDir, name), JSON.stringify(compact(raw)));
        fs.appendFileSync(log, `${JSON.stringify({ ...record, coverage: name })}\n`);
      }
    } catch {
      // coverage is an aid: a test run must never fail because of it
    }
  };
  // before each test: what ran since the last one (imports, suite hooks) is nobody's
  beforeEach(() => take({ kind: 'setup' }));
  afterEach((t) => take({ kind: 'test', name: t.name, file: process.argv[1] || '' }));
}
