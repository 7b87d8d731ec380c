#!/usr/bin/env node
// `npm run test:deploy`: the container deployment (Containerfile, compose.yaml),
// built and run on this machine, end to end. Not part of `npm test`: a cold
// run takes about half an hour on 2 cores (the base and the image), a warm
// one (layers cached) several minutes.
//   1. a local base image from Debian packages (mmdebstrap) plus this
//      machine's Node, and on it a PostgreSQL stand-in from Debian's
//      postgresql-15 (deploy/postgres-standin/): no image registry is
//      reachable here, so neither the official Node nor the official
//      PostgreSQL image can be pulled
//   2. the flowfix image with that base as BASE_IMAGE (layers cached between runs)
//   3. compose.yaml up with podman-compose, two workers; waits for the web
//      server's healthcheck
//   4. the first admin (the documented one-liner), a repository and a CI token
//   5. a failing change reported by the CLI inside the image (`flowfix report`),
//      repaired by a worker container in the sandbox
//   6. the fix accepted in Chromium (playwright-core, /usr/bin/chromium): a
//      commit on the change's branch
//   7. a second run; the worker container holding it killed (SIGKILL) mid-run;
//      the run finishes on the other worker with one fix and its events'
//      sequence numbers unbroken
//   8. figures: the image's size, start to healthy, a run's wall time in a
//      container and the same repair on the host
// Everything it started is removed at the end (containers, volumes, network,
// temporary files); the images stay, as the layer cache of the next run.
//   --keep           leave the stack up (prints how to remove it)
//   --rebuild-base   build the base image again even if it exists
//   --no-build       use the images already built (a second look at the stack)
//   --worktree       build from the working tree as it is (default: the
//                    committed HEAD, exported with git archive, so that
//                    uncommitted work in a shared checkout cannot break the build)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEEP = process.argv.includes('--keep');
const REBUILD_BASE = process.argv.includes('--rebuild-base');
const WORKTREE = process.argv.includes('--worktree');
const NO_BUILD = process.argv.includes('--no-build');
const PROJECT = 'flowfix-deploytest';
const NODE_VERSION = process.versions.node;
const BASE_IMAGE = `localhost/flowfix-base:bookworm-node${NODE_VERSION}`;
const PG_IMAGE = 'localhost/flowfix-postgres-standin:15';
const IMAGE = 'localhost/flowfix:deploytest';
const APP_UID = 10001;
const WORKERS = 2;
const PORT = 3900 + Math.floor(Math.random() * 90);
const BASE_URL = `http://127.0.0.1:${PORT}`;
const ADMIN = { email: 'admin@deploy.test', password: `pw-${randomBytes(9).toString('hex')}` };
const PY_TEST = 'python3 -m pytest -q -p no:cacheprovider --junitxml=junit.xml tests';

const started = Date.now();
const figures = {};
const work = fs.mkdtempSync('/var/tmp/flowfix-deploytest-');
const env = { ...process.env };

function out(line) {
  process.stdout.write(`${line}\n`);
}
function step(line) {
  out(`\n• ${line} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

/** Runs a command, its output shown; throws with its exit status. */
function show(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status ?? r.signal}`);
}

