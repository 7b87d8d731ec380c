// The grading vocabulary the grading pages and the server share: the four
// labels, the optional tags, and the rule that a label other than "correct"
// needs a rationale.

export const GRADE_LABELS = ['CORRECT', 'OVERFITTING', 'INCORRECT', 'IRRELEVANT'] as const;
export type GradeLabelName = (typeof GRADE_LABELS)[number];

export const GRADE_LABEL_TEXT: Record<GradeLabelName, { name: string; hint: string }> = {
  CORRECT: { name: 'Correct', hint: 'A general repair, as a careful developer would write it' },
  OVERFITTING: { name: 'Overfitting', hint: 'Passes the tests but is not a general repair' },
  INCORRECT: { name: 'Incorrect', hint: 'Wrong: breaks behaviour or does not repair the failure' },
  IRRELEVANT: { name: 'Irrelevant', hint: 'Does not address this failure at all' },
};

export const GRADE_TAGS = ['test_tampering', 'reverts_intent', 'partial', 'style_mismatch', 'unsafe'] as const;
export type GradeTagName = (typeof GRADE_TAGS)[number];

export const GRADE_TAG_TEXT: Record<GradeTagName, string> = {
  test_tampering: 'Test tampering',
  reverts_intent: "Reverts the change's intent",
  partial: 'Partial',
  style_mismatch: 'Style mismatch',
  unsafe: 'Unsafe',
};

/** Does this label need a rationale? Everything but "correct" does. */
export function rationaleRequired(label: GradeLabelName): boolean {
  return label !== 'CORRECT';
}

/** The longest rationale, settlement note or skip reason accepted. */
export const GRADING_TEXT_MAX = 4000;

/** "0.742", or "n/a" for a statistic that is undefined on this data. */
export function formatStatistic(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);
}

/** Where the settled fixes come from: a count larger than one queue's is explained. */
export function settledSourcesText(sources: { queues: Array<{ name: string; settled: number }>; demoHistory: number; noQueue: number }): string {
  const parts = [
    ...sources.queues.map((q) => `${q.settled} in the grading queue “${q.name}”`),
    ...(sources.demoHistory > 0 ? [`${sources.demoHistory} seeded with the demo’s history (settled before any queue)`] : []),
    ...(sources.noQueue > 0 ? [`${sources.noQueue} settled outside any queue`] : []),
  ];
  return parts.join(', ');
}
