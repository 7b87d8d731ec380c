#!/usr/bin/env node
// A real VS Code host for the editor e2e (e2e/editor.spec.ts): code-server
// from npm, installed once into ~/.cache/flowfix-code-server/VERSION
// (FLOWFIX_CODE_SERVER_CACHE overrides ~/.cache/flowfix-code-server) and reused.
// Outside the clone on purpose: CI runs every submission in a fresh clone, so
// a cache in its node_modules would rebuild the native modules (over 10 min)
// on every run; a fresh machine still builds it once, from npm, by this script. Idempotent: each step leaves a marker and is skipped next time;
// a step that fails stops with one line saying which and how to retry.
//
// Why by hand: code-server's own postinstall (lib/vscode's `npm install`,
// which builds native modules against downloaded Node headers) cannot run
// here, so it is installed with --ignore-scripts and its steps are done
// below, the native modules rebuilt against the system's Node headers
// (/usr/include/node) and ripgrep taken from the system (apt: ripgrep).
// 4.100.3 is the newest code-server whose Node engine (20) this machine meets.
//
//   node scripts/ensure-code-server.mjs      prints the code-server entry script's path
import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheBase = process.env.FLOWFIX_CODE_SERVER_CACHE ?? path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'flowfix-code-server');
export const cacheDir = path.join(cacheBase, CODE_SERVER_VERSION);
const pkgDir = path.join(cacheDir, 'node_modules', 'code-server');
const vscodeDir = path.join(pkgDir, 'lib', 'vscode');
export const codeServerEntry = path.join(pkgDir, 'out', 'node', 'entry.js');

const NATIVE = ['kerberos', 'node-pty', '@parcel/watcher', '@vscode/deviceid', '@vscode/spdlog', 'native-watchdog'];

function fail(step, detail) {
  const err = new Error(`code-server setup failed at "${step}": ${detail}\n(fix the cause, then run: node scripts/ensure-code-server.mjs)`);
  err.name = 'CodeServerSetupError';
  throw err;
}

function sh(step, cmd, args, cwd, env = {}) {
  try {
    execFileSync(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const out = `${err.stderr ?? ''}${err.stdout ?? ''}`.trim().split('\n').slice(-8).join('\n');
    fail(step, `${cmd} ${args.join(' ')} → ${err.status ?? err.code}\n${out}`);
  }
}

function which(bin) {
  try {
    return execFileSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

function step(name, fn) {
  const marker = path.join(cacheDir, `.done-${name}`);
  if (existsSync(marker)) return;
  fn();
  writeFileSync(marker, new Date().toISOString());
}

function log(msg) {
  if (!process.env.FLOWFIX_QUIET) process.stderr.write(`ensure-code-server: ${msg}\n`);
}

/** Installs code-server if needed; returns the path of its entry script. */
export function ensureCodeServer() {
  if (existsSync(path.join(cacheDir, '.ready'))) return codeServerEntry;
  // one setup at a time: another process's run is waited for
  mkdirSync(cacheDir, { recursive: true });
  const lock = path.join(cacheDir, '.lock');
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      const holder = Number(readFileSync(lock, 'utf8'));
      if (!isAlive(holder)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (existsSync(path.join(cacheDir, '.ready'))) return codeServerEntry;
      execFileSync('sleep', ['2']);
    }
  }
  try {
    return setUp();
  } finally {
    rmSync(lock, { force: true });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function setUp() {
  if (existsSync(path.join(cacheDir, '.ready'))) return codeServerEntry;
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== 20) fail('node version', `code-server ${CODE_SERVER_VERSION} needs Node 20, this is ${process.versions.node}`);
  // system packages: Kerberos headers for the kerberos module, ripgrep for search
  const needApt = [];
  if (!existsSync('/usr/include/gssapi/gssapi.h') && !existsSync('/usr/include/krb5.h')) needApt.push('libkrb5-dev');
  if (!which('rg')) needApt.push('ripgrep');
  if (needApt.length > 0) {
    if (process.getuid?.() !== 0) fail('system packages', `install them as root: apt-get install -y ${needApt.join(' ')}`);
    log(`apt-get install ${needApt.join(' ')}`);
    sh('system packages', 'apt-get', ['install', '-y', ...needApt], root, { DEBIAN_FRONTEND: 'noninteractive' });
  }
  if (!existsSync('/usr/include/node/node.h'))
    fail('node headers', 'the native modules are built against /usr/include/node (Debian: apt-get install -y libnode-dev, or nodejs from NodeSource)');
  mkdirSync(cacheDir, { recursive: true });
  if (!existsSync(path.join(cacheDir, 'package.json')))
    writeFileSync(path.join(cacheDir, 'package.json'), '{"name":"flowfix-code-server-cache","private":true}\n');

  step('npm-code-server', () => {
    log(`npm install code-server@${CODE_SERVER_VERSION} into ${path.relative(root, cacheDir)}`);
    sh('npm install code-server', 'npm', ['install', `code-server@${CODE_SERVER_VERSION}`, '--ignore-scripts', '--no-audit', '--no-fund'], cacheDir);
  });
  step('argon2', () => {
    log('npm rebuild argon2');
    sh('rebuild argon2', 'npm', ['rebuild', 'argon2'], cacheDir, { npm_config_nodedir: '/usr' });
  });
  step('vscode-deps', () => {
    log('npm install in lib/vscode (no scripts)');
    sh('lib/vscode dependencies', 'npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], vscodeDir);
  });
  for (const mod of NATIVE) {
    step(`native-${mod.replace(/\W/g, '_')}`, () => {
      log(`npm rebuild ${mod} against /usr/include/node`);
      try {
        sh(`native module ${mod}`, 'npm', ['rebuild', mod], vscodeDir, { npm_config_nodedir: '/usr' });
      } catch (err) {
        // node-pty's post-install builds pty.node, then fails generating a
        // compile_commands.json for editors (npx node-gyp without the nodedir); the module is built
        if (!(mod === 'node-pty' && existsSync(path.join(vscodeDir, 'node_modules', 'node-pty', 'build', 'Release', 'pty.node')))) throw err;
      }
    });
  }
  step('ripgrep', () => {
    const bin = path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
    mkdirSync(bin, { recursive: true });
    copyFileSync(which('rg'), path.join(bin, 'rg'));
    chmodSync(path.join(bin, 'rg'), 0o755);
  });
  step('links', () => {
    // what code-server's postinstall.sh does
    const link = (target, at) => {
      rmSync(at, { recursive: true, force: true });
      symlinkSync(target, at);
    };
    link('node_modules', path.join(vscodeDir, 'node_modules.asar'));
    link('code-linux.sh', path.join(vscodeDir, 'bin', 'remote-cli', 'code-server'));
    link('browser-linux.sh', path.join(vscodeDir, 'bin', 'helpers', 'browser.sh'));
  });
  step('extensions-deps', () => {
    log('npm install in lib/vscode/extensions');
    sh('built-in extensions', 'npm', ['install', '--omit=dev', '--no-audit', '--no-fund'], path.join(vscodeDir, 'extensions'));
  });
  if (!existsSync(codeServerEntry)) fail('check', `${codeServerEntry} is missing`);
  writeFileSync(path.join(cacheDir, '.ready'), new Date().toISOString());
  return codeServerEntry;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(ensureCodeServer());
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
