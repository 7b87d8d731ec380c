import type pg from 'pg';

// Set-based seed for the triage benchmark: a million changes in a few
// statements (INSERT … SELECT generate_series), so the data exists in
// seconds rather than the hours a row-by-row seed would take. setseed()
// makes the data the same on every run.

const REPOSITORIES = [
  'payments-service',
  'web-frontend',
  'mobile-app',
  'search-indexer',
  'auth-gateway',
  'billing-core',
  'notifications',
  'data-pipeline',
  'ml-ranking',
  'infra-terraform',
  'admin-console',
  'checkout',
  'inventory',
  'shipping-rates',
  'analytics-sdk',
  'design-system',
  'api-gateway',
  'ledger',
  'feature-flags',
  'docs-site',
];

const FIRST = [
  'ada',
  'grace',
  'linus',
  'margaret',
  'ken',
  'barbara',
  'dennis',
  'frances',
  'guido',
  'radia',
  'edsger',
  'katherine',
  'alan',
  'hedy',
  'donald',
  'sophie',
  'bjarne',
  'anita',
  'james',
  'shafi',
  'niklaus',
  'jean',
  'tim',
  'adele',
  'john',
  'lynn',
  'vint',
  'mary',
  'yukihiro',
  'joan',
  'rob',
  'carol',
  'brian',
  'evelyn',
  'leslie',
  'susan',
  'butler',
  'ruth',
  'david',
  'mei',
];
const LAST = [
  'lovelace',
  'hopper',
  'torvalds',
  'hamilton',
  'thompson',
  'liskov',
  'ritchie',
  'allen',
  'vanrossum',
  'perlman',
  'dijkstra',
  'johnson',
  'turing',
  'lamarr',
  'knuth',
  'wilson',
  'stroustrup',
  'borg',
  'gosling',
  'goldwasser',
  'wirth',
  'sammet',
  'berners',
  'goldberg',
  'backus',
  'conway',
  'cerf',
  'keller',
  'matsumoto',
  'clarke',
  'pike',
  'shaw',
  'kernighan',
  'berry',
  'lamport',
  'kare',
  'lampson',
  'teitelbaum',
  'patterson',
  'zhang',
  'nguyen',
  'okafor',
  'silva',
  'kowalski',
  'haddad',
  'ivanova',
  'mensah',
  'tanaka',
  'garcia',
  'novak',
];
const BOTS = ['renovate[bot]', 'dependabot[bot]', 'snyk-bot', 'release-please[bot]', 'codegen-bot', 'i18n-sync-bot'];

const VERBS = ['Fix', 'Refactor', 'Add', 'Remove', 'Update', 'Handle', 'Speed up', 'Simplify', 'Rename', 'Validate', 'Cache', 'Retry'];
const NOUNS = [
  'off-by-one in pager',
  'retry limit',
  'session cache',
  'date parser',
  'currency rounding',
  'rate limiter',
  'webhook signature check',
  'pagination cursor',
  'CSV export',
  'timezone handling',
  'feature flag lookup',
  'password reset flow',
  'search ranking',
  'image resizing',
  'invoice totals',
  'config loader',
  'null check',
  'error boundary',
  'login redirect',
  'cart merge',
  'tax calculation',
  'queue consumer',
  'health check',
  'locale fallback',
  'audit logging',
  'permission check',
  'JSON schema',
  'batch size',
  'connection pool',
  'sort order',
];
const AREAS = ['api', 'ui', 'worker', 'db', 'sdk', 'cli', 'auth', 'billing', 'reports', 'jobs'];
const PACKAGES = ['lodash', 'react', 'typescript', 'eslint', 'pg', 'zod', 'next', 'jest', 'vitest', 'axios', 'django', 'requests', 'pytest', 'numpy'];
const SKIP_REASONS = [
  'known flaky test',
  'too many files changed (> 50)',
  'infrastructure failure',
  'build failed before tests ran',
  'repository opted out',
  'test timed out',
  'generated code only',
];
const TEST_FILES = ['pager', 'retry', 'cache', 'parser', 'money', 'limits', 'webhook', 'export', 'tz', 'flags', 'auth', 'cart', 'tax', 'queue'];

