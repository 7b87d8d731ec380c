import { z } from 'zod';
import type { Env } from '../lib/env';

// The three JSON columns of Repository (prisma/schema.prisma) and the optional
// `.flowfix.json` a repository may carry in its base revision. Every read of
// those columns goes through these schemas: a column written by an older
// version, or by hand, comes back with defaults filled in. Pure: the admin
// forms in the browser, the server and the agent share them; reading
// `.flowfix.json` out of git is lib/repositories/flowfix-file.ts.

export const LANGUAGES = ['typescript', 'javascript', 'python', 'java', 'go', 'other'] as const;
export const LanguageSchema = z.enum(LANGUAGES);
export type Language = z.infer<typeof LanguageSchema>;

/** How a run repairs: templates only, the model only, or templates first and the model when they find nothing. */
export const RUN_POLICIES = ['offline', 'llm', 'tiered'] as const;
export const RunPolicySchema = z.enum(RUN_POLICIES);
export type RunPolicy = z.infer<typeof RunPolicySchema>;

const command = z.string().trim().min(1).max(4000);
const seconds = (def: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(6 * 3600)
    .default(def);

const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name');

export const TimeLimitsSchema = z
  .object({
    installSeconds: seconds(900),
    buildSeconds: seconds(600),
    testSeconds: seconds(600),
    regressionSeconds: seconds(1800),
  })
  .prefault({});

/**
 * How to build and test a repository. Commands run through /bin/sh in the
 * run's workspace. The `test` command is a template that receives the target
 * tests: `{ids}` (test ids, shell-quoted), `{names}` (test names, shell-quoted),
 * `{files}` (their files, when the report names them) and `{namePattern}` (one
 * shell-quoted regular expression matching any of the names). The results are
 * always read from the JUnit report and filtered to the targets, so a command
 * that runs more tests than asked is fine.
 */
export const RepositorySettingsSchema = z.object({
  language: LanguageSchema.default('typescript'),
  install: command.optional(),
  build: command.optional(),
  /**
   * unset: taken from the repository at the base revision (its test script,
   * runner config and lock file: agent/testing/runners.ts), with the report,
   * install and build that runner needs
   */
  test: command.optional(),
  /** the full suite; defaults to `test` with no targets */
  regression: command.optional(),
  /** where the test command writes JUnit XML: a path, or a glob with * and ** (workspace-relative) */
  junitReport: z.string().trim().min(1).default('junit.xml'),
  timeLimits: TimeLimitsSchema,
  /**
   * per-test line coverage for localisation: one more run of the target
   * tests' command with a coverage bootstrap (agent/coverage), bounded like a
   * candidate's test run; off: localisation without it
   */
  coverage: z.boolean().default(true),
  /**
   * network for build and test commands; off means none at all; on means
   * HTTPS through the sandbox's egress proxy, never to loopback or private
   * addresses (lib/sandbox/egress.ts)
   */
  network: z.boolean().default(false),
  /** install usually needs the registry: only the `registries` are reachable */
  installNetwork: z.boolean().default(true),
  /** hosts ("host" or "host:port") an install may reach */
  registries: z.array(z.string().trim().min(1).max(300)).max(50).default(['registry.npmjs.org', 'registry.yarnpkg.com', 'pypi.org', 'files.pythonhosted.org']),
  /**
   * dependency lifecycle scripts (npm/yarn/pnpm install scripts, pip source
   * builds); off: npm_config_ignore_scripts, pip wheels only
   */
  allowInstallScripts: z.boolean().default(false),
  /** the sandbox's resource limits (lib/sandbox/limits.ts); unset ones keep their defaults */
  limits: z
    .object({
      memoryMb: z
        .number()
        .int()
        .min(64)
        .max(1024 * 1024),
      processes: z.number().int().min(16).max(1_000_000),
      cpuSeconds: z
        .number()
        .int()
        .min(1)
        .max(24 * 3600),
      fileSizeMb: z
        .number()
        .int()
        .min(1)
        .max(1024 * 1024),
      diskMb: z
        .number()
        .int()
        .min(1)
        .max(16 * 1024 * 1024),
    })
    .partial()
    .default({}),
  /** extra variables for every command; secret-looking names are dropped by agent/workspace/exec.ts */
  env: z.record(EnvNameSchema, z.string().max(4000)).default({}),
  /**
   * How a fix is proven (agent/gates/proof.ts): GREEN and the final rerun each run
   * the targets `runs` times with the fix, and the head without the fix runs
   * them as often (RED counts as one); a target that ever passes without the
   * fix makes it "unproven (flaky target)". `shuffleArgs` is appended to the
   * test command on every repeat, `{seed}` replaced by that repeat's seed;
   * unset: flowfix adds the runner's own shuffle when it knows it (vitest,
   * jest), else the repeats are plain.
   */
  proof: z
    .object({
      runs: z.number().int().min(1).max(10).default(3),
      shuffleArgs: z.string().trim().min(1).max(500).optional(),
    })
    .prefault({}),
  maxOutputBytes: z
    .number()
    .int()
    .min(4096)
    .max(16 * 1024 * 1024)
    .default(1024 * 1024),
  /** glob-ish patterns that mark test files (used by filters and the offline policy) */
  testPathPatterns: z
    .array(z.string().min(1))
    .default(['**/*.test.*', '**/*.spec.*', '**/test/**', '**/tests/**', '**/__tests__/**', '**/test_*.py', '**/*_test.py', '**/*_test.go', '**/src/test/**']),
});
export type RepositorySettings = z.infer<typeof RepositorySettingsSchema>;

/**
 * The test command of settings a run's setup has completed (it detects one
 * when none is set); asking before that is a bug of ours, not the user's.
 */
export function testCommandOf(settings: Pick<RepositorySettings, 'test'>): string {
  if (!settings.test) throw new Error('no test command: the run setup detects one from the repository before any test runs');
  return settings.test;
}

const PreFiltersSchema = z
  .object({
    /** a draft pull (merge) request is not repaired until it is marked ready (lib/code-review/pull-requests.ts) */
    draft: z.boolean().default(true),
    botAuthor: z.boolean().default(true),
    botAuthorPatterns: z.array(z.string().min(1)).default(['[bot]', 'dependabot', 'renovate', 'github-actions']),
    tooManyFilesChanged: z.boolean().default(true),
    maxFilesChanged: z.number().int().min(1).default(50),
    tooManyFailingTests: z.boolean().default(true),
    maxFailingTests: z.number().int().min(1).default(20),
    notCausedByChange: z.boolean().default(true),
    knownFlaky: z.boolean().default(true),
    unsupportedLanguage: z.boolean().default(true),
    supportedLanguages: z.array(LanguageSchema).default(['typescript', 'javascript', 'python']),
    staleRevision: z.boolean().default(true),
  })
  .prefault({});

const PostFiltersSchema = z
  .object({
    deletesTests: z.boolean().default(true),
    disablesTests: z.boolean().default(true),
    removesAssertions: z.boolean().default(true),
    swallowsAssertions: z.boolean().default(true),
    weakensAssertions: z.boolean().default(true),
    revertsChange: z.boolean().default(true),
    // outside-the-repository and binary edits are refused by the workspace as
    // well; the filter is the second line and cannot be turned off
    emptyDiff: z.boolean().default(true),
    stale: z.boolean().default(true),
    /** a fix larger than this (added+removed lines) is dropped as implausible */
    maxFixLines: z.number().int().min(1).default(400),
  })
  .prefault({});

export const FilterPolicySchema = z.object({ pre: PreFiltersSchema, post: PostFiltersSchema });
export type FilterPolicy = z.infer<typeof FilterPolicySchema>;

export const ModelPriceSchema = z.object({
  inputPerMTokUsd: z.number().min(0),
  outputPerMTokUsd: z.number().min(0),
});

/**
 * How an endpoint speaks the chat-completions protocol (agent/llm/dialects.ts):
 * openai (api.openai.com and compatible gateways), azure (Azure OpenAI:
 * deployment in the path, `api-version` query parameter, `api-key` header),
 * vllm, ollama (its `/v1` API) and llamacpp (llama.cpp's server).
 */
export const MODEL_DIALECTS = ['openai', 'azure', 'vllm', 'ollama', 'llamacpp'] as const;
export type ModelDialect = (typeof MODEL_DIALECTS)[number];

/**
 * How the model edits: `tools` (native tool calls), `text` (search/replace
 * blocks and one-line actions in the reply, for models without reliable tool
 * calling), or `auto` (tools, switching to text for the rest of the run after
 * `textFallbackAfter` malformed tool calls or an endpoint that refuses tools).
 */
export const EDIT_PROTOCOLS = ['auto', 'tools', 'text'] as const;
export type EditProtocol = (typeof EDIT_PROTOCOLS)[number];

export const ModelSettingsSchema = z
  .object({
    /** tiered = the offline policy first, then the LLM if it found nothing */
    policy: RunPolicySchema.default('offline'),
    model: z.string().min(1).optional(),
    /** OpenAI-compatible endpoint (Azure: the resource endpoint); the key comes from FLOWFIX_MODEL_API_KEY, never from here */
    baseUrl: z.string().url().optional(),
    dialect: z.enum(MODEL_DIALECTS).default('openai'),
    /** Azure: the `api-version` query parameter every request carries */
    apiVersion: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'an Azure api-version such as 2024-10-21 or 2025-01-01-preview')
      .optional(),
    /** Azure: the deployment named in the URL path; defaults to `model` */
    deployment: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "_" and "-" only')
      .optional(),
    /** stream answers as server-sent events (usage is asked for, or read from llama.cpp's timings, or estimated) */
    stream: z.boolean().default(false),
    editProtocol: z.enum(EDIT_PROTOCOLS).default('auto'),
    /** auto: malformed tool calls in one run before it switches to the text protocol for good */
    textFallbackAfter: z.number().int().min(1).max(20).default(2),
    /** the model's context window in tokens: the prompt and the history are budgeted to fit it */
    contextTokens: z.number().int().min(2048).max(2_000_000).default(32_768),
    /** cap on completion tokens per call; unset leaves it to the endpoint */
    maxOutputTokens: z.number().int().min(64).max(200_000).optional(),
    temperature: z.number().min(0).max(2).default(0.1),
    topP: z.number().gt(0).max(1).default(0.95),
    maxToolCalls: z.number().int().min(1).max(1000).default(100),
    /** the whole run's wall-clock limit: every repository command gets what is left of it (agent/phases/state.ts) */
    timeLimitMinutes: z
      .number()
      .min(0.05)
      .max(24 * 60)
      .default(30),
    /** prompt + completion tokens per run */
    maxTokens: z.number().int().min(1000).default(1_000_000),
    maxCostUsd: z.number().min(0).default(5),
    maxRetries: z.number().int().min(0).max(10).default(4),
    requestTimeoutSeconds: z.number().int().min(5).max(3600).default(120),
    /**
     * prices per model name, USD per million tokens, over the admin's price
     * table (lib/models/prices.ts) for this repository's runs
     */
    prices: z.record(z.string(), ModelPriceSchema).default({}),
    offline: z
      .object({
        maxCandidates: z.number().int().min(1).max(10_000).default(200),
        timeLimitMinutes: z.number().min(0.1).max(120).default(10),
      })
      .prefault({}),
    /** top-K suspects handed to the policy */
    suspects: z.number().int().min(1).max(20).default(3),
  })
  .superRefine((m, ctx) => {
    if (m.dialect === 'azure' && !m.apiVersion) {
      ctx.addIssue({
        code: 'custom',
        path: ['apiVersion'],
        message: 'the azure dialect needs an apiVersion (the api-version query parameter), e.g. 2024-10-21',
      });
    }
    if (m.dialect !== 'azure' && (m.apiVersion || m.deployment)) {
      ctx.addIssue({
        code: 'custom',
        path: [m.apiVersion ? 'apiVersion' : 'deployment'],
        message: 'only the azure dialect takes an apiVersion or a deployment',
      });
    }
  });
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

