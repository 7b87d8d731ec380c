import type pg from 'pg';

// Set-based seed for the Insights benchmark, on top of the triage seed's
// changes (bench/triage-seed.ts): repair runs on the changes that were not
// skipped, a fix for every run that found one, reviewers' decisions on the
// posted fixes, and graders' labels with their consensus. INSERT … SELECT
// generate_series, with setseed() so every run seeds the same data.

export interface InsightsSeedCounts {
  runs: number;
  fixes: number;
  decisions: number;
  grades: number;
  consensus: number;
}

export async function seedInsightsData({
  client,
  runs,
  decisions,
  gradedFixes,
}: {
  client: pg.Client;
  runs: number;
  decisions: number;
  /** fixes graded by three graders each (grades = 3 × this) and settled */
  gradedFixes: number;
}): Promise<InsightsSeedCounts> {
  await client.query('SELECT setseed(0.2727)');
  await client.query(`
    INSERT INTO "User" (id, email, name, roles, "createdAt")
    SELECT 'bench_user_' || i, 'bench' || i || '@example.com', 'Bench ' || i,
           CASE WHEN i <= 20 THEN ARRAY['REVIEWER']::"Role"[] ELSE ARRAY['GRADER']::"Role"[] END, now()
    FROM generate_series(1, 23) AS i`);

  await client.query(`
    CREATE TEMP TABLE attempted AS
    SELECT row_number() OVER (ORDER BY id) AS n, id, "createdAt", 'br' || substr(id, 3) AS rev
    FROM "Change" WHERE status NOT IN ('SKIPPED', 'NEW')`);
  const attempted = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM attempted')).rows[0]!.n);

  await client.query(`
    INSERT INTO "Run" (id, "changeId", "revisionId", trigger, policy, model, status, "exitReason", "phaseTimings",
      "toolCalls", "promptTokens", "completionTokens", "costUsd", attempt, "createdAt", "startedAt", "finishedAt")
    SELECT 'bu' || lpad(to_hex(g), 8, '0'), a.id, a.rev,
      CASE WHEN r_t < 0.90 THEN 'AUTO' WHEN r_t < 0.97 THEN 'MANUAL' ELSE 'REVALIDATE' END::"RunTrigger",
      pol,
      CASE WHEN pol = 'offline' THEN NULL ELSE (ARRAY['gpt-4.1', 'claude-sonnet', 'qwen-coder'])[1 + floor(r_m * 3)::int] END,
      CASE WHEN r_s < 0.5334 THEN 'FIXED' WHEN r_s < 0.95 THEN 'NO_FIX' WHEN r_s < 0.99 THEN 'FAILED' ELSE 'CANCELLED' END::"RunStatus",
      CASE WHEN r_s < 0.5334 THEN 'fixed'
           WHEN r_s < 0.95 THEN (ARRAY['not_reproduced', 'not_caused_by_change', 'no_candidate', 'no_candidate', 'regression_failed',
                                       'final_rerun_failed', 'tool_call_limit', 'time_limit', 'token_budget', 'cost_budget'])[1 + floor(r_x * 10)::int]
           WHEN r_s < 0.99 THEN (ARRAY['setup_failed', 'worker_lost', 'model_error'])[1 + floor(r_x * 3)::int]
           ELSE 'cancelled' END,
      jsonb_build_object('setup', (dur * 0.15)::int, 'red', (dur * 0.10)::int, 'localise', (dur * 0.10)::int,
                         'patch', (dur * 0.47)::int, 'verify', (dur * 0.15)::int, 'summary', (dur * 0.03)::int),
      CASE WHEN pol = 'offline' THEN 2 + floor(r_x * 12)::int ELSE 3 + floor(power(r_d, 0.7) * 60)::int END,
      CASE WHEN pol = 'offline' THEN 0 ELSE (50000 + r_d * 600000)::int END,
      CASE WHEN pol = 'offline' THEN 0 ELSE (2000 + r_d * 25000)::int END,
      CASE WHEN pol = 'offline' THEN 0 ELSE round((0.1 + r_d * 1.4)::numeric, 4)::float8 END,
      1,
      a."createdAt" + make_interval(secs => 20 + r_x * 60),
      a."createdAt" + make_interval(secs => 60 + r_x * 60),
      a."createdAt" + make_interval(secs => 60 + r_x * 60 + dur / 1000.0)
    FROM (
      SELECT g, random() AS r_t, random() AS r_m, random() AS r_s, random() AS r_x, random() AS r_d,
             CASE WHEN random() < 0.45 THEN 'offline' WHEN random() < 0.5 THEN 'llm' ELSE 'tiered' END AS pol,
             (120000 + power(random(), 2) * 2400000)::float8 AS dur
      FROM generate_series(1, ${Math.trunc(runs)}) AS g
    ) d
    JOIN attempted a ON a.n = 1 + (d.g % ${attempted})`);

  await client.query(`
    INSERT INTO "Fix" (id, "runId", "changeId", "revisionId", diff, files, status, "dropReason", "createdAt", "updatedAt")
    SELECT 'bx' || substr(r.id, 3), r.id, r."changeId", r."revisionId", 'diff --git a/x b/x', ARRAY['src/x.ts'],
      st::"FixStatus",
      CASE WHEN st = 'DROPPED' THEN (ARRAY['stale', 'stale', 'stale', 'stale', 'weakens_assertions', 'deletes_tests', 'reverts_change', 'too_large'])[1 + floor(r2 * 8)::int] END,
      r."finishedAt", r."finishedAt"
    FROM (
      SELECT r.*, random() AS r2,
        CASE WHEN random() < 0.30 THEN 'DROPPED' ELSE (ARRAY['READY', 'READY', 'APPLIED', 'APPLIED', 'REJECTED', 'STALE'])[1 + floor(random() * 6)::int] END AS st
      FROM "Run" r WHERE r.status = 'FIXED'
    ) r`);

  await client.query(`
    CREATE TEMP TABLE posted AS
    SELECT row_number() OVER (ORDER BY id) AS n, id, "createdAt", status::text AS status FROM "Fix" WHERE status <> 'DROPPED'`);
  const posted = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM posted')).rows[0]!.n);

  await client.query(`
    INSERT INTO "Decision" (id, "fixId", "userId", kind, surface, reason, "createdAt")
    SELECT 'bd' || lpad(to_hex(g), 8, '0'), p.id, 'bench_user_' || (1 + g % 20),
      k::"DecisionKind",
      (CASE WHEN r_s < 0.7 THEN 'DASHBOARD' WHEN r_s < 0.95 THEN 'CLI' ELSE 'API' END)::"Surface",
      CASE WHEN k = 'REJECT' THEN (ARRAY['WRONG_FIX', 'NOT_HOW_I_WOULD', 'TESTS_TAMPERED', 'TOO_LATE', 'IRRELEVANT', 'OTHER'])[1 + floor(r_s * 6)::int]::"RejectReason" END,
      p."createdAt" + make_interval(mins => 5 + (g / ${posted}) * 7)
    FROM (
      SELECT g, random() AS r_s, 1 + (g % ${posted}) AS n FROM generate_series(1, ${Math.trunc(decisions)}) AS g
    ) d
    JOIN posted p ON p.n = d.n
    CROSS JOIN LATERAL (
      SELECT CASE
        WHEN d.g > ${posted} AND d.g <= 2 * ${posted} AND p.status = 'APPLIED' THEN CASE WHEN d.r_s < 0.8 THEN 'ACCEPT' ELSE 'EDIT_ACCEPT' END
        WHEN d.g > ${posted} AND d.g <= 2 * ${posted} AND p.status = 'REJECTED' THEN 'REJECT'
        ELSE 'PREVIEW' END AS k
    ) kind`);

  await client.query(`
    INSERT INTO "Grade" (id, "fixId", "graderId", label, "createdAt", "updatedAt")
    SELECT 'bg' || substr(p.id, 3) || '_' || k, p.id, 'bench_user_' || (20 + k),
      (ARRAY['CORRECT', 'CORRECT', 'CORRECT', 'CORRECT', 'CORRECT', 'CORRECT', 'OVERFITTING', 'INCORRECT', 'INCORRECT', 'IRRELEVANT'])[1 + floor(random() * 10)::int]::"GradeLabel",
      p."createdAt" + interval '1 day', p."createdAt" + interval '1 day'
    FROM posted p CROSS JOIN generate_series(1, 3) AS k
    WHERE p.n <= ${Math.trunc(gradedFixes)}`);
  await client.query(`
    INSERT INTO "Consensus" (id, "fixId", label, automatic, "settledById", "settledAt")
    SELECT 'bs' || substr(p.id, 3), p.id, g.label, true, g."graderId", p."createdAt" + interval '2 days'
    FROM posted p JOIN "Grade" g ON g."fixId" = p.id AND g."graderId" = 'bench_user_21'
    WHERE p.n <= ${Math.trunc(gradedFixes)}`);

  const counts = await client.query<Record<keyof InsightsSeedCounts, string>>(`
    SELECT (SELECT count(*) FROM "Run") AS runs, (SELECT count(*) FROM "Fix") AS fixes, (SELECT count(*) FROM "Decision") AS decisions,
           (SELECT count(*) FROM "Grade") AS grades, (SELECT count(*) FROM "Consensus") AS consensus`);
  const row = counts.rows[0]!;
  return {
    runs: Number(row.runs),
    fixes: Number(row.fixes),
    decisions: Number(row.decisions),
    grades: Number(row.grades),
    consensus: Number(row.consensus),
  };
}
