import 'server-only';
import { getDb, type Db } from '../db';
import type { InsightsQuery, InsightsSection } from '../../common/insights-query';
import { resolveScope } from './scope';
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
  switch (section) {
    case 'overview':
      return { section, period, data: await overview({ scope, now, db }) };
    case 'funnel':
      return { section, period, data: await funnel({ scope, db }) };
    case 'adoption':
      return { section, period, data: await adoption({ scope, db }) };
    case 'latency':
      return { section, period, data: await latency({ scope, db }) };
    case 'cost':
      return { section, period, data: await cost({ scope, db }) };
    case 'quality':
    {
      const [noFix, graded] = await Promise.all([noFixReasons({ scope, db }), gradedPrecision({ scope })]);
      return { section, period, data: { noFix, precision: graded } };
    }
  }
}