/**
 * The model endpoint a repository's runs talk to: its own model settings,
 * else the server's (FLOWFIX_MODEL_BASE_URL / FLOWFIX_MODEL); undefined when
 * no model is configured. Which policies are allowed and how the LLM client
 * is built both follow from this one answer.
 */
export function resolveModelEndpoint({
  settings,
  env,
}: {
  settings: Pick<ModelSettings, 'baseUrl' | 'model'>;
  env: Pick<Env, 'FLOWFIX_MODEL_BASE_URL' | 'FLOWFIX_MODEL'>;
}): { baseURL: string; model: string } | undefined {
  const baseURL = settings.baseUrl ?? env.FLOWFIX_MODEL_BASE_URL;
  const model = settings.model ?? env.FLOWFIX_MODEL;
  return baseURL && model ? { baseURL, model } : undefined;
}

// ───── .flowfix.json ─────

/** Settings only an admin may set: what the sandbox lets a repository's code do. */
const ADMIN_ONLY = { network: true, installNetwork: true, registries: true, allowInstallScripts: true, limits: true } as const;
const ADMIN_ONLY_KEYS = Object.keys(ADMIN_ONLY);

/**
 * What a repository may say about itself. Network switches, install scripts
 * and sandbox limits are deliberately absent: a change under repair must not be able to give its own tests the
 * network. Model settings are absent too: an endpoint chosen by the
 * repository would receive the server's model key.
 */
