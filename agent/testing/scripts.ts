// What a package.json's scripts run, read the way npm runs them: the test
// script (after `pretest`), followed through `npm run X`, `yarn X`, `pnpm X`,
// `npm test` and run-s/npm-run-all, split into shell steps, each step's
// program found behind its environment words and wrappers (npx, cross-env,
// nyc, c8, istanbul cover). Nothing is run: this is text in, steps out.

/** One shell step of a script, with what flowfix needs to re-run it with a reporter of its own. */
export interface ScriptStep {
  /** the script it came from (test, pretest, tests-only, …) */
  script: string;
  /** leading VAR=value words (cross-env's included), kept in front of the program */
  env: string[];
  /** the program's words up to its entry point: ['jest'], ['node', '--experimental-vm-modules', 'node_modules/jest/bin/jest.js'] */
  program: string[];
  /** the program's name: the entry point's basename without `.js` (jest, mocha, node, tsc, …) */
  bin: string;
  /** the words after the program */
  args: string[];
  /** the step's output was piped into a formatter (tap-spec, faucet): the program's own output is the report */
  piped: boolean;
  /** the step as the script wrote it */
  text: string;
}

/** Shell words, quotes kept as written (the words are put back into a command as they were). */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      cur += c;
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) cur += text[++i];
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      cur += c;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += c + text[++i];
    } else if (/\s/.test(c)) {
      if (cur) words.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) words.push(cur);
  return words;
}

/** A script split at `&&`, `||`, `;` and `&` outside quotes; a step piped into another keeps its left side, marked. */
export function splitSteps(script: string): Array<{ text: string; piped: boolean }> {
  const out: Array<{ text: string; piped: boolean }> = [];
  let cur = '';
  let quote: string | null = null;
  let pipedAt = -1;
  const push = () => {
    const text = (pipedAt >= 0 ? cur.slice(0, pipedAt) : cur).trim();
    if (text) out.push({ text, piped: pipedAt >= 0 });
    cur = '';
    pipedAt = -1;
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (quote) {
      cur += c;
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      cur += c;
      continue;
    }
    const two = script.slice(i, i + 2);
    if (two === '&&' || two === '||') {
      push();
      i++;
      continue;
    }
    if (c === ';' || c === '&' || c === '\n') {
      push();
      continue;
    }
    if (c === '|') {
      if (pipedAt < 0) pipedAt = cur.length;
      cur += c;
      continue;
    }
    cur += c;
  }
  push();
  return out;
}

const ENV_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Wrappers that run the program after their own options (coverage, env loaders); their options are dropped with them. */
const COVERAGE_WRAPPERS = new Set(['nyc', 'c8', 'istanbul', 'borp-coverage']);
/** Programs a wrapper's options end at. */
const PROGRAM_WORDS = new Set([
  'node',
  'tsx',
  'ts-node',
  'npm',
  'pnpm',
  'yarn',
  'npx',
  'jest',
  'vitest',
  'mocha',
  '_mocha',
  'ts-mocha',
  'ava',
  'tap',
  'tape',
  'uvu',
  'bnt',
  'cross-env',
  'react-scripts',
]);

