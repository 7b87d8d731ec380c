import 'server-only';
import { getDb, type Db } from '../db';
import type { InsightsQuery, InsightsSection } from '../../common/insights-query';
import { resolveScope, scopeReader } from './scope';
import { withInsightsSnapshot } from './read';
import { funnel } from './funnel';
import { adoption } from './adoption';
import { latency } from './latency';
import { cost } from './cost';
import { gradedPrecision, noFixReasons } from './quality';
import { overview } from './overview';

// One entry point for the API route and the pages: a section of Insights for
// a URL filter. Every figure is computed in the section's own module.

export type { Funnel } from './funnel';
export type { Adoption } from './adoption';
export type { Latency } from './latency';
export type { Cost } from './cost';
export type { NoFixReasons, GradedPrecision } from './quality';
export type { Overview } from './overview';

export async function insightsSection({
  section,
  query,
  now = new Date(),
  db = getDb(),
}: {
  section: InsightsSection;
  query: InsightsQuery;
  now?: Date;
  db?: Db;
}) {
  const scope = await resolveScope({ query, now, db });
  const period = { from: scope.from?.toISOString() ?? null, to: scope.to.toISOString() };
  // every read of the section in one snapshot: rollups and raw rows as of one moment
  const data = await withInsightsSnapshot(db, async (tx) => {
    const reader = scopeReader(tx, scope);
    switch (section) {
      case 'overview':
        return overview({ scope, tx });
      case 'funnel':
        return funnel({ scope, reader });
      case 'adoption':
        return adoption({ scope, reader });
      case 'latency':
        return latency({ scope, reader });
      case 'cost':
        return cost({ scope, reader });
      case 'quality': {
        const [noFix, graded] = await Promise.all([noFixReasons({ scope, reader }), gradedPrecision({ scope, reader })]);
        return { noFix, precision: graded };
      }
    }
  });
  return { section, period, data };
}
