import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}…
    </p>
  );
}

/** What went wrong, in the server's words, with the request id to give whoever reads its logs. */
export function ErrorPanel({ error, retry }: { error: unknown; retry?: () => void }) {
  const apiError = error instanceof ApiError ? error : undefined;
  const fields = Object.entries(apiError?.fields ?? {});
  return (
    <div className="state error" role="alert">
      <p>
        <strong>{apiError?.status ? `Error ${apiError.status}: ` : 'Error: '}</strong>
        {error instanceof Error ? error.message : String(error)}
      </p>
      {fields.length > 0 && (
        <ul>
          {fields.map(([field, problem]) => (
            <li key={field}>
              <code>{field}</code>: {problem}
            </li>
          ))}
        </ul>
      )}
      {apiError?.requestId && (
        <p className="muted">
          Request id <code>{apiError.requestId}</code>
        </p>
      )}
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state empty">{children}</p>;
}

/** The three states of a query, then its data. */
export function QueryState<T>({
  query,
  empty,
  isEmpty,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.error) return <ErrorPanel error={query.error} retry={() => void query.refetch()} />;
  const data = query.data as T;
  if (empty !== undefined && isEmpty?.(data)) return <Empty>{empty}</Empty>;
  return <>{children(data)}</>;
}
