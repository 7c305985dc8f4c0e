import { useQuery } from '@tanstack/react-query';
import { Link, Navigate } from '@tanstack/react-router';
import { queries } from '../api/queries';
import type { components } from '../api/schema';
import { When } from '../components/format';
import { Empty, QueryState } from '../components/states';
import { useSession } from '../session';
import { DataTable } from '../components/data-table';

type Overview = components['schemas']['OverviewDto'];

/** The start page: the deployment's health and the last hour of tool calls for admins; My account for everyone else. */
export default function OverviewPage() {
  const session = useSession();
  if (!session.user.admin) return <Navigate to="/account" replace />;
  return <AdminOverview />;
}

function AdminOverview() {
  const overview = useQuery(queries.overview());
  return (
    <>
      <h1>Overview</h1>
      <QueryState query={overview}>{(data) => <OverviewBody data={data} />}</QueryState>
    </>
  );
}

function OverviewBody({ data }: { data: Overview }) {
  const calls = data.lastHour.perMinute.reduce((sum, minute) => sum + minute.calls, 0);
  const errors = data.lastHour.perMinute.reduce((sum, minute) => sum + minute.errors, 0);
  return (
    <>
      <div className="cards">
        <section className="card" aria-labelledby="instances-heading">
          <h2 id="instances-heading">Instances</h2>
          <p className="stat">{data.instances.length}</p>
          <ul className="plain">
            {data.instances.map((instance) => (
              <li key={instance.id}>
                <code>{instance.hostname}</code> v{instance.version}, up since <When at={instance.startedAt} />
              </li>
            ))}
          </ul>
        </section>
        <section className="card" aria-labelledby="database-heading">
          <h2 id="database-heading">Database</h2>
          <p className="stat">{data.database.ok ? <span className="badge ok">reachable</span> : <span className="badge danger">unreachable</span>}</p>
          <p className="muted">
            {data.database.kind === 'embedded' ? 'Embedded PostgreSQL (PGlite)' : 'PostgreSQL'}
            {data.database.latencyMs !== null && `, answered in ${data.database.latencyMs} ms`}
          </p>
        </section>
        <section className="card" aria-labelledby="calls-heading">
          <h2 id="calls-heading">Tool calls, last hour</h2>
          <p className="stat">{calls}</p>
          <p className="muted">
            {errors} failed{calls > 0 && ` (${((errors / calls) * 100).toFixed(1)}%)`}
          </p>
        </section>
        <section className="card" aria-labelledby="tasks-heading">
          <h2 id="tasks-heading">Running tasks</h2>
          <p className="stat">{data.tasks.working + data.tasks.inputRequired}</p>
          <p className="muted">
            {data.tasks.inputRequired} waiting for input · <Link to="/tasks">all tasks</Link>
          </p>
        </section>
      </div>
      <section className="card" aria-labelledby="per-minute-heading">
        <h2 id="per-minute-heading">Calls per minute</h2>
        <CallsChart perMinute={data.lastHour.perMinute} />
      </section>
      <section aria-labelledby="per-tool-heading">
        <h2 id="per-tool-heading">By tool, last hour</h2>
        {data.lastHour.tools.length === 0 ? (
          <Empty>No tool was called by a signed-in user in the last hour.</Empty>
        ) : (
          <DataTable
            label="Tool calls by tool"
            rows={data.lastHour.tools}
            rowKey={(tool) => tool.tool}
            columns={[
              { header: 'Tool', cell: (tool) => <code>{tool.tool}</code> },
              { header: 'Calls', numeric: true, cell: (tool) => tool.calls },
              { header: 'Errors', numeric: true, cell: (tool) => tool.errors },
              { header: 'p50', numeric: true, cell: (tool) => `${tool.p50Ms} ms` },
              { header: 'p99', numeric: true, cell: (tool) => `${tool.p99Ms} ms` },
            ]}
          />
        )}
      </section>
      <section aria-labelledby="errors-heading">
        <h2 id="errors-heading">Latest errors</h2>
        {data.recentErrors.length === 0 ? (
          <Empty>No tool call failed lately.</Empty>
        ) : (
          <DataTable
            label="Latest errors"
            rows={data.recentErrors}
            rowKey={(error) => `${error.at} ${error.requestId ?? ''} ${error.tool}`}
            columns={[
              { header: 'When', cell: (error) => <When at={error.at} /> },
              { header: 'Tool', cell: (error) => <code>{error.tool}</code> },
              {
                header: 'User',
                wrap: true,
                cell: (error) => (
                  <Link to="/users/$userId" params={{ userId: error.userId }}>
                    {error.userEmail ?? error.userId}
                  </Link>
                ),
              },
              { header: 'Error', wrap: true, cell: (error) => error.message ?? '—' },
              { header: 'Request id', cell: (error) => (error.requestId ? <code>{error.requestId}</code> : '—') },
            ]}
          />
        )}
      </section>
    </>
  );
}

type Minute = Overview['lastHour']['perMinute'][number];

/** One bar a minute of the last sixty (calls, failures in red), with the figures in a table for screen readers. */
function CallsChart({ perMinute }: { perMinute: Minute[] }) {
  const highest = Math.max(1, ...perMinute.map((minute) => minute.calls));
  if (perMinute.every((minute) => minute.calls === 0)) return <Empty>No call in the last hour.</Empty>;
  return (
    <>
      <div className="bar-chart" aria-hidden="true">
        {perMinute.map((minute) => (
          <div
            key={minute.minute}
            className="bar-column"
            title={`${new Date(minute.minute).toLocaleTimeString()}: ${minute.calls} calls, ${minute.errors} failed`}
          >
            <div className="bar" style={{ height: `${((minute.calls - minute.errors) / highest) * 100}%` }} />
            <div className="bar errors" style={{ height: `${(minute.errors / highest) * 100}%` }} />
          </div>
        ))}
      </div>
      <details>
        <summary>As a table</summary>
        <DataTable
          label="Calls per minute"
          rows={perMinute}
          rowKey={(minute) => minute.minute}
          columns={[
            { header: 'Minute', cell: (minute) => <When at={minute.minute} /> },
            { header: 'Calls', numeric: true, cell: (minute) => minute.calls },
            { header: 'Failed', numeric: true, cell: (minute) => minute.errors },
          ]}
        />
      </details>
    </>
  );
}
