import 'server-only';
import { getDb } from '../db';
import type { CodeHost } from '../generated/prisma/client';
import { UserKind } from '../generated/prisma/enums';

// The identity a code host's user decides as: `/flowfix apply` and
// `/flowfix reject` in a pull (merge) request are recorded as a flowfix user
// made for that login (`login@github-<hostid>.code-review.invalid`), so the
// decision has an author like any other. It is a record, never an account:
// no role (the host's permission check authorises the command), no password,
// kind CODE_REVIEW. Sign-in by password or single sign-on refuses it, a
// session for it is not honoured (lib/auth), the admin can give it neither a
// role nor a password (lib/users/service.ts), and grading never offers it.
// `.invalid` is reserved (RFC 2606): no mailbox, no identity provider, and no
// admin-made user can have an address there.

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

/** The identity for this host login, made on first use. */
export async function codeReviewIdentity({ host, login }: { host: Pick<CodeHost, 'id' | 'kind'>; login: string }): Promise<{ id: string; name: string; email: string }> {
  const email = `${login.toLowerCase()}@${host.kind.toLowerCase()}-${host.id}${CODE_REVIEW_DOMAIN_SUFFIX}`;
  return getDb().user.upsert({
    where: { email },
    create: { email, name: `${login} (${CODE_REVIEW_HOST_LABEL[host.kind]})`, roles: [], kind: UserKind.CODE_REVIEW },
    // a row made before kinds existed is marked on its next use
    update: { kind: UserKind.CODE_REVIEW },
    select: { id: true, name: true, email: true },
  });
}
