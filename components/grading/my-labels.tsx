'use client';

import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { formatAgo } from '@/common/format';
import { requestJson, retryUnlessClientError } from '../api-client';
import { LabelBadge } from './labels';
import type { MyItem } from './types';

export function useMyItems(queueId: string) {
  return useQuery({
    queryKey: ['grading', 'queue', queueId, 'mine'],
    queryFn: ({ signal }) => requestJson<{ items: MyItem[] }>(`/api/grading/queues/${encodeURIComponent(queueId)}/mine`, { signal }).then((r) => r.items),
    retry: retryUnlessClientError,
  });
}

// The signed-in grader's own labels and skips in a queue, in queue order,
// each a link back to the item (to revise while blind, or to dispute once
// locked). Only their own judgement; the settled label once they have seen it.
export function MyLabels({ queueId }: { queueId: string }) {
  const mine = useMyItems(queueId);
  return (
    <section className="card" aria-labelledby="my-labels-title" id="my-labels" data-testid="my-labels">
      <h2 className="card-title" id="my-labels-title">
        My labels{' '}
        {mine.data && (
          <span className="muted small">
            ({mine.data.filter((i) => i.label).length} labelled, {mine.data.filter((i) => !i.label).length} skipped)
          </span>
        )}
      </h2>
      {mine.isPending && <p className="muted">Loading…</p>}
      {mine.isError && <div className="alert alert-error">{mine.error.message}</div>}
      {mine.data?.length === 0 && (
        <p className="muted" data-testid="my-labels-empty">
          You have not labelled or skipped anything in this queue yet.
        </p>
      )}
      {mine.data && mine.data.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="My labels">
          <table className="table my-labels">
            <thead>
              <tr>
                <th className="num">Item</th>
                <th>Change</th>
                <th>Mine</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {mine.data.map((i) => (
                <tr key={i.itemId} data-testid="my-label" data-item-id={i.itemId}>
                  <td className="num">{i.position + 1}</td>
                  <td>
                    <Link href={`/grading/${queueId}/grade?item=${encodeURIComponent(i.itemId)}`}>{i.change.title}</Link>
                    <div className="muted small">
                      {i.change.repository} · {i.change.externalId}
                    </div>
                  </td>
                  <td>
                    {i.label ? (
                      <>
                        <LabelBadge label={i.label} /> {i.labelledAt && <span className="muted small">{formatAgo(i.labelledAt)}</span>}
                      </>
                    ) : (
                      <span data-testid="my-label-skipped">
                        Skipped <span className="muted small skip-reason">— {i.skipReason}</span>
                      </span>
                    )}
                  </td>
                  <td className="small">
                    {i.consensus ? (
                      <>
                        Settled as <LabelBadge label={i.consensus} />
                      </>
                    ) : i.settled ? (
                      'Settled'
                    ) : i.locked ? (
                      'Final (a change of mind is a dispute)'
                    ) : i.label ? (
                      <span className="muted">Open: you may revise it</span>
                    ) : (
                      <span className="muted">Open: you may still label it</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
