import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { AppError } from '@/lib/errors';
import { runExists } from '@/lib/runs/queries';
import { SSE_HEADERS, createRunEventStream, parseResumePoint } from '@/lib/runs/stream';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

// GET /api/runs/:id/events — the run's trajectory as Server-Sent Events:
// saved events after Last-Event-ID (or ?after=), then new ones as they are
// saved; a finished run ends with `event: end`. (The editor extension follows
// a run with its personal token.)
export const GET = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES; allowPersonalToken: true }, { id: string }>(
  { auth: 'session', roles: BROWSE_ROLES, allowPersonalToken: true },
  async ({ req, params }) => {
    const afterSeq = parseResumePoint({
      lastEventId: req.headers.get('last-event-id'),
      after: req.nextUrl.searchParams.get('after'),
    });
    if (!(await runExists({ id: params.id }))) throw new AppError('not_found', 'No such run');
    const body = createRunEventStream({ runId: params.id, afterSeq, signal: req.signal });
    return new Response(body, { headers: SSE_HEADERS });
  },
);
