'use client';

/** "Load more" under a keyset-paged list (a react-query infinite query); nothing when there is no next page. */
export function LoadMore({ query }: { query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> } }) {
  if (!query.hasNextPage) return null;
  return (
    <div className="triage-more">
      <button type="button" className="btn" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
        {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
      </button>
    </div>
  );
}
