'use client';

import type { AcceptResult } from '@/lib/fixes/apply';
import type { RejectResult } from '@/lib/fixes/decisions';
import type { EditAcceptResult } from '@/lib/fixes/edit-accept';
import type { Jsonify } from '@/common/json';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { requestJson } from '../api-client';

// The decision endpoints belong to the review-apply module (app/api/fixes/[id]/*);
// these hooks only call them and refresh what the page shows afterwards.

// one list for every surface (the editor extension offers the same reasons)
import type { RejectReasonValue as RejectReason } from '@/common/reject-reasons';
export { REJECT_REASONS, type RejectReasonValue as RejectReason } from '@/common/reject-reasons';

const fixUrl = (fixId: string, action: string) => `/api/fixes/${encodeURIComponent(fixId)}/${action}`;

function useRefreshAfterDecision() {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: ['change'] });
    void client.invalidateQueries({ queryKey: ['review-queue'] });
  };
}

/** Records that the reviewer opened the diff (the server records the surface: dashboard, from the session cookie). */
export function useRecordPreview() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (fixId: string) => requestJson<unknown>(fixUrl(fixId, 'preview'), { method: 'POST', body: {} }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['change'] }),
  });
}

export function useAcceptFix() {
  const refresh = useRefreshAfterDecision();
  return useMutation({
    mutationFn: (fixId: string) => requestJson<Jsonify<AcceptResult>>(fixUrl(fixId, 'accept'), { method: 'POST', body: {} }),
    onSettled: refresh,
  });
}

export function useRejectFix() {
  const refresh = useRefreshAfterDecision();
  return useMutation({
    mutationFn: ({ fixId, reason, text }: { fixId: string; reason: RejectReason; text?: string }) =>
      requestJson<Jsonify<RejectResult>>(fixUrl(fixId, 'reject'), { method: 'POST', body: { reason, ...(text ? { text } : {}) } }),
    onSettled: refresh,
  });
}

/**
 * Edit then accept: the edited modified sides go to /edit-accept, where the
 * server turns them into a diff against the same originals the viewer showed
 * and re-validates it (a REVALIDATE run) before applying; it answers with the
 * run to follow.
 */
export function useEditAcceptFix() {
  const refresh = useRefreshAfterDecision();
  return useMutation({
    mutationFn: ({ fixId, files }: { fixId: string; files: Array<{ path: string; modified: string }> }) =>
      requestJson<Jsonify<EditAcceptResult>>(fixUrl(fixId, 'edit-accept'), { method: 'POST', body: { files } }),
    onSettled: refresh,
  });
}

/** POST /api/changes/:id/runs (the runs module's route): start a repair run now. */
export function useRunAgent() {
  return useMutation({
    mutationFn: (changeId: string) =>
      requestJson<{ runId?: string; id?: string; run?: { id?: string } }>(`/api/changes/${encodeURIComponent(changeId)}/runs`, {
        method: 'POST',
        body: {},
      }),
  });
}

export function runIdOf(result: { runId?: string; id?: string; run?: { id?: string } }): string | null {
  return result.runId ?? result.run?.id ?? result.id ?? null;
}
