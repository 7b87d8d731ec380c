import { NextResponse } from 'next/server';
import { getDb } from '@/lib/db';
import { getEnv } from '@/lib/env';
import { withRoute } from '@/lib/http/route';
import { readIngestUpload } from '@/lib/ingest/body';
import { ingestFailureReport } from '@/lib/ingest/ingest-failure';

// Request schema: lib/ingest/schema.ts (IngestMetadataSchema); logic: lib/ingest/.

// POST /api/v1/failures — CI reports a failing revision of a change (JSON or multipart)
export const POST = withRoute({ auth: 'token' }, async ({ req, token }) => {
  const env = getEnv();
  const upload = await readIngestUpload({ req, maxBytes: env.FLOWFIX_MAX_UPLOAD_BYTES });
  const result = await ingestFailureReport({ db: getDb(), token, upload, limits: { maxLogBytes: env.FLOWFIX_MAX_LOG_BYTES } });
  return NextResponse.json(result, { status: result.created ? 201 : 200 });
});
