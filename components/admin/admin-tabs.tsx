import Link from 'next/link';

export const ADMIN_TABS = [
  { id: 'users', label: 'Users' },
  { id: 'tokens', label: 'CI tokens' },
  { id: 'repositories', label: 'Repositories' },
  { id: 'models', label: 'Model prices' },
  { id: 'hosts', label: 'Code hosts' },
  { id: 'audit', label: 'Audit log' },
] as const;
export type AdminTabId = (typeof ADMIN_TABS)[number]['id'];

export function parseAdminTab(raw: string | string[] | undefined): AdminTabId {
  const value = Array.isArray(raw) ? raw[0] : raw;
  return ADMIN_TABS.find((t) => t.id === value)?.id ?? 'users';
}

export function AdminTabs({ current }: { current: AdminTabId }) {
  return (
    <nav className="admin-tabs" role="tablist" aria-label="Admin sections">
      {ADMIN_TABS.map((t) => (
        <Link
          key={t.id}
          href={`/admin?tab=${t.id}`}
          role="tab"
          aria-selected={t.id === current}
          aria-current={t.id === current ? 'page' : undefined}
          className="admin-tab"
          data-testid={`admin-tab-${t.id}`}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