/** Runs a command and returns its stdout; throws with its stderr. */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status ?? r.signal}\n${(r.stderr || r.stdout || '').trim()}`);
  return r.stdout.trim();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what, fn, { timeoutMs = 300_000, everyMs = 1000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await sleep(everyMs);
  }
}

// ───── the machine ─────

function preflight() {
  const missing = ['podman', 'podman-compose', 'mmdebstrap', 'git', '/usr/bin/chromium'].filter((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status !== 0);
  if (missing.length > 0) {
    throw new Error(
      `missing: ${missing.join(', ')} (apt-get install -y podman podman-compose mmdebstrap buildah crun fuse-overlayfs slirp4netns uidmap git chromium)`,
    );
  }
}

/**
 * A container must start here. On a machine that is itself a sandbox,
 * podman's default limits (RLIMIT_NOFILE 1048576) exceed the hard limits it
 * has, and crun refuses a hybrid cgroup layout: then a containers.conf of
 * this run sets the limits to what the machine allows and uses runc.
 */
function ensureContainersStart() {
  const probe = () => spawnSync('podman', ['run', '--rm', '--network', 'none', BASE_IMAGE, 'true'], { env, encoding: 'utf8' });
  let r = probe();
  if (r.status === 0) return;
  out(`  podman run failed with the defaults: ${r.stderr.trim().split('\n').pop()}`);
  const limits = fs.readFileSync('/proc/self/limits', 'utf8');
  const hard = (name) => Number(new RegExp(`^${name}\\s+\\S+\\s+(\\S+)`, 'm').exec(limits)?.[1]) || 4096;
  const conf = path.join(work, 'containers.conf');
  const runtime = spawnSync('sh', ['-c', 'command -v runc']).status === 0 ? 'runtime = "runc"\n' : '';
  fs.writeFileSync(
    conf,
    `[containers]\ndefault_ulimits = ["nofile=${hard('Max open files')}:${hard('Max open files')}", "nproc=32768:32768"]\n[engine]\n${runtime}cgroup_manager = "cgroupfs"\nevents_logger = "file"\n`,
  );
  env.CONTAINERS_CONF = conf;
  r = probe();
  if (r.status !== 0) throw new Error(`podman cannot run a container here, even with ${conf}: ${r.stderr.trim()}`);
  out(`  using ${conf}: this machine's limits, ${runtime ? 'runc' : 'crun'}, cgroupfs`);
}

function imageExists(ref) {
  return spawnSync('podman', ['image', 'exists', ref], { env }).status === 0;
}

/** The base: Debian bookworm (minbase) with the image's packages, and this machine's Node and npm in /usr/local. */
function buildBase() {
  if (imageExists(BASE_IMAGE) && !REBUILD_BASE) {
    out(`  ${BASE_IMAGE} exists (--rebuild-base to build it again)`);
    return;
  }
  const node = fs.realpathSync(process.execPath);
  const npmRoot = run('npm', ['root', '-g']);
  const tar = path.join(work, 'base.tar');
  const hook = [
    `cp -a ${node} "$1/usr/local/bin/node"`,
    'mkdir -p "$1/usr/local/lib/node_modules"',
    `cp -a ${path.join(npmRoot, 'npm')} "$1/usr/local/lib/node_modules/"`,
    'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"',
    'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
  ].join('; ');
  show('mmdebstrap', [
    '--mode=root',
    '--variant=minbase',
    '--include=ca-certificates,git,bubblewrap,python3,python3-pytest,tini,procps',
    '--dpkgopt=path-exclude=/usr/share/man/*',
    '--dpkgopt=path-exclude=/usr/share/doc/*',
    '--dpkgopt=path-include=/usr/share/doc/*/copyright',
    '--dpkgopt=path-exclude=/usr/share/locale/*',
    `--customize-hook=${hook}`,
    'bookworm',
    tar,
  ]);
  show('podman', [
    'import',
    '--change',
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    '--change',
    'CMD ["/bin/bash"]',
    tar,
    BASE_IMAGE,
  ]);
  fs.rmSync(tar);
}

/** What npm is configured with on this machine, passed to the image build. */
function npmBuildArgs() {
  const args = ['--build-arg', `NPM_CONFIG_REGISTRY=${run('npm', ['config', 'get', 'registry'])}`];
  // the CA bundle npm trusts (a TLS-inspecting proxy's CA among them), as a build secret
  const cafile = run('npm', ['config', 'get', 'cafile']);
  if (cafile && cafile !== 'null' && cafile !== 'undefined' && fs.existsSync(cafile)) args.push('--secret', `id=npm_ca,src=${cafile}`);
  for (const [key, arg] of [
    ['https-proxy', 'HTTPS_PROXY'],
    ['proxy', 'HTTP_PROXY'],
    ['noproxy', 'NO_PROXY'],
  ]) {
    const value = run('npm', ['config', 'get', key]);
    if (value && value !== 'null' && value !== 'undefined') args.push('--build-arg', `${arg}=${value}`);
  }
  return args;
}