export const FlowfixFileSchema = z
  .object({
    settings: RepositorySettingsSchema.omit({ ...ADMIN_ONLY })
      .partial()
      .strict()
      .optional(),
    filterPolicy: z.object({ pre: PreFiltersSchema.unwrap().partial().optional(), post: PostFiltersSchema.unwrap().partial().optional() }).strict().optional(),
  })
  .strict();
export type FlowfixFile = z.infer<typeof FlowfixFileSchema>;

export interface EffectiveSettings {
  settings: RepositorySettings;
  filterPolicy: FilterPolicy;
  warnings: string[];
}

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep-merges objects; `over` wins, arrays are replaced, not concatenated. */
export function mergeSettings(under: unknown, over: unknown): unknown {
  if (!isPlainObject(under) || !isPlainObject(over)) return over === undefined ? under : over;
  const out: Json = { ...under };
  for (const [key, value] of Object.entries(over)) {
    out[key] = key in under ? mergeSettings(under[key], value) : value;
  }
  return out;
}

/**
 * Parses `.flowfix.json` text. An invalid file is ignored with warnings, never
 * fatal. The raw (validated) object is returned, not the parsed one, so that
 * defaults filled in by the schema cannot later hide an admin's value.
 */
export function parseFlowfixFile(text: string): { file: Json; warnings: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { file: {}, warnings: [`.flowfix.json is not valid JSON: ${(err as Error).message}`] };
  }
  const warnings: string[] = [];
  if (isPlainObject(raw) && isPlainObject(raw.settings)) {
    const settings: Json = { ...raw.settings };
    for (const key of ADMIN_ONLY_KEYS) {
      if (key in settings) {
        delete settings[key];
        warnings.push(`.flowfix.json settings.${key} ignored: only an admin can change network access, install scripts and sandbox limits`);
      }
    }
    raw = { ...raw, settings };
  }
  const parsed = FlowfixFileSchema.safeParse(raw);
  if (!parsed.success || !isPlainObject(raw)) {
    return {
      file: {},
      warnings: [...warnings, ...(parsed.error?.issues ?? []).map((i) => `.flowfix.json ${i.path.join('.') || '(root)'}: ${i.message}`)],
    };
  }
  return { file: raw, warnings };
}

/**
 * The settings a run uses: the admin's (the Repository columns, as stored,
 * before defaults) over the repository's `.flowfix.json`, over the defaults.
 * Raw values are merged before parsing so that a default never hides a value
 * the file set.
 */
export function resolveEffectiveSettings(input: { adminSettings: unknown; adminFilterPolicy: unknown; flowfixFileText?: string | null }): EffectiveSettings {
  const warnings: string[] = [];
  let file: Json = {};
  if (input.flowfixFileText) {
    const parsed = parseFlowfixFile(input.flowfixFileText);
    file = parsed.file;
    warnings.push(...parsed.warnings);
  }
  const settings = RepositorySettingsSchema.parse(mergeSettings(file.settings ?? {}, input.adminSettings ?? {}));
  const filterPolicy = FilterPolicySchema.parse(mergeSettings(file.filterPolicy ?? {}, input.adminFilterPolicy ?? {}));
  return { settings, filterPolicy, warnings };
}
