import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CHANGE_STATUS_LABELS,
  DECISION_KIND_LABELS,
  DROP_REASON_LABELS,
  EXIT_REASON_LABELS,
  FIX_STATUS_LABELS,
  GRADE_LABEL_LABELS,
  NO_FIX_CATEGORY_LABELS,
  REJECT_REASON_LABELS,
  RUN_STATUS_LABELS,
  RUN_TRIGGER_LABELS,
  SKIP_REASON_LABELS,
  SURFACE_LABELS,
  dropReasonLabel,
  exitReasonLabel,
  rejectReasonLabel,
  skipReasonLabel,
  statusReasonLabel,
} from '@/common/labels';
import { EXIT_REASONS, NO_FIX_CATEGORIES } from '@/common/exit-reasons';
import { POST_FILTER_REASONS, PRE_FILTER_REASONS } from '@/common/filter-reasons';

// Every code has words: the codes are read from where they are defined (the
// Prisma schema's enums, common/'s lists of filter and exit reasons), not
// listed again here, so a code added there without a label fails this test.

const root = path.resolve(import.meta.dirname, '../../..');
const source = (file: string) => readFileSync(path.join(root, file), 'utf8');

function prismaEnum(name: string): string[] {
  const body = new RegExp(`^enum ${name} \\{([^}]*)\\}`, 'm').exec(source('prisma/schema.prisma'))?.[1];
  assert.ok(body, `enum ${name} in prisma/schema.prisma`);
  return body
    .split('\n')
    .map((l) => l.replace(/\/\/.*$/, '').trim())
    .filter(Boolean);
}

function assertLabelled(table: Record<string, string>, codes: string[], what: string) {
  for (const code of codes) {
    assert.ok(Object.hasOwn(table, code), `${what} ${code} has no label in common/labels.ts`);
    const label = table[code]!;
    // words, not the code again (an acronym such as CLI is its own word)
    assert.ok(label.length > 0 && !/_/.test(label) && (label !== code || code.length <= 3), `${what} ${code}: "${label}" is not words`);
  }
}

describe('common/labels', () => {
  test('every value of the Prisma enums Insights and the pages show has a label', () => {
    assertLabelled(CHANGE_STATUS_LABELS, prismaEnum('ChangeStatus'), 'ChangeStatus');
    assertLabelled(RUN_STATUS_LABELS, prismaEnum('RunStatus'), 'RunStatus');
    assertLabelled(FIX_STATUS_LABELS, prismaEnum('FixStatus'), 'FixStatus');
    assertLabelled(RUN_TRIGGER_LABELS, prismaEnum('RunTrigger'), 'RunTrigger');
    assertLabelled(SURFACE_LABELS, prismaEnum('Surface'), 'Surface');
    assertLabelled(DECISION_KIND_LABELS, prismaEnum('DecisionKind'), 'DecisionKind');
    assertLabelled(GRADE_LABEL_LABELS, prismaEnum('GradeLabel'), 'GradeLabel');
    assertLabelled(REJECT_REASON_LABELS, prismaEnum('RejectReason'), 'RejectReason');
  });

  test('every filter reason and exit reason has a label', () => {
    assertLabelled(SKIP_REASON_LABELS, [...PRE_FILTER_REASONS], 'skip reason');
    assertLabelled(DROP_REASON_LABELS, [...POST_FILTER_REASONS], 'drop reason');
    assertLabelled(EXIT_REASON_LABELS, [...EXIT_REASONS], 'exit reason');
    assertLabelled(NO_FIX_CATEGORY_LABELS, [...NO_FIX_CATEGORIES], 'no-fix category');
  });

  test('the lookups: prefixes, unknown codes and empty values', () => {
    assert.equal(skipReasonLabel('known_flaky'), 'Only known-flaky tests failed');
    assert.equal(dropReasonLabel('dropped:stale'), 'Stale: a newer commit arrived first');
    assert.equal(dropReasonLabel('stale'), 'Stale: a newer commit arrived first');
    assert.equal(exitReasonLabel('dropped:reverts_change'), "Dropped: reverts the change's own edits");
    assert.equal(exitReasonLabel('not_reproduced'), 'Not reproduced');
    assert.equal(rejectReasonLabel('WRONG_FIX'), 'Wrong fix');
    assert.equal(statusReasonLabel('bot_author'), 'Author is a bot');
    assert.equal(statusReasonLabel('no_candidate'), 'No candidate passed');
    // a status reason written as a sentence (an edited fix's refusal) is shown as written: its test ids and quotes intact
    const refusal =
      "The edited fix did not pass re-validation: failing: tests/test_fees.py::test_overdraft_fee_is_35 (assert Decimal('35.00') == Decimal('36.00'))";
    assert.equal(statusReasonLabel(refusal), refusal);
    // a code no record knows still reads as words
    assert.equal(exitReasonLabel('some_new_reason'), 'Some new reason');
    assert.equal(rejectReasonLabel('NEW_REASON'), 'New reason');
    assert.equal(skipReasonLabel(null), '—');
  });
});
