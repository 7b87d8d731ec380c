import { createHash } from 'node:crypto';
import type { Prisma } from '../lib/generated/prisma/client';
import { SEARCHED_IN_VAIN_EXIT_REASONS } from '../common/exit-reasons';
import { createRng, type Rng } from './prng';

// A few weeks of made-up, clearly labelled activity (origin DEMO_HISTORY,
// titles starting "[history]") so the metrics pages have something to show on
// a fresh demo. The shape follows FlowAgent's published funnel: about 70% of
// failing changes skipped by pre-execution filters, about half of the attempts
// produce a fix, about 30% of fixes dropped as stale, posted fixes previewed
// and applied more often from the CLI than from the dashboard (FlowAgent:
// 37.84% vs 59.69%), about two thirds of graded fixes correct, failure-to-fix
// latency p50 near 10 minutes. Preview rates are higher than the paper's 22%
// so that a demo-sized sample still fills the decision charts.
//
// Pure: a seed, a clock and the ids of repositories and people in, rows out.

export const HISTORY_TITLE_PREFIX = '[history] ';
/** The model of the history's LLM runs, and its price: the seed sets it in the model price table, the runs' costs are computed with it. */
export const HISTORY_MODEL = 'gpt-4.1';
export const HISTORY_MODEL_PRICE = { inputPerMTokUsd: 2, outputPerMTokUsd: 8 } as const;

