import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { headers } from 'next/headers';
import './globals.css';
import { Providers } from './providers';
import { nonceFromPolicy } from '@/lib/http/csp';
import { THEME_SCRIPT } from '@/components/shell/theme';

// Every page is rendered per request: its scripts carry that request's CSP
// nonce (proxy.ts, lib/http/csp.ts), which a prerendered page could not.
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: 'flowfix',
  description: 'Fixes for failing changes, proven by their tests',
  // public/icon.svg, the same mark as the header's
  icons: { icon: { url: '/icon.svg', type: 'image/svg+xml' } },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const nonce = nonceFromPolicy((await headers()).get('content-security-policy'));
  return (
    // the theme script sets data-theme on <html> before React hydrates it
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* before the body is parsed: the first paint has the chosen theme (components/shell/theme.ts) */}
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
