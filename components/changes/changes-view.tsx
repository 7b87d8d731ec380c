'use client';

import { usePathname, useSearchParams } from 'next/navigation';
import { useMemo } from 'react';
import { filtersFromSearchParams, toChangeListSearchParams, type ChangeListFilters } from '@/common/change-query';
import { ChangesFilters, hasActiveFilters, type RepositoryOption } from './changes-filters';
import { ChangesTable } from './changes-table';
import { useChanges } from './use-changes';
import { ApiError } from '../api-client';

// The URL is the one source of truth for the filters: a copied link shows the
// same list, and back/forward walk through filter changes. The native history
// API updates it without a server round trip (Next's router syncs
// useSearchParams with it); only the rows are fetched again.
function useUrlFilters(): [ChangeListFilters, (next: ChangeListFilters, how?: { replace?: boolean }) => void] {
  const params = useSearchParams();
  const pathname = usePathname();
  const key = params.toString();
  // keyed by the query string's text: a new URLSearchParams object per render must not re-parse
  const filters = useMemo(() => filtersFromSearchParams(new URLSearchParams(key)), [key]);
  const setFilters = (next: ChangeListFilters, how?: { replace?: boolean }) => {
    const qs = toChangeListSearchParams(next).toString();
    const href = qs ? `${pathname}?${qs}` : pathname;
    if (how?.replace) window.history.replaceState(null, '', href);
    else window.history.pushState(null, '', href);
  };
  return [filters, setFilters];
}

// The total is bounded (1000+) and absent for text searches: see lib/changes/list-changes.ts.
function TotalLine({ shown, total, more }: { shown: number; total: { count: number; capped: boolean } | null; more: boolean }) {
  let text: string;
  if (total) {
    const of = total.capped ? `${total.count}+` : String(total.count);
    text = `Showing ${shown} of ${of} ${total.count === 1 && !total.capped ? 'change' : 'changes'}`;
  } else {
    text = `Showing ${shown}${more ? '' : ' (all)'} matching ${shown === 1 ? 'change' : 'changes'}${more ? ', more below' : ''}`;
  }
  return (
    <p className="muted small triage-count" data-testid="triage-count" aria-live="polite">
      {text}
    </p>
  );
}

export function ChangesView({ repositories }: { repositories: RepositoryOption[] }) {
  const [filters, setFilters] = useUrlFilters();
  const query = useChanges(filters);
  const items = useMemo(() => query.data?.pages.flatMap((p) => p.items) ?? [], [query.data]);
  const total = query.data?.pages[0]?.total ?? null;

  return (
    <>
      <ChangesFilters filters={filters} repositories={repositories} onChange={setFilters} />

      {query.isPending && (
        <div className="card muted" data-testid="triage-loading" aria-busy="true">
          Loading changes…
        </div>
      )}

      {query.isError && (
        <div className="alert alert-error triage-error" data-testid="triage-error" role="alert">
          <span>
            Could not load changes: {query.error.message}
            {query.error instanceof ApiError && query.error.status === 401 && (
              <>
                {' '}
                <a href="/signin">Sign in again</a>
              </>
            )}
          </span>{' '}
          <button type="button" className="btn btn-small" onClick={() => void query.refetch()}>
            Retry
          </button>
        </div>
      )}

      {query.isSuccess && items.length === 0 && (
        <div className="card empty" data-testid="triage-empty">
          {hasActiveFilters(filters) ? (
            <>
              <p>No failing changes match these filters.</p>
              <button type="button" className="btn" onClick={() => setFilters({ history: 'include' })}>
                Clear filters
              </button>
            </>
          ) : (
            <p>No failing changes yet. They appear here when CI reports a failure.</p>
          )}
        </div>
      )}

      {items.length > 0 && (
        <>
          <TotalLine shown={items.length} total={total} more={query.hasNextPage} />
          <ChangesTable items={items} onAuthor={(author) => setFilters({ ...filters, author })} />
          <div className="triage-more">
            {query.hasNextPage ? (
              <button
                type="button"
                className="btn"
                data-testid="triage-load-more"
                disabled={query.isFetchingNextPage}
                onClick={() => void query.fetchNextPage()}
              >
                {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            ) : (
              <span className="muted small" data-testid="triage-end">
                End of list
              </span>
            )}
          </div>
        </>
      )}
    </>
  );
}
