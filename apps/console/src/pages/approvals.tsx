import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { api, unwrap } from '../api/client';
import { queries } from '../api/queries';
import type { components } from '../api/schema';
import { ConfirmButton } from '../components/confirm';
import { Json, When } from '../components/format';
import { useCursorPages } from '../components/pager';
import { PagedTable, type Column } from '../components/data-table';
import { ErrorPanel } from '../components/states';

type Approval = components['schemas']['ApprovalViewDto'];
type Status = Approval['status'];
const STATUSES: Status[] = ['pending', 'approved', 'declined', 'expired', 'cancelled'];

/**
 * The approvers' queue: calls of tools that wait for an approver, with who asked, the tool and the
 * arguments; approve or decline each with a reason. For admins and holders of the approver role
 * (the server decides: anyone else sees its refusal), never for one's own requests.
 */
export default function ApprovalsPage() {
  // The queue by default; `any` lists every request.
  const { status = 'pending' } = useSearch({ strict: false }) as { status?: Status | 'any' };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const pages = useCursorPages(status);
  const approvals = useQuery({ ...queries.approvals(status === 'any' ? undefined : status, pages.cursor), placeholderData: keepPreviousData });
  const decide = useMutation({
    mutationFn: ({ id, verdict, reason }: { id: string; verdict: 'approve' | 'decline'; reason: string }) =>
      unwrap(
        verdict === 'approve'
          ? api.POST('/admin/approvals/{id}/approve', { params: { path: { id } }, body: reason ? { reason } : {} })
          : api.POST('/admin/approvals/{id}/decline', { params: { path: { id } }, body: { reason } }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['approvals'] }),
  });
  const columns: Column<Approval>[] = [
    {
      header: 'Requested by',
      wrap: true,
      cell: (request) => (
        <Link to="/users/$userId" params={{ userId: request.requestedBy.userId }}>
          {request.requestedBy.email ?? request.requestedBy.name ?? request.requestedBy.userId}
        </Link>
      ),
    },
    { header: 'Tool', cell: (request) => <code>{request.tool}</code> },
    {
      header: 'Arguments',
      wrap: true,
      cell: (request) =>
        request.arguments ? (
          <Json value={request.arguments} label={`Arguments of the ${request.tool} call`} />
        ) : (
          <code className="muted">{request.argumentsDigest.slice(0, 19)}…</code>
        ),
    },
    { header: 'Requested', cell: (request) => <When at={request.requestedAt} /> },
    {
      header: 'Status',
      wrap: true,
      cell: (request) => (
        <>
          <StatusBadge status={request.status} />
          {request.status === 'pending' && (
            <div className="muted">
              expires <When at={request.expiresAt} />
            </div>
          )}
          {request.decidedBy && <div className="muted">by {request.decidedBy.email ?? request.decidedBy.userId}</div>}
          {request.reason && <div className="muted">{request.reason}</div>}
          {request.outcome && <div className="muted">run: {request.outcome.replace('_', ' ')}</div>}
        </>
      ),
    },
    {
      header: 'Actions',
      hiddenHeader: true,
      cell: (request) =>
        request.status === 'pending' && <Decision request={request} decide={(verdict, reason) => decide.mutateAsync({ id: request.id, verdict, reason })} />,
    },
  ];
  return (
    <>
      <h1>Approvals</h1>
      <div className="toolbar">
        <label>
          Status
          <select value={status} onChange={(event) => void navigate({ to: '.', search: { status: event.target.value } })}>
            <option value="any">any</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
      </div>
      {decide.error && <ErrorPanel error={decide.error} />}
      <PagedTable query={approvals} pages={pages} label="Approval requests" empty="No approval request." columns={columns} rowKey={(request) => request.id} />
    </>
  );
}

/** Approve (a reason is optional) or decline (a reason is required: the caller receives it). */
function Decision({ request, decide }: { request: Approval; decide: (verdict: 'approve' | 'decline', reason: string) => Promise<unknown> }) {
  const [reason, setReason] = useState('');
  const reasonId = useId();
  const reasonField = (label: string) => (
    <p>
      <label htmlFor={reasonId}>{label}</label>
      <textarea id={reasonId} value={reason} onChange={(event) => setReason(event.target.value)} maxLength={1000} />
    </p>
  );
  return (
    <div className="actions">
      <ConfirmButton
        label="Approve"
        title={`Approve this ${request.tool} call?`}
        confirmLabel="Approve the call"
        danger={false}
        onConfirm={() => decide('approve', reason.trim())}
      >
        <p>It runs once, as {request.requestedBy.email ?? 'its caller'}, with the arguments shown.</p>
        {reasonField('Reason (optional)')}
      </ConfirmButton>
      <ConfirmButton
        label="Decline"
        title={`Decline this ${request.tool} call?`}
        confirmLabel="Decline the call"
        ready={reason.trim() !== ''}
        onConfirm={() => decide('decline', reason.trim())}
      >
        <p>It does not run; the caller receives your reason.</p>
        {reasonField('Reason')}
      </ConfirmButton>
    </div>
  );
}

function StatusBadge({ status }: { status: Status }) {
  const tone = status === 'approved' ? 'ok' : status === 'declined' ? 'danger' : status === 'pending' ? 'warn' : '';
  return <span className={`badge ${tone}`}>{status}</span>;
}
