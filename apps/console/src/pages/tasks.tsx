import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useMatchRoute, useNavigate, useSearch } from '@tanstack/react-router';
import { api, unwrap } from '../api/client';
import { queries } from '../api/queries';
import type { components } from '../api/schema';
import { ConfirmButton } from '../components/confirm';
import { age, When } from '../components/format';
import { useCursorPages } from '../components/pager';
import { PagedTable, type Column } from '../components/data-table';
import { AdminOnly } from '../components/shell';
import { ErrorPanel } from '../components/states';

type Status = components['schemas']['TaskViewDto']['status'];
type Task = components['schemas']['TaskViewDto'] & { ownerUserId?: string | null; ownerEmail?: string | null };
const STATUSES: Status[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
const RUNNING = new Set<Status>(['working', 'input_required']);

/** Long tool calls (MCP tasks): every user's for an admin (`/tasks`), mine (`/account/tasks`); a running one can be cancelled. */
export default function TasksPage() {
  const matchRoute = useMatchRoute();
  const everyone = !!matchRoute({ to: '/tasks' });
  return everyone ? (
    <AdminOnly>
      <h1>Tasks</h1>
      <Tasks everyone />
    </AdminOnly>
  ) : (
    <>
      <h1>My tasks</h1>
      <Tasks />
    </>
  );
}

function Tasks({ everyone = false }: { everyone?: boolean }) {
  const { status } = useSearch({ strict: false }) as { status?: Status };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const pages = useCursorPages(status ?? '');
  const key = ['tasks', everyone ? 'all' : 'me'];
  const tasks = useQuery({ ...queries.tasks(everyone, status, pages.cursor), placeholderData: keepPreviousData });
  const cancel = useMutation({
    mutationFn: (id: string) =>
      unwrap(everyone ? api.POST('/admin/tasks/{id}/cancel', { params: { path: { id } } }) : api.POST('/api/tasks/{id}/cancel', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const columns: Column<Task>[] = [
    ...(everyone
      ? [
          {
            header: 'Owner',
            wrap: true,
            cell: (task: Task) =>
              task.ownerUserId ? (
                <Link to="/users/$userId" params={{ userId: task.ownerUserId }}>
                  {task.ownerEmail ?? task.ownerUserId}
                </Link>
              ) : (
                <span className="muted">anonymous</span>
              ),
          },
        ]
      : []),
    { header: 'Tool', cell: (task) => <code>{task.tool}</code> },
    {
      header: 'Status',
      wrap: true,
      cell: (task) => (
        <>
          <StatusBadge status={task.status} />
          {task.statusMessage && <div className="muted">{task.statusMessage}</div>}
          {task.error && <div className="muted">{task.error.message}</div>}
        </>
      ),
    },
    { header: 'Age', cell: (task) => <span title={task.createdAt}>{age(task.createdAt)}</span> },
    { header: 'Updated', cell: (task) => <When at={task.updatedAt} /> },
    {
      header: 'Actions',
      hiddenHeader: true,
      cell: (task) =>
        RUNNING.has(task.status) && (
          <ConfirmButton label="Cancel" title={`Cancel this ${task.tool} task?`} confirmLabel="Cancel the task" onConfirm={() => cancel.mutateAsync(task.id)}>
            <p>The tool is stopped wherever it runs; the client sees the task cancelled.</p>
          </ConfirmButton>
        ),
    },
  ];
  return (
    <>
      <div className="toolbar">
        <label>
          Status
          <select value={status ?? ''} onChange={(event) => void navigate({ to: '.', search: { status: event.target.value || undefined } })}>
            <option value="">any</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
      </div>
      {cancel.error && <ErrorPanel error={cancel.error} />}
      <PagedTable query={tasks} pages={pages} label="Tasks" empty="No task." columns={columns} rowKey={(task) => task.id} />
    </>
  );
}

function StatusBadge({ status }: { status: Status }) {
  const tone = status === 'completed' ? 'ok' : status === 'failed' ? 'danger' : status === 'cancelled' ? '' : 'warn';
  return <span className={`badge ${tone}`}>{status.replace('_', ' ')}</span>;
}
