import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

// A client component that imports the database must fail `next build` with
// Next's server-only error, not bundle lib/db.ts (and whatever it reads) into
// the browser. A real `next build` of a two-file app that uses the project's
// own tsconfig (so '@/lib/db' and the `server-only` mapping for plain Node are
// exactly what the app sees). The probe app sits in a dot-folder inside the
// checkout because the bundler serves nothing from outside its root, which is
// the folder of package-lock.json.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const NEXT_BIN = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    extends: '../tsconfig.json',
    include: ['next-env.d.ts', '**/*.ts', '**/*.tsx'],
    exclude: ['node_modules', '.next'],
  }),
  'next.config.mjs': `export default { typescript: { ignoreBuildErrors: true }, turbopack: { root: ${JSON.stringify(ROOT)} } };\n`,
  'app/layout.tsx': `export default function Layout({ children }: { children: React.ReactNode }) {
  return <html><body>{children}</body></html>;
}\n`,
  'app/page.tsx': `import { Probe } from './probe';
export default function Page() {
  return <Probe />;
}\n`,
  'app/probe.tsx': `'use client';
import { resolveDbTarget } from '@/lib/db';
export function Probe() {
  return <p>{resolveDbTarget(undefined, '.').kind}</p>;
}\n`,
};

function nextBuild(cwd: string): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string | undefined> = { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' };
  delete env.NODE_TEST_CONTEXT;
  delete env.NEXT_DIST_DIR;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NEXT_BIN, 'build'], { cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('server-only marker', () => {
  let appDir: string;

  before(async () => {
    appDir = await fs.mkdtemp(path.join(ROOT, '.next-probe-'));
    for (const [file, content] of Object.entries(FILES)) {
      await fs.mkdir(path.dirname(path.join(appDir, file)), { recursive: true });
      await fs.writeFile(path.join(appDir, file), content);
    }
  });

  after(async () => {
    await fs.rm(appDir, { recursive: true, force: true });
  });

  test('next build refuses a client component that imports lib/db', async () => {
    const { code, output } = await nextBuild(appDir);
    assert.notEqual(code, 0, output);
    assert.match(output, /'server-only' cannot be imported from a Client Component module/, output);
    assert.match(output, /\.\/lib\/db\.ts \[Client Component Browser\]/, output);
  });
});