/** The build context: the working tree (--worktree), or HEAD exported. */
function buildContext() {
  if (WORKTREE) return ROOT;
  const dir = path.join(work, 'context');
  fs.mkdirSync(dir);
  const archive = spawnSync('git', ['archive', '--format=tar', 'HEAD'], { cwd: ROOT, maxBuffer: 1024 * 1024 * 1024 });
  if (archive.status !== 0) throw new Error(`git archive HEAD: ${archive.stderr}`);
  run('tar', ['-x', '-C', dir], { input: archive.stdout });
  out(`  context: HEAD ${run('git', ['rev-parse', '--short', 'HEAD'])} (git archive; --worktree for the working tree)`);
  return dir;
}

function buildImages() {
  if (NO_BUILD && imageExists(IMAGE) && imageExists(PG_IMAGE)) {
    figures.imageMB = Math.round(Number(run('podman', ['image', 'inspect', IMAGE, '--format', '{{.Size}}'])) / 1e6);
    out(`  --no-build: ${IMAGE} as built before, ${figures.imageMB} MB`);
    return;
  }
  const t0 = Date.now();
  const context = buildContext();
  show('podman', [
    'build',
    '--network',
    'host',
    '--layers',
    '--build-arg',
    `BASE_IMAGE=${BASE_IMAGE}`,
    '-t',
    PG_IMAGE,
    path.join(context, 'deploy/postgres-standin'),
  ]);
  // --format docker keeps HEALTHCHECK (the OCI format has no field for it)
  show('podman', [
    'build',
    '--format',
    'docker',
    '--network',
    'host',
    '--layers',
    '--jobs',
    '1',
    '--build-arg',
    `BASE_IMAGE=${BASE_IMAGE}`,
    ...npmBuildArgs(),
    '-t',
    IMAGE,
    '-f',
    path.join(context, 'Containerfile'),
    context,
  ]);
  if (context !== ROOT) fs.rmSync(context, { recursive: true, force: true });
  figures.buildSeconds = Math.round((Date.now() - t0) / 1000);
  figures.imageMB = Math.round(Number(run('podman', ['image', 'inspect', IMAGE, '--format', '{{.Size}}'])) / 1e6);
  out(`  ${IMAGE}: ${figures.imageMB} MB`);
}

// ───── the repositories CI reports from ─────

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Dev Eloper',
  GIT_AUTHOR_EMAIL: 'dev@deploy.test',
  GIT_COMMITTER_NAME: 'Dev Eloper',
  GIT_COMMITTER_EMAIL: 'dev@deploy.test',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  // the repositories belong to the image's user; this script reads them as root
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'safe.directory',
  GIT_CONFIG_VALUE_0: '*',
};
const git = (cwd, ...args) => run('git', args, { cwd, env: { ...env, ...GIT_ENV } });

const CART_BASE =
  'def total(items):\n    return sum(price * qty for price, qty in items)\n\n\ndef average_price(items):\n    if not items:\n        return 0\n    return total(items) / len(items)\n';
const CART_HEAD = CART_BASE.replace('price * qty', 'price + qty') + '\n\ndef item_count(items):\n    return sum(qty for _, qty in items)\n';
const CART_TEST =
  'from shop.cart import total, average_price\n\n\ndef test_total():\n    assert total([(5, 3), (1, 2)]) == 17\n\n\ndef test_average_empty():\n    assert average_price([]) == 0\n\n\ndef test_average():\n    assert average_price([(2, 1), (4, 1)]) == 3\n';

