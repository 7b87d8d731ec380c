import { withRoute } from '@/lib/http/route';
import { githubAppManifest } from '@/lib/hosts/manifest';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

// GET /api/admin/hosts/github-manifest — the GitHub App manifest to create flowfix's App from
export const GET = withRoute(ADMIN_ACCESS, async () => ({ manifest: githubAppManifest() }));
