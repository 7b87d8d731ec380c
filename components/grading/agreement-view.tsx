'use client';

import { useQuery } from '@tanstack/react-query';
import { formatStatistic, GRADE_LABEL_TEXT } from '@/common/grading';
import { formatPercent } from '@/common/format';
import { requestJson, retryUnlessClientError } from '../api-client';
import type { QueueAgreement } from './types';

function Figure({ name, value, note, testId }: { name: string; value: string; note: string; testId: string }) {
  return (
    <div className="figure" data-testid={testId}>
      <div className="figure-name">{name}</div>
      <div className="figure-value">{value}</div>
      <div className="figure-note">{note}</div>
    </div>
  );
}

// A queue's agreement: the whole-queue figures, Cohen's kappa for every pair
// of graders with its confusion matrix, and each grader against the settled label.
export function AgreementView({ queueId }: { queueId: string }) {
  const stats = useQuery({
    queryKey: ['grading', 'queue', queueId, 'agreement'],
    queryFn: ({ signal }) => requestJson<QueueAgreement>(`/api/grading/queues/${encodeURIComponent(queueId)}/agreement`, { signal }),
    retry: retryUnlessClientError,
  });
  if (stats.isPending) return <div className="card muted">Loading agreement…</div>;
  if (stats.isError) return <div className="alert alert-error">{stats.error.message}</div>;
  const s = stats.data;
  const short = (l: string) => GRADE_LABEL_TEXT[l as keyof typeof GRADE_LABEL_TEXT]?.name.slice(0, 4) ?? l;
  return (
    <section className="card" aria-labelledby="agreement-title" data-testid="agreement">
      <h2 className="card-title" id="agreement-title">
        Agreement{' '}
        <span className="muted small">
          over {s.rated} items with two or more labels ({s.labels} labels)
        </span>
      </h2>
      <div className="figure-row">
        <Figure
          testId="percent-agreement"
          name="Percent agreement"
          value={formatPercent(s.percentAgreement, 1, 'n/a')}
          note="agreeing pairs of labels per item"
        />
        <Figure testId="fleiss-kappa" name="Fleiss’ κ" value={formatStatistic(s.fleissKappa)} note="chance-corrected, all graders" />
        <Figure testId="krippendorff-alpha" name="Krippendorff’s α" value={formatStatistic(s.krippendorffAlpha)} note="nominal, missing labels allowed" />
      </div>
      <h3 className="admin-subhead">Grader pairs (Cohen’s κ)</h3>
      {s.pairs.length === 0 ? (
        <p className="muted small">No two graders have labelled yet.</p>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Agreement between grader pairs">
          <table className="table table-cards" data-testid="pair-table">
            <thead>
              <tr>
                <th>Pair</th>
                <th className="num">Shared items</th>
                <th className="num">Agreement</th>
                <th className="num">Cohen’s κ</th>
                <th>Confusion (rows: first, columns: second)</th>
              </tr>
            </thead>
            <tbody>
              {s.pairs.map((p) => (
                <tr key={`${p.a.id}-${p.b.id}`}>
                  <td className="table-card-title">
                    {p.a.name} · {p.b.name}
                  </td>
                  <td className="num" data-label="Shared items">
                    {p.shared}
                  </td>
                  <td className="num" data-label="Agreement">
                    {formatPercent(p.agreement, 1, 'n/a')}
                  </td>
                  <td className="num" data-label="Cohen’s κ">
                    {formatStatistic(p.kappa)}
                  </td>
                  <td data-label="Confusion">
                    {p.shared === 0 ? (
                      <span className="muted small">n/a</span>
                    ) : (
                      <table className="confusion">
                        <thead>
                          <tr>
                            <th />
                            {s.categories.map((c) => (
                              <th key={c} title={GRADE_LABEL_TEXT[c].name}>
                                {short(c)}
                              </th>
                            ))}
                          </tr>
                        </thead>
                        <tbody>
                          {p.confusion.map((row, i) => (
                            <tr key={s.categories[i]}>
                              <th title={GRADE_LABEL_TEXT[s.categories[i]].name}>{short(s.categories[i])}</th>
                              {row.map((v, j) => (
                                <td key={j} className={i === j ? 'diag' : undefined}>
                                  {v}
                                </td>
                              ))}
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3 className="admin-subhead">Each grader against the settled label</h3>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Each grader against the settled label">
        <table className="table table-cards" data-testid="grader-agreement">
          <thead>
            <tr>
              <th>Grader</th>
              <th className="num">Labels</th>
              <th className="num">Settled</th>
              <th className="num">Agreeing</th>
              <th className="num">Share</th>
            </tr>
          </thead>
          <tbody>
            {s.graders.map((g) => (
              <tr key={g.id}>
                <td className="table-card-title">{g.name}</td>
                <td className="num" data-label="Labels">
                  {g.labelled}
                </td>
                <td className="num" data-label="Settled">
                  {g.settled}
                </td>
                <td className="num" data-label="Agreeing">
                  {g.agreeing}
                </td>
                <td className="num" data-label="Share">
                  {formatPercent(g.share, 1, 'n/a')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