const basename = (word: string) =>
  word
    .replace(/^['"]|['"]$/g, '')
    .split('/')
    .pop()!
    .replace(/\.(c|m)?js$/, '');

/**
 * The program of one step, behind env words and wrappers. `node <file>` names
 * the file's package when it is a runner's entry (`node_modules/jest/bin/jest.js`
 * → jest, `node_modules/.bin/mocha` → mocha).
 */
export function parseStep(text: string, script: string, piped = false): ScriptStep {
  let words = shellWords(text);
  const env: string[] = [];
  for (;;) {
    while (words.length && ENV_WORD.test(words[0]!)) env.push(words.shift()!);
    const first = words[0] ? basename(words[0]) : '';
    if (first === 'cross-env' || first === 'cross-env-shell' || first === 'env') {
      words.shift();
      continue;
    }
    if (first === 'npx') {
      words.shift();
      while (words.length && words[0]!.startsWith('-')) words.shift();
      continue;
    }
    if (first === 'pnpm' && words[1] === 'exec') {
      words = words.slice(2);
      continue;
    }
    if (COVERAGE_WRAPPERS.has(first)) {
      words.shift();
      if (first === 'istanbul' && /^(cover|test)$/.test(words[0] ?? '')) words.shift();
      // the wrapper's own options end at the first word that is a program (or after `--`)
      const at = words.findIndex((w) => w === '--' || PROGRAM_WORDS.has(basename(w)));
      words = at < 0 ? [] : words[at] === '--' ? words.slice(at + 1) : words.slice(at);
      // `istanbul cover _mocha -- -R spec`: the program's own options come after a `--`
      const dd = words.indexOf('--');
      if (first === 'istanbul' && dd > 0) words = [...words.slice(0, dd), ...words.slice(dd + 1)];
      continue;
    }
    break;
  }
  let programLength = words.length ? 1 : 0;
  let bin = words[0] ? basename(words[0]) : '';
  if (bin === 'node' || bin === 'tsx' || bin === 'ts-node') {
    // node's own options, then a script (a runner's entry point, or the tests themselves)
    let i = 1;
    while (i < words.length && words[i]!.startsWith('-')) {
      // options that take a separate value
      if (/^(-r|--require|--import|--loader|--experimental-loader|-C|--conditions|--env-file)$/.test(words[i]!)) i++;
      i++;
    }
    const entry = words[i];
    const runner = entry ? /node_modules\/(?:\.bin\/([\w-]+)|(jest|mocha|ava|tap|tape|vitest|uvu)\/)/.exec(entry.replace(/^['"]|['"]$/g, '')) : null;
    if (runner) {
      bin = runner[1] ?? runner[2]!;
      programLength = i + 1;
    } else {
      programLength = i;
    }
  }
  if (bin === 'react-scripts' && words[1] === 'test') {
    bin = 'jest';
    programLength = 2;
  }
  return { script, env, program: words.slice(0, programLength), bin, args: words.slice(programLength), piped, text };
}

const RUN_ALL = new Set(['run-s', 'run-p', 'npm-run-all', 'npm-run-all2']);
const PM = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Package-manager commands that are not a script name (`pnpm install`, `yarn add`). */
const PM_COMMANDS = new Set([
  'install',
  'i',
  'ci',
  'add',
  'remove',
  'exec',
  'dlx',
  'x',
  'link',
  'pack',
  'publish',
  'audit',
  'outdated',
  'why',
  'list',
  'ls',
  'prune',
  'dedupe',
  'rebuild',
  'workspace',
  'workspaces',
]);

/** Script names a run-s/npm-run-all pattern names (`test:*`, `lint:**`), in package.json order. */
function matchScripts(scripts: Record<string, string>, pattern: string): string[] {
  if (!/[*?]/.test(pattern)) return scripts[pattern] !== undefined ? [pattern] : [];
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*/g, '.+')
      .replace(/\*/g, '[^:]+')
      .replace(/\?/g, '.')}$`,
  );
  return Object.keys(scripts).filter((name) => re.test(name));
}

/**
 * The steps a script runs, in order, following other scripts it runs (npm
 * runs `preX` first). Depth-bounded, and a script met twice is not expanded
 * again (a loop in package.json is the repository's bug, not a hang of ours).
 */
export function scriptSteps(scripts: Record<string, string>, name: string, seen = new Set<string>()): ScriptStep[] {
  // `pnpm run /^test:/`: every script the regular expression names, in package.json order
  const regex = /^\/(.+)\/$/.exec(name);
  if (regex) {
    let re: RegExp;
    try {
      re = new RegExp(regex[1]!);
    } catch {
      return [];
    }
    return Object.keys(scripts)
      .filter((n) => re.test(n))
      .flatMap((n) => scriptSteps(scripts, n, seen));
  }
  if (seen.has(name) || seen.size > 40 || scripts[name] === undefined) return [];
  seen.add(name);
  const steps: ScriptStep[] = [];
  if (scripts[`pre${name}`] !== undefined) steps.push(...scriptSteps(scripts, `pre${name}`, seen));
  // npm runs postX after X too; not after test (posttest is lint and audits, often on the network)
  const post = name !== 'test' && !name.startsWith('post') && scripts[`post${name}`] !== undefined ? `post${name}` : undefined;
  for (const { text, piped } of splitSteps(scripts[name]!)) {
    const step = parseStep(text, name, piped);
    const [w0, w1, ...rest] = [...step.program, ...step.args];
    const pm = w0 ? basename(w0) : '';
    if (PM.has(pm)) {
      // npm run X / npm run-script X / yarn run X / pnpm run X / bun run X, with flags before the name
      const words = [w1, ...rest].filter((w): w is string => w !== undefined);
      let i = 0;
      const isRun = /^(run|run-script|rum|urn)$/.test(words[0] ?? '');
      if (isRun) i++;
      while (i < words.length && words[i]!.startsWith('-')) i++;
      const target = words[i];
      if (pm === 'npm' && !isRun && (target === 'test' || target === 't')) {
        steps.push(...scriptSteps(scripts, 'test', seen));
        continue;
      }
      if (target && (isRun || (pm !== 'npm' && !PM_COMMANDS.has(target)))) {
        if (scripts[target] !== undefined || (pm === 'pnpm' && /^\/.+\/$/.test(target))) {
          steps.push(...scriptSteps(scripts, target, seen));
          continue;
        }
        // `pnpm vitest`, `yarn jest`: a package's binary, not a script
        if (!isRun && pm !== 'npm') {
          steps.push(parseStep([...step.env, ...words.slice(i)].join(' '), name, piped));
          continue;
        }
      }
      steps.push(step);
      continue;
    }
    if (RUN_ALL.has(pm)) {
      for (const word of [w1, ...rest]) {
        if (!word || word.startsWith('-')) continue;
        for (const target of matchScripts(scripts, word.replace(/^['"]|['"]$/g, ''))) steps.push(...scriptSteps(scripts, target, seen));
      }
      continue;
    }
    steps.push(step);
  }
  if (post) steps.push(...scriptSteps(scripts, post, seen));
  return steps;
}

/** The step put back together: env words, the program, the given arguments. */
export function stepCommand(step: Pick<ScriptStep, 'env' | 'program'>, args: string[]): string {
  return [...step.env, ...step.program, ...args].join(' ');
}

/**
 * Removes options (and their values) from a step's arguments. `flags` are
 * options without a value; `valued` take one (`--reporter x` or `--reporter=x`).
 */
export function dropOptions(args: string[], flags: readonly string[], valued: readonly string[] = []): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = a.split('=')[0]!;
    if (flags.includes(name)) continue;
    if (valued.includes(name)) {
      if (!a.includes('=')) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}
