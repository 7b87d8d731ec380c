import { OverviewView } from '@/components/insights/overview-view';

export const metadata = { title: 'Insights · flowfix' };

export default function InsightsPage() {
  return <OverviewView />;
}
