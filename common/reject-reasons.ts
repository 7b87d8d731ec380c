// The reasons a reviewer gives when rejecting a fix, as every surface offers
// them (the dashboard's review panel, the editor extension). The values are
// the RejectReason enum's; OTHER needs a few words of text.

export const REJECT_REASONS = [
  { value: 'WRONG_FIX', label: 'Wrong fix' },
  { value: 'NOT_HOW_I_WOULD', label: 'Correct, but not how I would do it' },
  { value: 'TESTS_TAMPERED', label: 'Tests tampered with' },
  { value: 'TOO_LATE', label: 'Too late' },
  { value: 'IRRELEVANT', label: 'Irrelevant' },
  { value: 'OTHER', label: 'Other' },
] as const;
export type RejectReasonValue = (typeof REJECT_REASONS)[number]['value'];
