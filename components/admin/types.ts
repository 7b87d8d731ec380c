import type { AdminUserView } from '@/lib/users/service';
import type { CiTokenView } from '@/lib/tokens/ci-tokens';
import type { RepositoryView } from '@/lib/repositories/service';
import type { RoleName } from '@/common/roles';
import type { Jsonify } from '@/common/json';
import type { AuditView } from '@/lib/audit';

// The admin API's JSON: the server's view types with dates as ISO strings.
// (Type-only imports: nothing from lib/ reaches the browser bundle.)

export type AdminUser = Jsonify<AdminUserView>;
export type AdminToken = Jsonify<CiTokenView>;
export type AdminRepository = Jsonify<RepositoryView>;

export { ROLES, type RoleName } from '@/common/roles';

export const ROLE_HELP: Record<RoleName, string> = {
  REVIEWER: 'reviews fixes: preview, accept, edit, reject',
  GRADER: 'labels fixes blind in grading queues (sees no reviewers’ decisions)',
  MANAGER: 'sees adoption and quality metrics',
  ADMIN: 'repositories, users, tokens, settings',
};

export type AdminAuditEntry = Jsonify<AuditView>;

export type { HostView as AdminHost, HostRepositoryView as AdminHostRepository } from '@/lib/hosts/views';
