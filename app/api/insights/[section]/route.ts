import { withRoute } from '@/lib/http/route';
import { AppError } from '@/lib/errors';
import { INSIGHTS_ROLES } from '@/common/roles';
import { insightsSection } from '@/lib/insights';
import { INSIGHTS_SECTIONS, parseInsightsQuery, type InsightsSection } from '@/common/insights-query';

export const dynamic = 'force-dynamic';

// GET /api/insights/{overview|funnel|adoption|latency|cost|quality}?period=…&repo=…
// Managers and admins only. Times in the answer are UTC ISO instants.
export const GET = withRoute<{ auth: 'session'; roles: typeof INSIGHTS_ROLES }, { section: string }>(
  { auth: 'session', roles: INSIGHTS_ROLES },
  async ({ req, params }) => {
    if (!(INSIGHTS_SECTIONS as readonly string[]).includes(params.section)) {
      throw new AppError('not_found', `No Insights section "${params.section}"`);
    }
    const query = parseInsightsQuery(req.nextUrl.searchParams);
    const result = await insightsSection({ section: params.section as InsightsSection, query });
    return Response.json(result, { headers: { 'Cache-Control': 'private, no-store' } });
  },
);
