import { NextResponse } from 'next/server';
import { withRoute } from '@/lib/http/route';
import { acceptDelivery, webhookAccess } from '@/lib/hosts/webhooks';

// POST /api/hosts/github/webhook — a delivery from the GitHub App (signed with its webhook secret):
// recorded and queued, processed in the background (lib/code-review/process.ts)
export const POST = withRoute(webhookAccess('github'), async ({ webhook }) => {
  const accepted = await acceptDelivery('github', webhook);
  return NextResponse.json(accepted, { status: accepted.status === 'queued' ? 202 : 200 });
});