/**
 * A Python project (pytest) whose branch feature/total breaks total(), as
 * a checkout CI works in (`work`) and the bare repository flowfix clones
 * from and pushes to (`shop.git`), both under one folder the containers see
 * at /srv/repos, owned by the image's user.
 */
function createRepositories() {
  const repos = path.join(work, 'repos');
  const checkout = path.join(repos, 'work');
  fs.mkdirSync(path.join(checkout, 'shop'), { recursive: true });
  fs.mkdirSync(path.join(checkout, 'tests'));
  git(checkout, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(checkout, '.gitignore'), 'junit.xml\n__pycache__/\n');
  fs.writeFileSync(path.join(checkout, 'shop/__init__.py'), '');
  fs.writeFileSync(path.join(checkout, 'shop/cart.py'), CART_BASE);
  fs.writeFileSync(path.join(checkout, 'tests/__init__.py'), '');
  fs.writeFileSync(path.join(checkout, 'tests/test_cart.py'), CART_TEST);
  git(checkout, 'add', '-A');
  git(checkout, 'commit', '-q', '-m', 'base: cart with tests');
  const base = git(checkout, 'rev-parse', 'HEAD');
  git(checkout, 'checkout', '-q', '-b', 'feature/total');
  fs.writeFileSync(path.join(checkout, 'shop/cart.py'), CART_HEAD);
  git(checkout, 'commit', '-q', '-am', 'item_count, and a slip in total');
  const head = git(checkout, 'rev-parse', 'HEAD');
  git(repos, 'clone', '-q', '--bare', checkout, 'shop.git');
  run('chown', ['-R', `${APP_UID}:${APP_UID}`, repos]);
  return { repos, checkout, base, head, bare: path.join(repos, 'shop.git') };
}

// ───── the stack ─────

function composeArgs() {
  return ['-p', PROJECT, '-f', 'compose.yaml', '-f', path.join(work, 'compose.test.yaml')];
}

function writeComposeOverride(repos) {
  // the repositories at the same path in every container; a killed worker stays down
  const mount = `      - ${repos}:/srv/repos\n`;
  fs.writeFileSync(path.join(work, 'compose.test.yaml'), `services:\n  web:\n    volumes:\n${mount}  worker:\n    restart: 'no'\n    volumes:\n${mount}`);
}

const containers = (service) =>
  run('podman', [
    'ps',
    '-a',
    '--filter',
    `label=io.podman.compose.project=${PROJECT}`,
    '--filter',
    `label=com.docker.compose.service=${service}`,
    '--format',
    '{{.Names}}',
  ])
    .split('\n')
    .filter(Boolean);
const one = (service) => {
  const names = containers(service);
  if (names.length !== 1) throw new Error(`expected one ${service} container, found ${names.join(', ') || 'none'}`);
  return names[0];
};

function psql(sql) {
  return run('podman', ['exec', one('postgres'), 'psql', '-U', 'flowfix', '-d', 'flowfix', '-At', '-F', '|', '-c', sql]);
}

async function upAndHealthy() {
  const t0 = Date.now();
  show('podman-compose', [...composeArgs(), 'up', '-d']);
  const web = await waitFor('the web container', async () => containers('web')[0], { timeoutMs: 60_000 });
  // podman runs HEALTHCHECK from systemd timers, absent here: the check is run by hand
  await waitFor(
    'the web container to be healthy',
    async () => {
      spawnSync('podman', ['healthcheck', 'run', web], { env });
      return run('podman', ['inspect', web, '--format', '{{.State.Health.Status}}']) === 'healthy';
    },
    { timeoutMs: 600_000, everyMs: 1000 },
  );
  figures.startToHealthySeconds = Math.round((Date.now() - t0) / 1000);
  const res = await fetch(`${BASE_URL}/api/health`);
  if (!res.ok) throw new Error(`GET /api/health from the host: HTTP ${res.status}`);
  out(`  healthy after ${figures.startToHealthySeconds} s; ${BASE_URL}/api/health answers ${res.status}`);
}

