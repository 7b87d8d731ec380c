import 'server-only';
import { getDb } from '../db';
import type { CodeHost } from '../generated/prisma/client';
import { UserKind } from '../generated/prisma/enums';
import { CODE_REVIEW_DOMAIN_SUFFIX, CODE_REVIEW_HOST_LABEL } from '../../common/code-review-identity';

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

/** The identity for this host login, made on first use. */
export async function codeReviewIdentity({
  host,
  login,
}: {
  host: Pick<CodeHost, 'id' | 'kind'>;
  login: string;
}): Promise<{ id: string; name: string; email: string }> {
  const email = `${login.toLowerCase()}@${host.kind.toLowerCase()}-${host.id}${CODE_REVIEW_DOMAIN_SUFFIX}`;
  return getDb().user.upsert({
    where: { email },
    create: { email, name: `${login} (${CODE_REVIEW_HOST_LABEL[host.kind]})`, roles: [], kind: UserKind.CODE_REVIEW },
    // a row made before kinds existed is marked on its next use
    update: { kind: UserKind.CODE_REVIEW },
    select: { id: true, name: true, email: true },
  });
}
