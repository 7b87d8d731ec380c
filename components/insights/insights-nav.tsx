'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useInsightsFilter } from './use-insights';

export const SECTION_LINKS = [
  { href: '/insights', label: 'Overview' },
  { href: '/insights/funnel', label: 'Funnel' },
  { href: '/insights/adoption', label: 'Adoption' },
  { href: '/insights/latency', label: 'Latency' },
  { href: '/insights/cost', label: 'Effort & cost' },
  { href: '/insights/quality', label: 'Quality' },
] as const;

/** The sections, each link keeping the filter. */
export function InsightsNav() {
  const pathname = usePathname();
  const [, , qs] = useInsightsFilter();
  return (
    <nav className="admin-tabs" aria-label="Insights sections" data-testid="insights-nav">
      {SECTION_LINKS.map((l) => (
        <Link key={l.href} href={qs ? `${l.href}?${qs}` : l.href} className="admin-tab" aria-current={pathname === l.href ? 'page' : undefined}>
          {l.label}
        </Link>
      ))}
    </nav>
  );
}
