// The addresses of code-review identities (lib/users/code-review.ts): a
// person a code host authorised, recorded as a user that can never sign in.
// Shared by sign-in (lib/auth), the admin's user forms and the user list.

export const CODE_REVIEW_DOMAIN_SUFFIX = '.code-review.invalid';

export function isCodeReviewEmail(email: string): boolean {
  return email.trim().toLowerCase().endsWith(CODE_REVIEW_DOMAIN_SUFFIX);
}

export const CODE_REVIEW_HOST_LABEL = { GITHUB: 'GitHub', GITLAB: 'GitLab' } as const;

/** The code host a code-review identity's address names ("GitHub", "GitLab"); null for anyone else. */
export function codeReviewHostOf(email: string): string | null {
  const m = /@(github|gitlab)-[^@]*\.code-review\.invalid$/i.exec(email);
  return m ? CODE_REVIEW_HOST_LABEL[m[1].toUpperCase() as keyof typeof CODE_REVIEW_HOST_LABEL] : null;
}
