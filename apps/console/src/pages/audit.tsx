import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { download } from '../api/client';
import { queries } from '../api/queries';
import { When } from '../components/format';
import { useCursorPages } from '../components/pager';
import { PagedTable, type Column } from '../components/data-table';
import type { components } from '../api/schema';
import { AdminOnly } from '../components/shell';
import { ErrorPanel } from '../components/states';

const route = getRouteApi('/audit');
const FILTERS = ['actor', 'action', 'target', 'from', 'to'] as const;

/** A datetime-local input's value (the reader's zone) as an instant the API reads; and back. */
const toInstant = (local: string) => (local ? new Date(local).toISOString() : undefined);
const toLocal = (instant: string | undefined) => {
  if (!instant) return '';
  const date = new Date(instant);
  return Number.isNaN(date.getTime()) ? '' : new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

const COLUMNS: Column<components['schemas']['AuditEntryDto']>[] = [
  { header: 'When', cell: (entry) => <When at={entry.at} /> },
  { header: 'Who', wrap: true, cell: (entry) => entry.actorEmail ?? <code>{entry.actorId}</code> },
  { header: 'From', cell: (entry) => (entry.actorAddress ? <code>{entry.actorAddress}</code> : '—') },
  { header: 'Action', cell: (entry) => <code>{entry.action}</code> },
  {
    header: 'On whom',
    wrap: true,
    cell: (entry) =>
      entry.targetUserId ? (
        <Link to="/users/$userId" params={{ userId: entry.targetUserId }}>
          {entry.targetEmail ?? entry.targetUserId}
        </Link>
      ) : (
        '—'
      ),
  },
  { header: 'Detail', wrap: true, cell: (entry) => (entry.detail ? <code>{JSON.stringify(entry.detail)}</code> : '—') },
];

/** Who did what to whom, newest first: filtered by actor, action, target and time, and downloadable as CSV. */
export default function AuditPage() {
  const filters = route.useSearch();
  const navigate = useNavigate();
  const pages = useCursorPages(JSON.stringify(filters));
  const [downloadError, setDownloadError] = useState<unknown>();
  const entries = useQuery({ ...queries.audit(filters, pages.cursor), placeholderData: keepPreviousData });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    void navigate({
      to: '/audit',
      search: {
        actor: text('actor'),
        action: text('action'),
        target: text('target'),
        from: toInstant(String(form.get('from') ?? '')),
        to: toInstant(String(form.get('to') ?? '')),
      },
    });
  };
  const query = new URLSearchParams(Object.entries(filters).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return (
    <AdminOnly>
      <h1>Audit trail</h1>
      <form className="toolbar" onSubmit={submit} key={JSON.stringify(filters)}>
        <label>
          Actor
          <input name="actor" defaultValue={filters.actor} placeholder="e-mail or user id" />
        </label>
        <label>
          Action
          <input name="action" defaultValue={filters.action} placeholder="user.disable, memories.*" />
        </label>
        <label>
          Target user id
          <input name="target" defaultValue={filters.target} />
        </label>
        <label>
          From
          <input name="from" type="datetime-local" defaultValue={toLocal(filters.from)} />
        </label>
        <label>
          To
          <input name="to" type="datetime-local" defaultValue={toLocal(filters.to)} />
        </label>
        <button type="submit" className="primary">
          Filter
        </button>
        {FILTERS.some((name) => filters[name]) && (
          <button type="button" onClick={() => void navigate({ to: '/audit', search: {} })}>
            Clear
          </button>
        )}
        <button
          type="button"
          onClick={() => {
            setDownloadError(undefined);
            download(`/admin/audit/export?${query}`, 'audit.csv').catch(setDownloadError);
          }}
        >
          Download CSV
        </button>
      </form>
      {downloadError !== undefined && <ErrorPanel error={downloadError} />}
      <PagedTable query={entries} pages={pages} label="Audit trail" empty="No entry matches." columns={COLUMNS} rowKey={(entry) => entry.id} />
    </AdminOnly>
  );
}
