import { useState } from 'react';

/**
 * The pages of a list the API answers by cursors (`{ items, nextCursor }`): the cursors of the
 * pages seen so far, so that "Previous" goes back without the API paging backwards.
 */
export function useCursorPages(resetKey: string) {
  const [state, setState] = useState<{ key: string; cursors: (string | undefined)[] }>({ key: resetKey, cursors: [undefined] });
  // A new filter starts over from the first page.
  const cursors = state.key === resetKey ? state.cursors : [undefined];
  return {
    cursor: cursors.at(-1),
    page: cursors.length,
    next: (cursor: string) => setState({ key: resetKey, cursors: [...cursors, cursor] }),
    previous: () => setState({ key: resetKey, cursors: cursors.slice(0, -1) }),
  };
}

export type CursorPages = ReturnType<typeof useCursorPages>;

export function Pager({ pages, nextCursor, label }: { pages: CursorPages; nextCursor: string | null | undefined; label: string }) {
  if (pages.page === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label={`Pages of ${label}`}>
      <button type="button" onClick={pages.previous} disabled={pages.page === 1}>
        Previous
      </button>
      <span aria-live="polite">Page {pages.page}</span>
      <button type="button" onClick={() => nextCursor && pages.next(nextCursor)} disabled={!nextCursor}>
        Next
      </button>
    </nav>
  );
}
