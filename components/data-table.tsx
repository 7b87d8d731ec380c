'use client';

import type { ReactNode } from 'react';
import { describeError } from './admin/api';

/**
 * A table of rows fetched by a react-query query: the query's error above it,
 * a loading row while it is pending, a row saying the list is empty, then the
 * rows. The table scrolls inside itself on narrow screens and is a focusable
 * named region, so a keyboard user can scroll it too.
 */
export function DataTable<T>({
  label,
  headers,
  query,
  rows,
  loading,
  empty,
  errorTestId,
  children,
}: {
  /** the region's accessible name */
  label: string;
  headers: ReactNode[];
  query: { isPending: boolean; isError: boolean; error: unknown };
  rows: readonly T[] | undefined;
  loading: string;
  /** shown when the query succeeded with no rows; omit when a list can never be empty */
  empty?: ReactNode;
  errorTestId?: string;
  children: (row: T) => ReactNode;
}) {
  const message = (text: ReactNode) => (
    <tr>
      <td colSpan={headers.length} className="empty">
        {text}
      </td>
    </tr>
  );
  return (
    <>
      {query.isError && (
        <div className="alert alert-error" role="alert" data-testid={errorTestId}>
          {describeError(query.error)}
        </div>
      )}
      <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
        <table className="table">
          <thead>
            <tr>
              {headers.map((h, i) => (
                <th key={i}>{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {query.isPending && message(loading)}
            {!query.isPending && empty !== undefined && rows?.length === 0 && message(empty)}
            {rows?.map(children)}
          </tbody>
        </table>
      </div>
    </>
  );
}
