import Link from 'next/link';
import type { SessionUser } from '@/lib/auth/session';
import { BROWSE_ROLES, GRADING_ROLES, INSIGHTS_ROLES, hasRoleIn, homeFor } from '@/common/roles';
import { NavLinks } from './nav-links';
import { SignOutButton } from './sign-out-button';
import { ThemeToggle } from './theme-toggle';

export function AppHeader({ user }: { user: SessionUser }) {
  const links = [
    ...(hasRoleIn(user.roles, BROWSE_ROLES)
      ? [
          { href: '/changes', label: 'Changes' },
          { href: '/review', label: 'Review' },
          { href: '/runs', label: 'Runs' },
        ]
      : []),
    ...(hasRoleIn(user.roles, GRADING_ROLES) ? [{ href: '/grading', label: 'Grading' }] : []),
    ...(hasRoleIn(user.roles, INSIGHTS_ROLES) ? [{ href: '/insights', label: 'Insights' }] : []),
    ...(user.roles.includes('ADMIN') ? [{ href: '/admin', label: 'Admin' }] : []),
  ];
  return (
    <header className="shell-header">
      <Link href={homeFor(user.roles)} className="shell-brand">
        <span className="shell-brand-mark" aria-hidden /> flowfix
      </Link>
      <NavLinks links={links} />
      <div className="shell-user" data-testid="current-user">
        <span>{user.name}</span>
        <span className="muted small">{user.roles.map((r) => r.toLowerCase()).join(' · ') || 'no role'}</span>
        <Link href="/settings/tokens" data-testid="user-tokens-link">
          Tokens
        </Link>
        <ThemeToggle />
        <SignOutButton />
      </div>
    </header>
  );
}
