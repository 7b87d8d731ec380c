import type { Metadata } from 'next';
import { requirePageUser } from '@/lib/auth/page';
import { AdminTabs, parseAdminTab } from '@/components/admin/admin-tabs';
import { UsersPanel } from '@/components/admin/users-panel';
import { TokensPanel } from '@/components/admin/tokens-panel';
import { RepositoriesPanel } from '@/components/admin/repositories-panel';
import { AuditPanel } from '@/components/admin/audit-panel';
import { HostsPanel } from '@/components/admin/hosts-panel';
import { SandboxPanel } from '@/components/admin/sandbox-panel';
import { ModelPricesPanel } from '@/components/admin/model-prices-panel';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Admin · flowfix' };

export default async function AdminPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // the API routes check ADMIN again; this keeps other roles off the page itself
  const user = await requirePageUser(['ADMIN']);
  const tab = parseAdminTab((await searchParams).tab);
  return (
    <main className="page">
      <h1 className="page-title">Admin</h1>
      <p className="page-subtitle">
        Users and roles, CI tokens, the repositories flowfix repairs, the model price table and the code hosts they live on. Every change here is audited.
      </p>
      <SandboxPanel />
      <AdminTabs current={tab} />
      <div role="tabpanel" data-testid={`admin-panel-${tab}`}>
        {tab === 'users' && <UsersPanel currentUserId={user.id} />}
        {tab === 'tokens' && <TokensPanel />}
        {tab === 'repositories' && <RepositoriesPanel />}
        {tab === 'models' && <ModelPricesPanel />}
        {tab === 'hosts' && <HostsPanel />}
        {tab === 'audit' && <AuditPanel />}
      </div>
    </main>
  );
}
