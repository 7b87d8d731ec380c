'use client';

import { useId, useState, type ReactNode } from 'react';
import { csvDocument } from '@/common/csv';

// One card per chart: the chart, or the same figures as a table (the toggle),
// and a CSV download of exactly those figures (raw numbers, not the rounded
// labels). With `empty` set the card says what is missing instead. The chart
// is one image to a screen reader (role img), named by the card's title and a
// summary of its figures (`summary`, else the table's first rows in words);
// it is no tab stop (charts.tsx CHART), the table is the way to every figure.

export type Cell = string | number | null;

export interface TableColumn {
  label: string;
  /** how a cell is shown in the table (the CSV keeps the raw value) */
  format?: (value: Cell) => string;
  numeric?: boolean;
}

export interface ChartTable {
  columns: TableColumn[];
  rows: Cell[][];
}

const SUMMARY_ROWS = 12;

/** The table in words: "known flaky: changes 6, share 40%; …". */
export function tableSummary(table: ChartTable): string {
  const [first, ...rest] = table.columns;
  const show = (col: TableColumn | undefined, v: Cell) => (col?.format ? col.format(v) : v === null ? 'no data' : String(v));
  const rows = table.rows.slice(0, SUMMARY_ROWS).map((row) => {
    const values = rest.map((c, i) => `${c.label} ${show(c, row[i + 1] ?? null)}`).join(', ');
    return `${show(first, row[0] ?? null)}: ${values}`;
  });
  const more = table.rows.length > SUMMARY_ROWS ? `; and ${table.rows.length - SUMMARY_ROWS} more rows in the table` : '';
  return rows.join('; ') + more;
}

function download(name: string, table: ChartTable): void {
  const text = csvDocument(
    table.columns.map((c) => c.label),
    table.rows.map((row) => row.map((v) => (v === null ? '' : String(v)))),
  );
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${name}.csv`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function ChartCard({
  id,
  title,
  subtitle,
  table,
  empty,
  summary,
  children,
  footer,
}: {
  /** names the CSV file and the test ids */
  id: string;
  title: string;
  subtitle?: ReactNode;
  table: ChartTable;
  /** what is missing, when there is nothing to draw */
  empty?: string | null;
  /** what the chart shows, in words, for screen readers (default: the table's rows) */
  summary?: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  const [asTable, setAsTable] = useState(false);
  const headingId = useId();
  return (
    <section className="card insights-card" aria-labelledby={headingId} data-testid={`chart-${id}`}>
      <div className="insights-card-head">
        <div>
          <h2 className="card-title" id={headingId}>
            {title}
          </h2>
          {subtitle && <p className="insights-card-sub">{subtitle}</p>}
        </div>
        {!empty && (
          <div className="insights-card-tools">
            <div className="insights-seg" role="group" aria-label={`${title}: show as`}>
              <button type="button" aria-pressed={!asTable} onClick={() => setAsTable(false)} data-testid={`chart-${id}-chart`}>
                Chart
              </button>
              <button type="button" aria-pressed={asTable} onClick={() => setAsTable(true)} data-testid={`chart-${id}-table`}>
                Table
              </button>
            </div>
            <button type="button" className="btn btn-small" onClick={() => download(id, table)} data-testid={`chart-${id}-csv`}>
              CSV
            </button>
          </div>
        )}
      </div>
      {empty ? (
        <div className="insights-empty" data-testid={`chart-${id}-empty`}>
          {empty}
        </div>
      ) : asTable ? (
        <div className="table-wrap insights-table-wrap">
          <table className="table insights-table" data-testid={`chart-${id}-data`}>
            <thead>
              <tr>
                {table.columns.map((c) => (
                  <th key={c.label} className={c.numeric ? 'insights-num' : undefined}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, i) => (
                <tr key={i}>
                  {row.map((v, j) => {
                    const col = table.columns[j];
                    return (
                      <td key={j} className={col?.numeric ? 'insights-num' : undefined}>
                        {col?.format ? col.format(v) : v === null ? '—' : String(v)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <div className="insights-chart" role="img" aria-label={`${title}. ${summary ?? tableSummary(table)}`} data-testid={`chart-${id}-image`}>
          {children}
        </div>
      )}
      {footer && <div className="insights-card-foot">{footer}</div>}
    </section>
  );
}