async function workersReady() {
  await waitFor(
    `${WORKERS} workers taking runs`,
    async () => containers('worker').filter((c) => run('podman', ['logs', c]).includes('"event":"worker_started"')).length === WORKERS,
    { timeoutMs: 300_000, everyMs: 2000 },
  );
  for (const c of containers('worker')) {
    const sandbox = run('podman', ['logs', c])
      .split('\n')
      .find((l) => l.includes('"event":"sandbox"'));
    out(`  ${c}: ${sandbox}`);
    if (!sandbox?.includes('"ok":true')) throw new Error(`${c} cannot sandbox: ${sandbox}`);
  }
}

// ───── the browser, the API, the CLI ─────

async function signIn() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await browser.newPage({ baseURL: BASE_URL });
  await page.goto('/signin');
  await page.getByTestId('signin-email').fill(ADMIN.email);
  await page.getByTestId('signin-password').fill(ADMIN.password);
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('current-user').waitFor({ timeout: 60_000 });
  return { browser, page };
}

async function api(page, method, url, data) {
  const res = await page.request.fetch(url, { method, data, headers: { origin: BASE_URL } });
  const body = await res.text();
  if (!res.ok()) throw new Error(`${method} ${url}: HTTP ${res.status()} ${body}`);
  return JSON.parse(body);
}

/** CI's step, inside the web container: the tests, then `flowfix report` (the image's CLI). */
function reportFromCli({ token, repository, change, base }) {
  const script = [
    'cd /srv/repos/work',
    `git checkout -q feature/total`,
    `python3 -m pytest -q -p no:cacheprovider --junitxml=/tmp/junit-${change}.xml tests >/dev/null || true`,
    `flowfix report --junit /tmp/junit-${change}.xml --repository ${repository} --change ${change} --branch feature/total --base ${base} --server http://127.0.0.1:3000 --json`,
  ].join(' && ');
  const answer = JSON.parse(run('podman', ['exec', '-e', `FLOWFIX_TOKEN=${token}`, '-e', `GIT_CONFIG_GLOBAL=/dev/null`, one('web'), 'sh', '-c', script]));
  if (!answer.changeId || answer.failures < 1) throw new Error(`flowfix report: ${JSON.stringify(answer)}`);
  return answer.changeId;
}

function runOf(changeId) {
  const row = psql(
    `select id, status, attempt, coalesce(extract(epoch from "finishedAt" - "startedAt"), -1) from "Run" where "changeId" = '${changeId}' order by "createdAt" desc limit 1`,
  );
  if (!row) return undefined;
  const [id, status, attempt, seconds] = row.split('|');
  return { id, status, attempt: Number(attempt), seconds: Number(seconds) };
}

/** The worker containers whose log shows them claiming `runId`, in order. */
function claimedBy(runId) {
  const found = [];
  for (const c of containers('worker')) {
    for (const line of run('podman', ['logs', c]).split('\n')) {
      if (line.includes('"event":"claim"') && line.includes(runId)) found.push({ container: c, at: JSON.parse(line).t });
    }
  }
  return found.sort((a, b) => a.at.localeCompare(b.at)).map((f) => f.container);
}

const TERMINAL = ['FIXED', 'NO_FIX', 'FAILED', 'CANCELLED'];

async function runEnds(changeId, timeoutMs = 600_000) {
  const r = await waitFor(
    `the run of change ${changeId} to end`,
    async () => {
      const current = runOf(changeId);
      return current && TERMINAL.includes(current.status) ? current : undefined;
    },
    { timeoutMs, everyMs: 2000 },
  );
  if (r.status !== 'FIXED') throw new Error(`run ${r.id} ended ${r.status}: ${psql(`select "exitReason", "exitDetail" from "Run" where id = '${r.id}'`)}`);
  return r;
}