/** statusReason of SKIPPED history changes: the filter that skipped them (lib/triage/pre-filters.ts names; not_caused_by_change is the base gate's, agent/pipeline.ts) */
export const SKIP_REASONS = [
  'not_caused_by_change',
  'known_flaky',
  'bot_author',
  'too_many_files_changed',
  'too_many_failing_tests',
  'stale_revision',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface HistoryRepository {
  id: string;
  name: string;
  kind: 'node' | 'python';
}

export interface HistoryPeople {
  /** users who preview, accept and reject */
  reviewers: string[];
  /** exactly the graders who grade each graded fix (blind, one grade each) */
  graders: string[];
  /** the grader who settles consensus */
  settler: string;
}

export interface HistoryRows {
  changes: Prisma.ChangeCreateManyInput[];
  revisions: Prisma.ChangeRevisionCreateManyInput[];
  failures: Prisma.FailureCreateManyInput[];
  runs: Prisma.RunCreateManyInput[];
  events: Prisma.RunEventCreateManyInput[];
  fixes: Prisma.FixCreateManyInput[];
  decisions: Prisma.DecisionCreateManyInput[];
  grades: Prisma.GradeCreateManyInput[];
  consensus: Prisma.ConsensusCreateManyInput[];
  /** a settlement shows every grader of the fix the others' labels, and locks theirs */
  reveals: Prisma.GradeRevealCreateManyInput[];
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface FixTemplate {
  title: string;
  tests: string[];
  file: string;
  diff: string;
  summary: string;
}

const SEARCHED_IN_VAIN = new Set<string>(SEARCHED_IN_VAIN_EXIT_REASONS);

const NODE_FIXES: FixTemplate[] = [
  {
    title: 'Compare promo windows on timestamps',
    tests: ['test::promo windows > includes the last day of the window'],
    file: 'src/windows.ts',
    diff: `diff --git a/src/windows.ts b/src/windows.ts
--- a/src/windows.ts
+++ b/src/windows.ts
@@ -9,4 +9,4 @@
 export function isWithinWindow(day: string, window: DateWindow): boolean {
   const t = Date.parse(day);
-  return t >= Date.parse(window.start) && t < Date.parse(window.end);
+  return t >= Date.parse(window.start) && t <= Date.parse(window.end);
 }
`,
    summary:
      '<p><strong>Root cause:</strong> <code>isWithinWindow</code> now compares the end of the window with <code>&lt;</code>, so the last day of a promo window is excluded.</p><p><strong>Fix:</strong> compare with <code>&lt;=</code>; windows include both their first and last day.</p>',
  },
  {
    title: 'Name the discount eligibility rules',
    tests: ['test::welcome discount > applies to members', 'test::welcome discount > applies to a first order'],
    file: 'src/discounts.ts',
    diff: `diff --git a/src/discounts.ts b/src/discounts.ts
--- a/src/discounts.ts
+++ b/src/discounts.ts
@@ -26,4 +26,4 @@
 /** Members and first-time buyers get the welcome discount. */
 export function welcomeDiscountApplies(customer: Customer): boolean {
-  return isMember(customer) && isFirstOrder(customer);
+  return isMember(customer) || isFirstOrder(customer);
 }
`,
    summary:
      '<p><strong>Root cause:</strong> the refactoring joined the two eligibility rules with <code>&amp;&amp;</code>, so only members placing their first order get the welcome discount.</p><p><strong>Fix:</strong> restore <code>||</code>: members or first orders qualify.</p>',
  },
  {
    title: 'Reserve stock for the whole basket at once',
    tests: ['test::inventory > reserves units without changing the input'],
    file: 'src/inventory.ts',
    diff: `diff --git a/src/inventory.ts b/src/inventory.ts
--- a/src/inventory.ts
+++ b/src/inventory.ts
@@ -6,4 +6,4 @@
   const onHand = stock[sku] ?? 0;
   if (!Number.isInteger(quantity) || quantity <= 0) throw new RangeError('quantity must be a positive integer');
-  if (quantity >= onHand) throw new Error('only ' + onHand + ' of ' + sku + ' left');
+  if (quantity > onHand) throw new Error('only ' + onHand + ' of ' + sku + ' left');
   return { ...stock, [sku]: onHand - quantity };
`,
    summary:
      '<p><strong>Root cause:</strong> the availability check uses <code>&gt;=</code>, refusing to reserve the last units on hand.</p><p><strong>Fix:</strong> refuse only when the quantity exceeds the stock.</p>',
  },
  {
    title: 'Apply tax before discounts for B2B carts',
    tests: ['test::cart totals > adds tax after the discount'],
    file: 'src/cart.ts',
    diff: `diff --git a/src/cart.ts b/src/cart.ts
--- a/src/cart.ts
+++ b/src/cart.ts
@@ -37,6 +37,6 @@
   const sub = subtotal(items);
   const discount = roundCents((sub * discountPercent) / 100);
   const taxable = sub - discount;
-  const tax = roundCents(sub * taxRateFor(region));
+  const tax = roundCents(taxable * taxRateFor(region));
   return { subtotal: sub, discount, tax, total: taxable + tax };
 }
`,
    summary:
      '<p><strong>Root cause:</strong> tax is computed on the subtotal instead of the discounted amount, for every cart and not only B2B ones.</p><p><strong>Fix:</strong> tax the discounted amount again.</p>',
  },
  {
    title: "Round half cents to even (banker's rounding)",
    tests: ['test::money > rounds half a cent up'],
    file: 'test/money.test.ts',
    diff: `diff --git a/test/money.test.ts b/test/money.test.ts
--- a/test/money.test.ts
+++ b/test/money.test.ts
@@ -5,4 +5,4 @@
 describe('money', () => {
-  test('rounds half a cent up', () => {
-    assert.equal(roundCents(12.5), 13);
+  test('rounds half a cent to even', () => {
+    assert.equal(roundCents(12.5), 12);
   });
`,
    summary:
      "<p><strong>Root cause:</strong> the change deliberately switched to banker's rounding (FIN-88); the test still expects half a cent to round up.</p><p><strong>Fix:</strong> update the expectation to the new, intended behaviour.</p>",
  },
];

const PYTHON_FIXES: FixTemplate[] = [
  {
    title: 'Simplify statement page count',
    tests: ['tests.test_statements::test_page_count_exact_multiple'],
    file: 'ledger/statements.py',
    diff: `diff --git a/ledger/statements.py b/ledger/statements.py
--- a/ledger/statements.py
+++ b/ledger/statements.py
@@ -4,6 +4,5 @@ def page_count(line_count: int, per_page: int = 10) -> int:
     if per_page <= 0:
         raise ValueError("per_page must be positive")
-    # full pages, plus one for the lines left over
-    return line_count // per_page + 1
+    return (line_count + per_page - 1) // per_page
`,
    summary:
      '<p><strong>Root cause:</strong> <code>page_count</code> always adds a page, so an exact multiple of the page size (and an empty statement) gets one page too many.</p><p><strong>Fix:</strong> restore the ceiling division.</p>',
  },
  {
    title: 'Compute balances from credit and debit totals',
    tests: ['tests.test_accounts::test_deposits_add_to_the_balance', 'tests.test_accounts::test_refund_increases_the_balance'],
    file: 'ledger/accounts.py',
    diff: `diff --git a/ledger/accounts.py b/ledger/accounts.py
--- a/ledger/accounts.py
+++ b/ledger/accounts.py
@@ -43,4 +43,4 @@ class Account:
 
     def balance(self) -> Decimal:
-        return self.opening - self.credits() - self.debits()
+        return self.opening + self.credits() - self.debits()
`,
    summary:
      '<p><strong>Root cause:</strong> credits are subtracted from the opening balance instead of added.</p><p><strong>Fix:</strong> add credits, subtract debits.</p>',
  },
  {
    title: 'Accrue interest per calendar day',
    tests: ['tests.test_interest::test_interest_for_thirty_days'],
    file: 'ledger/interest.py',
    diff: `diff --git a/ledger/interest.py b/ledger/interest.py
--- a/ledger/interest.py
+++ b/ledger/interest.py
@@ -11,4 +11,4 @@ def accrued_interest(balance: Decimal, annual_rate: Decimal, days: int) -> Decimal:
     if balance <= 0 or days <= 0:
         return Decimal("0.00")
-    return to_money(balance * annual_rate * (days - 1) / DAYS_PER_YEAR)
+    return to_money(balance * annual_rate * days / DAYS_PER_YEAR)
`,
    summary:
      '<p><strong>Root cause:</strong> the day count was reduced by one, so a 30-day period accrues 29 days of interest.</p><p><strong>Fix:</strong> accrue over the full number of days.</p>',
  },
  {
    title: 'Raise the overdraft fee to 35.00 for the 2027 price list',
    tests: ['tests.test_fees::test_overdraft_fee_charged_when_negative'],
    file: 'tests/test_fees.py',
    diff: `diff --git a/tests/test_fees.py b/tests/test_fees.py
--- a/tests/test_fees.py
+++ b/tests/test_fees.py
@@ -4,5 +4,5 @@ from ledger.fees import overdraft_fee
 
 
 def test_overdraft_fee_charged_when_negative():
-    assert overdraft_fee(Decimal("-0.01")) == Decimal("25.00")
+    assert overdraft_fee(Decimal("-0.01")) == Decimal("35.00")
`,
    summary:
      '<p><strong>Root cause:</strong> the change raised the overdraft fee on purpose (PRICE-2027-03) and the test still expects the old fee.</p><p><strong>Fix:</strong> expect the new fee of 35.00.</p>',
  },
];

const OTHER_TITLES = [
  'Migrate checkout events to the new analytics schema',
  'Cache regional tax lookups',
  'Split the pricing module by concern',
  'Support gift cards at checkout',
  'Show stock warnings on product pages',
  'Retry payment webhooks with backoff',
  'Add statement export to CSV',
  'Reconcile card settlements nightly',
  'Batch interest postings by branch',
  'Normalise IBANs before validation',
  'Tidy logging in the fee engine',
  'Upgrade the test runner configuration',
];

const PEOPLE = [
  { name: 'Alice Moreau', email: 'alice.moreau@example.com' },
  { name: 'Bram Visser', email: 'bram.visser@example.com' },
  { name: 'Chen Wei', email: 'chen.wei@example.com' },
  { name: 'Dana Okafor', email: 'dana.okafor@example.com' },
  { name: 'Femi Adeyemi', email: 'femi.adeyemi@example.com' },
  { name: 'Greta Lind', email: 'greta.lind@example.com' },
  { name: 'Hiro Tanaka', email: 'hiro.tanaka@example.com' },
  { name: 'Ines Duarte', email: 'ines.duarte@example.com' },
];
const BOTS = [
  { name: 'dependabot[bot]', email: '49699333+dependabot[bot]@users.noreply.github.com' },
  { name: 'renovate[bot]', email: '29139614+renovate[bot]@users.noreply.github.com' },
];

const EXTRA_TESTS: Record<HistoryRepository['kind'], string[]> = {
  node: [
    'test::parcels > fills parcels up to the limit',
    'test::delivery days > skips Sundays',
    'test::bulk discount > starts at ten items',
    'test::tax > looks up the regional rate',
    'test::money > formats dollars with a thousands separator',
  ],
  python: [
    'tests.test_statements::test_last_page_holds_the_rest',
    'tests.test_fees::test_no_fee_at_zero',
    'tests.test_accounts::test_withdrawals_and_fees_reduce_the_balance',
    'tests.test_interest::test_interest_for_a_full_year',
  ],
};

type RunOutcome = 'fixed' | 'no_fix' | 'failed' | 'cancelled';
const NO_FIX_REASONS = [
  ['not_reproduced', 30],
  ['no_candidate', 30],
  ['tool_call_limit', 15],
  ['time_limit', 10],
  ['regression_failed', 10],
  ['final_rerun_failed', 5],
] as const;
const DROP_REASONS = [
  ['stale', 80],
  ['weakens_assertions', 8],
  ['deletes_tests', 6],
  ['reverts_change', 6],
] as const;
const REJECT_REASONS = [
  ['NOT_HOW_I_WOULD', 35],
  ['WRONG_FIX', 30],
  ['TOO_LATE', 15],
  ['TESTS_TAMPERED', 10],
  ['IRRELEVANT', 5],
  ['OTHER', 5],
] as const;
const LABELS = ['CORRECT', 'OVERFITTING', 'INCORRECT', 'IRRELEVANT'] as const;
type Label = (typeof LABELS)[number];
const PHASES = ['setup', 'red', 'localise', 'patch', 'verify', 'summary'] as const;
const PHASE_SHARE = [0.15, 0.1, 0.1, 0.47, 0.15, 0.03];

function testName(testId: string): string {
  return testId.slice(testId.indexOf('::') + 2);
}

function testFile(kind: HistoryRepository['kind'], testId: string): string | null {
  if (kind !== 'python') return null;
  return testId.slice(0, testId.indexOf('::')).replace(/\./g, '/') + '.py';
}

function gate(gateName: string, passed: boolean, durationMs: number) {
  return { gate: gateName, passed, durationMs };
}

class HistoryBuilder {
  readonly rows: HistoryRows = {
    changes: [],
    revisions: [],
    failures: [],
    runs: [],
    events: [],
    fixes: [],
    decisions: [],
    grades: [],
    consensus: [],
    reveals: [],
  };

  constructor(
    private readonly rng: Rng,
    private readonly now: number,
    private readonly people: HistoryPeople,
  ) {}

  /** a time that has already happened: history never reaches into the future */
  private past(t: number): Date {
    return new Date(Math.min(t, this.now - 5 * MINUTE));
  }

  addChange({ repo, index, at }: { repo: HistoryRepository; index: number; at: number }): void {
    const { rng } = this;
    const skip: SkipReason | null = rng.chance(0.695)
      ? rng.weighted([
          ['not_caused_by_change', 35],
          ['known_flaky', 20],
          ['bot_author', 15],
          ['too_many_files_changed', 12],
          ['too_many_failing_tests', 10],
          ['stale_revision', 8],
        ] as const)
      : null;
    const templates = repo.kind === 'node' ? NODE_FIXES : PYTHON_FIXES;
    const template = skip ? null : rng.pick(templates);
    const bot = skip === 'bot_author' ? rng.pick(BOTS) : null;
    const author = bot ?? rng.pick(PEOPLE);
    const title =
      bot !== null
        ? `Bump ${rng.pick(['undici', 'pytest', 'tax-rates', 'eslint', 'ruff'])} from ${rng.int(1, 6)}.${rng.int(0, 9)}.0 to ${rng.int(7, 9)}.0.0`
        : (template?.title ?? rng.pick(OTHER_TITLES));

    let tests = template ? [...template.tests] : [rng.pick(EXTRA_TESTS[repo.kind])];
    if (skip === 'too_many_failing_tests') {
      const prefix = repo.kind === 'node' ? 'test::import smoke > case' : 'tests.test_import_smoke::test_case_';
      tests = Array.from({ length: rng.int(24, 40) }, (_, i) => `${prefix}${repo.kind === 'node' ? ' ' : ''}${i + 1}`);
    }
    const filesChanged = skip === 'too_many_files_changed' ? rng.int(55, 140) : rng.int(1, 9);

    const changeId = rng.cuid();
    const revisionId = rng.cuid();
    const baseRev = rng.hex(40);
    const headRev = rng.hex(40);
    const branch = bot
      ? `dependabot/history-${index}`
      : `pr/${900 + index}-${title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .slice(0, 40)}`;
    const failedAt = this.past(at);

    this.rows.revisions.push({
      id: revisionId,
      changeId,
      number: 1,
      baseRev,
      headRev,
      branch,
      ciLog: `[history] CI log for ${repo.name} at ${headRev.slice(0, 12)}\n${tests.length} test(s) failed.\n`,
      ciUrl: `https://ci.example.com/${repo.name}/builds/${5000 + index}`,
      diffStat: { files: filesChanged, additions: filesChanged * rng.int(3, 30), deletions: filesChanged * rng.int(0, 12) },
      createdAt: failedAt,
    });
    tests.forEach((testId, i) => {
      this.rows.failures.push({
        id: rng.cuid(),
        changeId,
        revisionId,
        testId,
        testName: testName(testId),
        file: testFile(repo.kind, testId),
        kind: 'failure',
        message: i === 0 ? 'Expected values to be strictly equal' : 'assertion failed',
        logExcerpt: `[history] ${testId} failed`,
        durationMs: rng.int(1, 40),
        createdAt: failedAt,
      });
    });

    const change: Prisma.ChangeCreateManyInput = {
      id: changeId,
      repositoryId: repo.id,
      externalId: `H-${1000 + index}`,
      title: HISTORY_TITLE_PREFIX + title,
      description: '[history] Generated demo activity, not a real change.',
      author: author.name,
      authorEmail: author.email,
      authorKind: bot ? 'BOT' : 'HUMAN',
      branch,
      url: `https://git.example.com/${repo.name}/pull/${900 + index}`,
      baseRev,
      headRev,
      revisionNumber: 1,
      status: 'SKIPPED',
      statusReason: skip,
      failingTestCount: tests.length,
      filesChanged,
      linesChanged: filesChanged * rng.int(4, 40),
      origin: 'DEMO_HISTORY',
      createdAt: failedAt,
      updatedAt: failedAt,
      lastFailureAt: failedAt,
    };
    this.rows.changes.push(change);
    if (skip || !template) return;

    this.addRun({ change, revisionId, template, at, repoKind: repo.kind });
  }

  private addRun({
    change,
    revisionId,
    template,
    at,
    repoKind,
  }: {
    change: Prisma.ChangeCreateManyInput;
    revisionId: string;
    template: FixTemplate;
    at: number;
    repoKind: HistoryRepository['kind'];
  }): void {
    const { rng } = this;
    const outcome: RunOutcome = rng.weighted([
      ['fixed', 54],
      ['no_fix', 40],
      ['failed', 4],
      ['cancelled', 2],
    ] as const);
    const llm = rng.chance(0.55);
    const queuedAt = at + rng.int(5, 40) * 1000;
    const startedAt = queuedAt + rng.int(6, 90) * 1000;
    // FlowAgent: failure → fix p10 4.8 min, p50 9.9 min, p90 25.8 min
    let minutes = Math.min(45, Math.max(2, rng.logNormal(9.85, 0.75)));
    if (outcome === 'no_fix') minutes = Math.min(30, minutes * 1.6);
    if (outcome === 'failed' || outcome === 'cancelled') minutes = rng.int(1, 6);
    const finishedAt = Math.max(startedAt + 30_000, at + minutes * MINUTE);
    const exitReason =
      outcome === 'fixed'
        ? 'fixed'
        : outcome === 'no_fix'
          ? rng.weighted(NO_FIX_REASONS)
          : outcome === 'failed'
            ? rng.pick(['setup_failed', 'model_error'])
            : 'cancelled';

    const toolCalls = llm ? Math.round(Math.min(100, Math.max(3, rng.logNormal(19, 0.5)))) : rng.int(2, 14);
    const promptTokens = llm ? Math.round(rng.logNormal(380_000, 0.5)) : 0;
    const completionTokens = llm ? Math.round(rng.logNormal(14_000, 0.5)) : 0;
    // the price the seed puts in the model price table (Admin → Model prices): the recorded cost is the one that table gives
    const costUsd = llm
      ? Math.round(((promptTokens * HISTORY_MODEL_PRICE.inputPerMTokUsd + completionTokens * HISTORY_MODEL_PRICE.outputPerMTokUsd) / 1e6) * 10_000) / 10_000
      : 0;

    const total = finishedAt - startedAt;
    const phaseTimings: Record<string, number> = {};
    PHASES.forEach((phase, i) => (phaseTimings[phase] = Math.round(total * PHASE_SHARE[i])));

    const runId = rng.cuid();
    let fixStatus: 'READY' | 'DROPPED' | null = outcome === 'fixed' ? 'READY' : null;
    let dropReason: string | null = null;
    if (fixStatus && rng.chance(0.3)) {
      fixStatus = 'DROPPED';
      dropReason = rng.weighted(DROP_REASONS);
    }
    const runExitReason = dropReason ? `dropped:${dropReason}` : exitReason;
    const status = outcome === 'fixed' ? (dropReason ? 'NO_FIX' : 'FIXED') : outcome === 'no_fix' ? 'NO_FIX' : outcome === 'failed' ? 'FAILED' : 'CANCELLED';

    const events: Prisma.RunEventCreateManyInput[] = [];
    let t = startedAt;
    PHASES.forEach((phase) => {
      events.push({ runId, seq: events.length, type: 'phase', payload: { phase, status: 'started' }, createdAt: this.past(t) });
      t += phaseTimings[phase];
    });
    // a run that searched in vain localised first: its suspect is the file
    // the fix template would have edited (Insights compares it with what
    // the developer changed next, below)
    const searched = !fixStatus && SEARCHED_IN_VAIN.has(exitReason);
    if (searched) {
      events.push({
        runId,
        seq: events.length,
        type: 'suspects',
        payload: {
          suspects: [
            { file: template.file, symbol: 'suspect', kind: 'function', startLine: 1, endLine: 20, score: 0.8, reasons: ['[history] edited by the change'] },
          ],
        },
        createdAt: this.past(startedAt + phaseTimings.setup + phaseTimings.red + phaseTimings.localise),
      });
    }
    // a policy that ran out of candidates: some reached the GREEN gate and
    // failed it, others never got past the compile gate (Insights tells them
    // apart by this event); decided without a draw so the rest stays the same
    if (exitReason === 'no_candidate' && toolCalls % 2 === 0) {
      events.push({
        runId,
        seq: events.length,
        type: 'gate',
        payload: { gate: 'green', passed: false, durationMs: Math.round(phaseTimings.patch / 4), detail: '[history] target tests still fail' },
        createdAt: this.past(finishedAt - phaseTimings.summary - phaseTimings.verify),
      });
    }
    events.push({
      runId,
      seq: events.length,
      type: 'final',
      payload: { status, exitReason: runExitReason, history: true },
      createdAt: this.past(finishedAt),
    });
    this.rows.events.push(...events);

    this.rows.runs.push({
      id: runId,
      changeId: change.id!,
      revisionId,
      trigger: 'AUTO',
      policy: llm ? 'tiered' : 'offline',
      model: llm ? HISTORY_MODEL : null,
      status,
      exitReason: runExitReason,
      exitDetail: outcome === 'fixed' ? null : `[history] ${exitReason}`,
      phaseTimings,
      toolCalls,
      promptTokens,
      completionTokens,
      costUsd,
      attempt: 1,
      nextEventSeq: events.length,
      createdAt: this.past(queuedAt),
      startedAt: this.past(startedAt),
      finishedAt: this.past(finishedAt),
    });

    if (!fixStatus) {
      change.status = 'NO_FIX';
      change.statusReason = exitReason;
      change.updatedAt = this.past(finishedAt);
      if (searched) this.addDevelopersOwnFix({ change, revisionId, runId, template, at: finishedAt });
      return;
    }

    const fixId = rng.cuid();
    const gateMs = () => rng.int(800, 9000);
    const fix: Prisma.FixCreateManyInput = {
      id: fixId,
      runId,
      changeId: change.id!,
      revisionId,
      diff: template.diff,
      files: [template.file],
      summaryHtml: template.summary,
      evidence: {
        red: gate('red', true, gateMs()),
        green: gate('green', true, gateMs()),
        regression: gate('regression', true, gateMs()),
        final: gate('final', true, gateMs()),
        tests: template.tests,
        history: true,
      },
      status: fixStatus,
      dropReason,
      createdAt: this.past(finishedAt),
      updatedAt: this.past(finishedAt),
    };
    this.rows.fixes.push(fix);
    change.updatedAt = this.past(finishedAt);
    if (fixStatus === 'DROPPED') {
      change.status = dropReason === 'stale' ? 'STALE' : 'NO_FIX';
      change.statusReason = `dropped:${dropReason}`;
      if (dropReason === 'stale') this.addNewerRevision({ change, revisionId, at: finishedAt - rng.int(1, 4) * MINUTE });
      return;
    }
    change.status = 'FIX_READY';
    change.statusReason = null;
    this.addDecisions({ change, fix, readyAt: finishedAt, repoKind });
    this.addGrades({ fixId, readyAt: finishedAt });
  }

  /**
   * After a run that found nothing, half the developers push their own fix
   * within the hour: the next revision, whose files the workers' housekeeping
   * records (lib/insights/developer-files.ts; here written at once). It
   * touches the run's suspect in two cases of three, another file otherwise
   * (the run was mislocalised). Decided from the run's id, not drawn, so the
   * rest of the history stays the same.
   */
  private addDevelopersOwnFix({
    change,
    revisionId,
    runId,
    template,
    at,
  }: {
    change: Prisma.ChangeCreateManyInput;
    revisionId: string;
    runId: string;
    template: FixTemplate;
    at: number;
  }): void {
    const h = createHash('sha256').update(runId).digest();
    if (h[0]! % 2 === 1) return;
    const pushedAt = at + (5 + (h[1]! % 55)) * MINUTE;
    if (pushedAt > this.now - 5 * MINUTE) return;
    this.addNewerRevision({ change, revisionId, at: pushedAt });
    const old = this.rows.revisions.find((r) => r.id === revisionId)!;
    old.nextFiles = h[2]! % 3 === 0 ? [template.file.replace(/[^/]*$/, (name) => `settings${name.slice(name.lastIndexOf('.'))}`)] : [template.file];
  }

  /** the developer pushed a new revision while the run was working: its fix is stale */
  private addNewerRevision({ change, revisionId, at }: { change: Prisma.ChangeCreateManyInput; revisionId: string; at: number }): void {
    const headRev = this.rng.hex(40);
    const old = this.rows.revisions.find((r) => r.id === revisionId)!;
    old.supersededAt = this.past(at);
    this.rows.revisions.push({
      id: this.rng.cuid(),
      changeId: change.id!,
      number: 2,
      baseRev: change.baseRev,
      headRev,
      branch: change.branch,
      ciLog: '[history] all tests passed',
      createdAt: this.past(at),
    });
    change.headRev = headRev;
    change.revisionNumber = 2;
  }

  private addDecisions({
    change,
    fix,
    readyAt,
  }: {
    change: Prisma.ChangeCreateManyInput;
    fix: Prisma.FixCreateManyInput;
    readyAt: number;
    repoKind: HistoryRepository['kind'];
  }): void {
    const { rng } = this;
    if (!rng.chance(0.6)) return;
    // most reviews happen on the dashboard; the editor extension and the CLI share the rest
    const surface = rng.weighted([
      ['DASHBOARD', 60],
      ['IDE', 25],
      ['CLI', 15],
    ] as const);
    const userId = rng.pick(this.people.reviewers);
    const previewAt = readyAt + Math.min(3 * DAY, rng.logNormal(25, 1) * MINUTE);
    if (previewAt >= this.now - 10 * MINUTE) return;
    this.rows.decisions.push({ id: rng.cuid(), fixId: fix.id!, userId, kind: 'PREVIEW', surface, createdAt: new Date(previewAt) });

    const decideAt = this.past(previewAt + rng.int(1, 12) * MINUTE);
    // FlowAgent: applied/previewed 37.84% in the review tool, 59.69% in the IDE;
    // the CLI, like the IDE, is the developer's own checkout
    if (rng.chance(surface === 'DASHBOARD' ? 0.3784 : 0.5969)) {
      const edited = rng.chance(0.2);
      this.rows.decisions.push({
        id: rng.cuid(),
        fixId: fix.id!,
        userId,
        kind: edited ? 'EDIT_ACCEPT' : 'ACCEPT',
        surface,
        editedDiff: edited ? `${fix.diff}# [history] reviewer adjusted the fix before applying\n` : null,
        createdAt: decideAt,
      });
      fix.status = 'APPLIED';
      fix.appliedAt = decideAt;
      fix.appliedById = userId;
      fix.appliedCommit = rng.hex(40);
      fix.updatedAt = decideAt;
      change.status = 'APPLIED';
      change.updatedAt = decideAt;
    } else if (rng.chance(0.5)) {
      const reason = rng.weighted(REJECT_REASONS);
      this.rows.decisions.push({
        id: rng.cuid(),
        fixId: fix.id!,
        userId,
        kind: 'REJECT',
        surface,
        reason,
        reasonText: reason === 'OTHER' ? '[history] fixed it differently in the next revision' : null,
        createdAt: decideAt,
      });
      fix.status = 'REJECTED';
      fix.updatedAt = decideAt;
      change.status = 'REJECTED';
      change.updatedAt = decideAt;
    }
  }

  private addGrades({ fixId, readyAt }: { fixId: string; readyAt: number }): void {
    const { rng } = this;
    if (!rng.chance(0.7)) return;
    // FlowAgent's expert grading: 67.18% correct
    const truth: Label = rng.weighted([
      ['CORRECT', 67],
      ['OVERFITTING', 12],
      ['INCORRECT', 15],
      ['IRRELEVANT', 6],
    ] as const);
    const gradedAt = readyAt + rng.int(2, 48) * HOUR;
    if (gradedAt >= this.now - HOUR) return;
    const labels: Label[] = [];
    for (const graderId of this.people.graders) {
      const label = rng.chance(0.8) ? truth : rng.pick(LABELS.filter((l) => l !== truth));
      labels.push(label);
      const at = this.past(gradedAt + rng.int(0, 180) * MINUTE);
      this.rows.grades.push({
        id: rng.cuid(),
        fixId,
        graderId,
        label,
        rationale: `[history] ${label.toLowerCase()}`,
        createdAt: at,
        updatedAt: at,
      });
    }
    const disagreed = new Set(labels).size > 1;
    // as the product does it: unanimous labels settle on their own, with no
    // settler; a dispute is settled later by a person, most of the time
    if (!disagreed) {
      this.rows.consensus.push({
        id: rng.cuid(),
        fixId,
        label: labels[0],
        note: `Unanimous: ${labels.length} labels`,
        automatic: true,
        settledById: null,
        settledAt: this.past(gradedAt + 180 * MINUTE),
      });
      this.revealAt(fixId, this.past(gradedAt + 180 * MINUTE));
      return;
    }
    if (!rng.chance(0.8)) return;
    const settledAt = this.past(gradedAt + rng.int(4, 30) * HOUR);
    this.rows.consensus.push({
      id: rng.cuid(),
      fixId,
      label: truth,
      note: '[history] settled after discussion',
      automatic: false,
      settledById: this.people.settler,
      settledAt,
    });
    this.revealAt(fixId, settledAt);
  }

  private revealAt(fixId: string, at: Date): void {
    for (const graderId of this.people.graders) this.rows.reveals.push({ fixId, graderId, via: 'settled', revealedAt: at });
  }
}

/**
 * Generates `days` days of history ending before `now`: about `perDay`
 * failing changes a weekday, fewer at weekends.
 */
export function generateHistory({
  now,
  repositories,
  people,
  seed = 20261130,
  days = 28,
  perDay = 16,
}: {
  now: Date;
  repositories: HistoryRepository[];
  people: HistoryPeople;
  seed?: number;
  days?: number;
  perDay?: number;
}): HistoryRows {
  const rng = createRng(seed);
  const builder = new HistoryBuilder(rng, now.getTime(), people);
  const startOfToday = Math.floor(now.getTime() / DAY) * DAY;
  let index = 0;
  for (let d = days; d >= 1; d--) {
    const dayStart = startOfToday - d * DAY;
    const weekend = [0, 6].includes(new Date(dayStart).getUTCDay());
    const count = Math.max(0, Math.round((weekend ? 0.3 : 1) * perDay * (0.6 + rng.next() * 0.8)));
    const times = Array.from({ length: count }, () => dayStart + rng.int(7 * 60, 20 * 60) * MINUTE).sort((a, b) => a - b);
    for (const at of times) {
      const repo = rng.chance(0.6) ? repositories[0] : repositories[repositories.length - 1];
      builder.addChange({ repo, index: index++, at });
    }
  }
  return builder.rows;
}