// every first × last name pair: 40 × 50 = 2,000 people
const HUMAN_AUTHORS = FIRST.length * LAST.length;

const sqlArray = (values: readonly string[]) => `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]`;
// 1-based element of an array literal, picked by an integer expression
const pick = (values: readonly string[], expr: string) => `(${sqlArray(values)})[1 + ((${expr})::int % ${values.length})]`;

export const SEED_REPOSITORY_NAMES = REPOSITORIES;
export const SEED_TITLE_WORDS = NOUNS;

export interface SeedCounts {
  repositories: number;
  changes: number;
  revisions: number;
  failures: number;
  authors: number;
}

/**
 * Seeds `changes` changes spread over the last 180 days: ~60 % skipped (the
 * FlowAgent paper skips most failures), the rest spread over the other
 * statuses; ~2,000 authors (2,000 people plus a few bot accounts), 10 % of changes
 * by bots; 1–5 failing tests each, mostly 1–2; repositories of uneven size.
 * Rows are written in failure-time order, as a live table fills up.
 */
export async function seedTriageData({ client, changes }: { client: pg.Client; changes: number }): Promise<SeedCounts> {
  await client.query('SELECT setseed(0.4242)');
  await client.query(`
    INSERT INTO "Repository" (id, name, "gitUrl", "defaultBranch", language, "createdAt", "updatedAt")
    SELECT 'bench_repo_' || lpad(i::text, 2, '0'), n, 'https://git.example.com/' || n || '.git', 'main',
           CASE WHEN i % 3 = 0 THEN 'python' ELSE 'typescript' END, now() - interval '400 days', now()
    FROM unnest(${sqlArray(REPOSITORIES)}) WITH ORDINALITY AS t(n, i)`);

  // one row of random draws per change, then every column derived from them
  await client.query(`
    INSERT INTO "Change" (id, "repositoryId", "externalId", title, description, author, "authorEmail", "authorKind",
      branch, url, "baseRev", "headRev", "revisionNumber", status, "statusReason", "failingTestCount",
      "filesChanged", "linesChanged", origin, "createdAt", "updatedAt", "lastFailureAt")
    SELECT
      'bc' || lpad(to_hex(g), 7, '0') || substr(md5(g::text), 1, 10),
      'bench_repo_' || lpad((1 + floor(${REPOSITORIES.length} * power(r_repo, 1.6)))::int::text, 2, '0'),
      'PR-' || g,
      CASE WHEN is_bot
        THEN 'Bump ' || ${pick(PACKAGES, 'floor(r_word * 1000)')} || ' from ' || (1 + g % 9) || '.' || (g % 20) || ' to ' || (2 + g % 9) || '.0'
        ELSE ${pick(VERBS, 'floor(r_word * 997)')} || ' ' || ${pick(NOUNS, 'floor(r_word * 9973)')} || ' in ' || ${pick(AREAS, 'g')}
      END,
      '',
      author,
      CASE WHEN is_bot THEN NULL ELSE author || '@example.com' END,
      CASE WHEN is_bot THEN 'BOT' ELSE 'HUMAN' END::"AuthorKind",
      CASE WHEN is_bot THEN 'deps/' || g ELSE split_part(author, '.', 1) || '/' || ${pick(AREAS, 'g / 7')} || '-' || (g % 5000) END,
      NULL,
      md5(g::text || 'base'),
      md5(g::text || 'head'),
      1 + floor(5 * power(r_rev, 3))::int,
      st,
      CASE WHEN st = 'SKIPPED' THEN CASE WHEN is_bot THEN 'bot author' ELSE ${pick(SKIP_REASONS, 'floor(r_reason * 1000)')} END END,
      1 + floor(5 * power(r_fail, 2.5))::int,
      1 + floor(40 * power(r_rev, 4))::int,
      5 + floor(800 * power(r_rev, 4))::int,
      CASE WHEN g % 20 = 0 THEN 'CLI' ELSE 'CI' END::"Origin",
      at - make_interval(hours => floor(r_rev * 72)::int),
      at,
      at
    FROM (
      SELECT g, r_repo, r_word, r_rev, r_reason, r_fail, is_bot,
        date_trunc('milliseconds', now() - r_age * interval '180 days') AS at,
        CASE WHEN is_bot THEN ${pick(BOTS, 'floor(r_author * 1000)')}
             ELSE ${pick(FIRST, `floor(r_author * ${HUMAN_AUTHORS})`)} || '.' || ${pick(LAST, `floor(r_author * ${HUMAN_AUTHORS} / ${FIRST.length})`)}
        END AS author,
        (CASE
          WHEN r_status < 0.60 OR is_bot AND r_status < 0.90 THEN 'SKIPPED'
          WHEN r_status < 0.74 THEN 'NO_FIX'
          WHEN r_status < 0.82 THEN 'STALE'
          WHEN r_status < 0.89 THEN 'FIX_READY'
          WHEN r_status < 0.93 THEN 'APPLIED'
          WHEN r_status < 0.96 THEN 'REJECTED'
          WHEN r_status < 0.98 THEN 'NEW'
          WHEN r_status < 0.995 THEN 'QUEUED'
          ELSE 'RUNNING'
        END)::"ChangeStatus" AS st
      FROM (
        SELECT g, random() AS r_repo, random() AS r_word, random() AS r_rev, random() AS r_reason,
               random() AS r_fail, random() AS r_age, random() AS r_author, random() AS r_status,
               random() < 0.10 AS is_bot
        FROM generate_series(1, ${Math.trunc(changes)}) AS g
      ) draws
    ) d
    -- arrival order: a live table receives failures as they happen (and an
    -- update of lastFailureAt writes the row anew at the end), so its rows lie
    -- roughly in lastFailureAt order; a random layout would make every index
    -- walk a random read, which no real deployment sees
    ORDER BY at`);

  // the latest revision of each change (older revisions do not affect the list)
  await client.query(`
    INSERT INTO "ChangeRevision" (id, "changeId", number, "baseRev", "headRev", branch, "ciLog", "ciUrl", "createdAt")
    SELECT 'br' || substr(id, 3), id, "revisionNumber", "baseRev", "headRev", branch, '',
           'https://ci.example.com/builds/' || substr(id, 3), "lastFailureAt"
    FROM "Change"`);

  await client.query(`
    INSERT INTO "Failure" (id, "changeId", "revisionId", "testId", "testName", suite, file, line, kind, message, "logExcerpt", "durationMs", "createdAt")
    SELECT 'bf' || substr(c.id, 3) || '_' || k, c.id, 'br' || substr(c.id, 3),
           'test/' || t.f || '.test.ts::' || t.f || ' case ' || k, t.f || ' case ' || k, t.f, 'test/' || t.f || '.test.ts',
           10 + k * 7, CASE WHEN k = 5 THEN 'error' ELSE 'failure' END,
           'AssertionError: expected ' || k || ' to equal ' || (k + 1),
           'at Object.<anonymous> (test/' || t.f || '.test.ts:' || (10 + k * 7) || ':5)',
           5 + k * 13, c."lastFailureAt"
    FROM "Change" c
    CROSS JOIN LATERAL generate_series(1, c."failingTestCount") AS k
    CROSS JOIN LATERAL (SELECT ${pick(TEST_FILES, `abs(hashtext(c.id)) + k`)} AS f) t`);

  const counts = await client.query<{ repositories: string; changes: string; revisions: string; failures: string; authors: string }>(`
    SELECT (SELECT count(*) FROM "Repository") AS repositories, (SELECT count(*) FROM "Change") AS changes,
           (SELECT count(*) FROM "ChangeRevision") AS revisions, (SELECT count(*) FROM "Failure") AS failures,
           (SELECT count(DISTINCT author) FROM "Change") AS authors`);
  const row = counts.rows[0]!;
  return {
    repositories: Number(row.repositories),
    changes: Number(row.changes),
    revisions: Number(row.revisions),
    failures: Number(row.failures),
    authors: Number(row.authors),
  };
}