/** A run's events have seq 1..n (or 0..n-1), each once; it has exactly one fix. */
function checkRunIntegrity(runId) {
  const [count, distinct, min, max] = psql(`select count(*), count(distinct seq), min(seq), max(seq) from "RunEvent" where "runId" = '${runId}'`)
    .split('|')
    .map(Number);
  if (count === 0 || count !== distinct || max - min + 1 !== count)
    throw new Error(`run ${runId}: ${count} events, ${distinct} distinct seq, from ${min} to ${max}`);
  const fixes = Number(psql(`select count(*) from "Fix" where "runId" = '${runId}'`));
  if (fixes !== 1) throw new Error(`run ${runId} has ${fixes} fixes`);
  return { events: count };
}

async function acceptInBrowser(page, changeId) {
  await page.goto(`/changes/${changeId}`);
  const status = page.getByTestId('fix-status');
  await waitFor('the fix to show READY', async () => (await status.getAttribute('data-status')) === 'READY', { timeoutMs: 60_000 });
  await page.getByTestId('fix-accept').click();
  await page.getByTestId('fix-decision-ok').waitFor({ timeout: 120_000 });
  await waitFor('the fix to show APPLIED', async () => (await status.getAttribute('data-status')) === 'APPLIED', { timeoutMs: 60_000 });
}

/** `flowfix repair` of the same change, timed: in a worker container, and on this machine. */
function timeRepairs(repo) {
  const args = ['repair', '--base', repo.base, '--head', repo.head, '--language', 'python', '--test-command', PY_TEST, '--junit', 'junit.xml', '--json'];
  // exit 0: fixed (run() throws on any other status)
  const timed = (fn) => {
    const t0 = Date.now();
    fn();
    return Math.round((Date.now() - t0) / 100) / 10;
  };
  const worker = containers('worker').find((c) => run('podman', ['inspect', c, '--format', '{{.State.Status}}']) === 'running');
  figures.repairInContainerSeconds = timed(() =>
    run('podman', ['exec', '-e', 'GIT_CONFIG_GLOBAL=/dev/null', worker, 'flowfix', ...args, '--repo', '/srv/repos/shop.git']),
  );
  // on the host, a copy this user owns (git refuses another user's repository)
  const own = path.join(work, 'host-shop.git');
  run('cp', ['-r', repo.bare, own]);
  figures.repairOnHostSeconds = timed(() => run(process.execPath, [path.join(ROOT, 'bin/flowfix.mjs'), ...args, '--repo', own]));
}

// ───── the whole ─────

