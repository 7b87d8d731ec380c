import { notFound } from 'next/navigation';
import { FunnelView } from '@/components/insights/funnel-view';
import { AdoptionView } from '@/components/insights/adoption-view';
import { LatencyView } from '@/components/insights/latency-view';
import { CostView } from '@/components/insights/cost-view';
import { QualityView } from '@/components/insights/quality-view';

const VIEWS = {
  funnel: { title: 'Funnel', View: FunnelView },
  adoption: { title: 'Adoption', View: AdoptionView },
  latency: { title: 'Latency', View: LatencyView },
  cost: { title: 'Effort & cost', View: CostView },
  quality: { title: 'Quality', View: QualityView },
} as const;

export async function generateMetadata({ params }: { params: Promise<{ section: string }> }) {
  const { section } = await params;
  const view = VIEWS[section as keyof typeof VIEWS];
  return { title: `${view ? view.title : 'Insights'} · Insights · flowfix` };
}

export default async function InsightsSectionPage({ params }: { params: Promise<{ section: string }> }) {
  const { section } = await params;
  const view = VIEWS[section as keyof typeof VIEWS];
  if (!view || !Object.hasOwn(VIEWS, section)) notFound();
  return <view.View />;
}
