import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Lets several builds coexist in one checkout (parallel work, benchmarks):
  // NEXT_DIST_DIR=.next-other next build && NEXT_DIST_DIR=.next-other next start
  distDir: process.env.NEXT_DIST_DIR ?? '.next',
  // PGlite ships WASM and data files it loads from its own folder at run time;
  // pg-boss and pg are Node-only. Bundling them breaks those paths.
  serverExternalPackages: ['@electric-sql/pglite', '@electric-sql/pglite-socket', 'pglite-prisma-adapter', 'pg', 'pg-boss', 'typescript'],
  poweredByHeader: false,
  // forbidden() from next/navigation: a page the user's roles do not open answers 403
  experimental: { authInterrupts: true },
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
          { key: 'X-Frame-Options', value: 'DENY' },
          // (the Content-Security-Policy is per request, with a nonce: proxy.ts sets it)
          // nothing in flowfix uses these; a page (or injected markup) may not ask for them
          {
            key: 'Permissions-Policy',
            value: 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), accelerometer=(), gyroscope=(), magnetometer=()',
          },
        ],
      },
    ];
  },
};

export default nextConfig;