async function main() {
  preflight();
  step(`the base image ${BASE_IMAGE} (Debian bookworm from Debian's packages, Node ${NODE_VERSION} from this machine)`);
  buildBase();
  ensureContainersStart();
  step(`the images: ${PG_IMAGE} (PostgreSQL stand-in) and ${IMAGE} (Containerfile, BASE_IMAGE=${BASE_IMAGE})`);
  buildImages();

  step('repositories to repair');
  const repo = createRepositories();
  writeComposeOverride(repo.repos);
  Object.assign(env, {
    FLOWFIX_IMAGE: IMAGE,
    POSTGRES_IMAGE: PG_IMAGE,
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    NEXTAUTH_SECRET: randomBytes(32).toString('base64'),
    NEXTAUTH_URL: BASE_URL,
    FLOWFIX_PORT: String(PORT),
    FLOWFIX_WORKERS: String(WORKERS),
  });

  step(`compose up: postgres, web, ${WORKERS} workers`);
  await upAndHealthy();
  await workersReady();

  step('the first admin, with the documented one-liner');
  show('podman', [
    'exec',
    '-e',
    `FLOWFIX_NEW_USER_PASSWORD=${ADMIN.password}`,
    one('web'),
    'npm',
    'run',
    '--silent',
    'user:create',
    '--',
    '--email',
    ADMIN.email,
    '--name',
    'Admin',
    '--roles',
    'admin,reviewer',
  ]);

  const status = run('podman', ['exec', one('web'), 'npm', 'run', '--silent', 'db:status']);
  if (!/Pending \(0\)/.test(status)) throw new Error(`npm run db:status in the web container:\n${status}`);
  out(`  ${status.split('\n').find((l) => l.startsWith('Pending'))} (npm run db:status in the web container)`);

  step('sign in (Chromium); a repository and a CI token through the admin API');
  const { browser, page } = await signIn();
  try {
    const settings = { language: 'python', test: PY_TEST, junitReport: 'junit.xml', timeLimits: { testSeconds: 120 } };
    const shop = (await api(page, 'POST', '/api/admin/repositories', { name: 'shop', gitUrl: '/srv/repos/shop.git', language: 'python', settings })).repository;
    // the same code with slow tests: time to kill its worker in the middle of a run
    const slow = (
      await api(page, 'POST', '/api/admin/repositories', {
        name: 'shop-slow',
        gitUrl: '/srv/repos/shop.git',
        language: 'python',
        settings: { ...settings, test: `sleep 4 && ${PY_TEST}` },
      })
    ).repository;
    const { token } = await api(page, 'POST', '/api/admin/tokens', { name: 'deploy test CI', allRepositories: false, repositoryIds: [shop.id, slow.id] });

    step('CI reports the failing change with the CLI; a worker container repairs it in the sandbox');
    const changeId = reportFromCli({ token, repository: 'shop', change: 'PR-1', base: repo.base });
    const first = await runEnds(changeId);
    const firstWorkers = claimedBy(first.id);
    const integrity = checkRunIntegrity(first.id);
    figures.runInContainerSeconds = Math.round(first.seconds * 10) / 10;
    out(`  run ${first.id}: ${first.status} by ${firstWorkers.join(', ')} in ${figures.runInContainerSeconds} s, ${integrity.events} events`);

    step('the reviewer accepts the fix in Chromium');
    const before = git(repo.bare, 'rev-parse', 'refs/heads/feature/total');
    await acceptInBrowser(page, changeId);
    const tip = git(repo.bare, 'rev-parse', 'refs/heads/feature/total');
    if (tip === before || git(repo.bare, 'rev-parse', `${tip}^`) !== before)
      throw new Error(`feature/total did not get one commit on top of ${before} (now ${tip})`);
    if (!git(repo.bare, 'show', `${tip}:shop/cart.py`).includes('price * qty')) throw new Error('the accepted commit does not restore price * qty');
    out(`  feature/total: ${before.slice(0, 8)} → ${tip.slice(0, 8)}, "${git(repo.bare, 'log', '-1', '--format=%s', tip)}"`);

    step('a second run; its worker container is killed mid-run');
    const slowChange = reportFromCli({ token, repository: 'shop-slow', change: 'PR-2', base: repo.base });
    const victim = await waitFor(
      'the second run to reach RED in a worker',
      async () => {
        const r = runOf(slowChange);
        if (!r || r.status !== 'RUNNING') return undefined;
        const red = psql(`select count(*) from "RunEvent" where "runId" = '${r.id}' and type = 'phase' and payload->>'phase' = 'red'`);
        return Number(red) > 0 ? { run: r, container: claimedBy(r.id)[0] } : undefined;
      },
      { timeoutMs: 300_000, everyMs: 500 },
    );
    show('podman', ['kill', '--signal', 'KILL', victim.container]);
    out(`  killed ${victim.container} holding run ${victim.run.id} (attempt ${victim.run.attempt})`);
    const second = await runEnds(slowChange);
    const holders = claimedBy(second.id);
    const secondIntegrity = checkRunIntegrity(second.id);
    const finisher = holders[holders.length - 1];
    if (finisher === victim.container || second.attempt < 2)
      throw new Error(`run ${second.id} was not finished by another worker: claims ${holders.join(', ')}, attempt ${second.attempt}`);
    out(
      `  run ${second.id}: ${second.status} on attempt ${second.attempt} by ${finisher} (claimed by ${holders.join(' then ')}), ${secondIntegrity.events} events, one fix`,
    );

    step('a backup as docs/deploy.md takes it (pg_dump -Fc), restored into a scratch database');
    const postgres = one('postgres');
    const dump = spawnSync('podman', ['exec', postgres, 'pg_dump', '-U', 'flowfix', '-Fc', 'flowfix'], { env, maxBuffer: 1024 * 1024 * 1024 });
    if (dump.status !== 0 || dump.stdout.length === 0) throw new Error(`pg_dump: ${dump.stderr}`);
    psql('create database restorecheck');
    run('podman', ['exec', '-i', postgres, 'pg_restore', '-U', 'flowfix', '-d', 'restorecheck', '--no-owner'], { input: dump.stdout });
    const count = (db) => run('podman', ['exec', postgres, 'psql', '-U', 'flowfix', '-d', db, '-At', '-c', 'select count(*) from "Run"']);
    if (count('restorecheck') !== count('flowfix'))
      throw new Error(`the restored database has ${count('restorecheck')} runs, the live one ${count('flowfix')}`);
    out(`  ${Math.round(dump.stdout.length / 1024)} KB dump; restored: ${count('restorecheck')} runs, as live`);

    step('figures: one repair in a worker container and on this machine');
    timeRepairs(repo);
  } finally {
    await browser.close();
  }

  out('\nfigures:');
  out(
    `  image ${IMAGE}: ${figures.imageMB} MB (${figures.buildSeconds === undefined ? 'not rebuilt' : `built in ${figures.buildSeconds} s, cached layers reused`})`,
  );
  out(`  compose up to healthy: ${figures.startToHealthySeconds} s`);
  out(`  a run in a worker container (claim to fix, offline policy): ${figures.runInContainerSeconds} s`);
  out(`  flowfix repair of the same change: ${figures.repairInContainerSeconds} s in a worker container, ${figures.repairOnHostSeconds} s on the host`);
  out(`\ntest:deploy passed in ${Math.round((Date.now() - started) / 1000)} s`);
}

