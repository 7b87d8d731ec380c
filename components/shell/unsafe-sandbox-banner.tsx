import { readSandboxMode } from '@/lib/sandbox/settings';

// Shown on every signed-in page while an admin has the sandbox switched off
// (lib/sandbox/settings.ts): repository code then runs with the server's rights.
export async function UnsafeSandboxBanner() {
  if ((await readSandboxMode()) !== 'unsafe') return null;
  return (
    <div className="unsafe-banner" role="alert" data-testid="unsafe-sandbox-banner">
      Unsafe mode: repository commands may run without the sandbox, with access to this server. An admin can switch it off on the Admin page.
    </div>
  );
}
