import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './globals.css';
import { Providers } from './providers';

// Every page is rendered per request: its scripts carry that request's CSP
// nonce (proxy.ts, lib/http/csp.ts), which a prerendered page could not.
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: 'flowfix',
  description: 'Fixes for failing changes, proven by their tests',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
