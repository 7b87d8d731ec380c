import { readQuery, withRoute } from '@/lib/http/route';
import { GRADING_MANAGER_ACCESS, NO_STORE } from '@/lib/grading/access';
import { precision, reviewersVsGraders, settledSources, type PrecisionResponse } from '@/lib/insights/precision';
import { PrecisionQuerySchema } from '@/lib/grading/schemas';

export const dynamic = 'force-dynamic';

// GET /api/grading/precision?from=&to=&repositoryId=&policy=&model=&groupBy= — label shares over settled fixes, where they were settled, and reviewers beside graders
export const GET = withRoute(GRADING_MANAGER_ACCESS, async ({ req }) => {
  const { groupBy, ...filter } = readQuery(req, PrecisionQuerySchema);
  const [overall, groups, reviewers, sources] = await Promise.all([
    precision(filter),
    groupBy ? precision(filter, groupBy) : Promise.resolve([]),
    reviewersVsGraders(filter),
    settledSources(filter),
  ]);
  return Response.json({ overall: overall[0]!, groups, reviewers, sources } satisfies PrecisionResponse, { headers: NO_STORE });
});