function teardown() {
  if (KEEP) {
    out(`\n--keep: the stack is up at ${BASE_URL}; remove it with: podman-compose ${composeArgs().join(' ')} down -v && rm -rf ${work}`);
    return;
  }
  spawnSync('podman-compose', [...composeArgs(), 'down', '-v'], { cwd: ROOT, env, stdio: 'ignore' });
  const left = spawnSync('podman', ['ps', '-aq', '--filter', `label=io.podman.compose.project=${PROJECT}`], { env, encoding: 'utf8' }).stdout.trim();
  if (left) spawnSync('podman', ['rm', '-f', '-v', ...left.split('\n')], { env, stdio: 'ignore' });
  for (const volume of spawnSync('podman', ['volume', 'ls', '-q', '--filter', `label=io.podman.compose.project=${PROJECT}`], { env, encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)) {
    spawnSync('podman', ['volume', 'rm', '-f', volume], { env, stdio: 'ignore' });
  }
  spawnSync('podman', ['network', 'rm', '-f', `${PROJECT}_default`], { env, stdio: 'ignore' });
  fs.rmSync(work, { recursive: true, force: true });
}

main()
  .then(
    () => 0,
    (err) => {
      process.stderr.write(`\ntest:deploy FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
      for (const service of ['web', 'worker']) {
        for (const c of (() => {
          try {
            return containers(service);
          } catch {
            return [];
          }
        })()) {
          process.stderr.write(`\n--- last lines of ${c}:\n${spawnSync('podman', ['logs', '--tail', '30', c], { env, encoding: 'utf8' }).stdout}`);
        }
      }
      return 1;
    },
  )
  .then((code) => {
    teardown();
    process.exit(code);
  });
