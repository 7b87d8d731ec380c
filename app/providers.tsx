'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useLayoutEffect, useState, type ReactNode } from 'react';
import { z } from 'zod';
import { ensureTheme } from '@/components/shell/theme';

// zod probes for eval (new Function) to compile faster parsers; under our
// Content-Security-Policy the probe is blocked and reported as a violation
// even though zod catches it. The browser parses small inputs: no JIT needed.
if (typeof window !== 'undefined') z.config({ jitless: true });

// pages rendered in the browser alone did not run the layout's inline theme script
if (typeof window !== 'undefined') ensureTheme();

export function Providers({ children }: { children: ReactNode }) {
  // one client per browser tab; created in state so it survives re-renders
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: false, retry: 1 } } }));
  // after React's first commit, which on a page drawn in the browser alone reset <html>'s attributes
  useLayoutEffect(ensureTheme, []);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
