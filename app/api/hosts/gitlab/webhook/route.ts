import { NextResponse } from 'next/server';
import { withRoute } from '@/lib/http/route';
import { acceptDelivery, webhookAccess } from '@/lib/hosts/webhooks';

// POST /api/hosts/gitlab/webhook — a delivery from a GitLab project or group hook (with its secret token):
// recorded and queued, processed in the background (lib/code-review/process.ts)
export const POST = withRoute(webhookAccess('gitlab'), async ({ webhook }) => {
  const accepted = await acceptDelivery('gitlab', webhook);
  return NextResponse.json(accepted, { status: accepted.status === 'queued' ? 202 : 200 });
});
