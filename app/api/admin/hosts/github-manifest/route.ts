import { withRoute } from '@/lib/http/route';
import { githubAppManifest } from '@/lib/hosts/manifest';

export const dynamic = 'force-dynamic';

// GET /api/admin/hosts/github-manifest — the GitHub App manifest to create flowfix's App from
export const GET = withRoute({ auth: 'session', roles: ['ADMIN'] }, async () => ({ manifest: githubAppManifest() }));
