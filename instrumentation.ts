// Next's start-up hook: runs once per server process before it serves.
// NEXT_RUNTIME is how Next tells its runtimes apart and must be read before
// any Node-only module is imported, so it is the one variable read here
// rather than through lib/env.ts. The Node-only code is imported lazily.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // first, so the requests that follow carry their client's address
  const { installClientAddressStamp } = await import('./lib/http/client-address');
  installClientAddressStamp();
  const { startServerServices } = await import('./agent/worker/embedded');
  await startServerServices();
}
