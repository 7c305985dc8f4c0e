import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { api, unwrap } from '../api/client';
import { queries } from '../api/queries';
import type { components } from '../api/schema';
import { Json } from '../components/format';
import { exampleArguments, SchemaTable, type JsonSchema } from '../components/schema-table';
import { ErrorPanel, QueryState } from '../components/states';

type Tool = components['schemas']['ToolViewDto'];
const route = getRouteApi('/tools');

/** The tools an agent sees, with their schemas, scopes and whether they run; "Try it" calls one as the signed-in user. */
export default function ToolsPage() {
  const { agent, tool: find } = route.useSearch();
  const navigate = useNavigate();
  const catalog = useQuery(queries.tools(agent));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    void navigate({ to: '/tools', search: { agent: value('agent'), tool: value('tool') } });
  };
  const matches = (tool: Tool) => !find || `${tool.name} ${tool.title ?? ''} ${tool.description}`.toLowerCase().includes(find.toLowerCase());
  return (
    <>
      <h1>Tools</h1>
      <form className="toolbar" onSubmit={submit}>
        <label>
          As the agent sees them
          <input name="agent" defaultValue={agent} key={agent} placeholder="every tool" pattern="[A-Za-z0-9_-]{1,64}" />
        </label>
        <label>
          Find a tool
          <input name="tool" type="search" defaultValue={find} key={find} placeholder="name or words of its description" />
        </label>
        <button type="submit">Show</button>
      </form>
      <QueryState query={catalog} isEmpty={(data) => data.tools.length === 0} empty="This agent sees no tool.">
        {(data) => (
          <>
            <p className="muted">
              {data.tools.filter((tool) => tool.enabled).length} tools {data.agent ? `the agent "${data.agent}" sees` : 'in all'}
              {data.tools.some((tool) => !tool.enabled) && `, and ${data.tools.filter((tool) => !tool.enabled).length} disabled by configuration`}.
            </p>
            {data.tools.filter(matches).map((tool) => (
              <ToolCard key={tool.name} tool={tool} agent={data.agent ?? undefined} />
            ))}
            {find && !data.tools.some(matches) && <p className="state empty">No tool matches "{find}".</p>}
          </>
        )}
      </QueryState>
    </>
  );
}

function ToolCard({ tool, agent }: { tool: Tool; agent?: string }) {
  const [trying, setTrying] = useState(false);
  const headingId = `tool-${tool.name}`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <code>{tool.name}</code> {tool.title && <span className="muted">{tool.title}</span>}
      </h2>
      <p className="badges">
        {tool.enabled ? <span className="badge ok">enabled</span> : <span className="badge danger">disabled</span>}{' '}
        {tool.scopes.map((scope) => (
          <span key={scope} className="badge">
            scope {scope}
          </span>
        ))}{' '}
        {tool.actsForUser && <span className="badge">acts for the user</span>}{' '}
        {tool.taskSupport !== 'forbidden' && <span className="badge warn">task: {tool.taskSupport}</span>} <span className="muted">from {tool.origin}</span>
      </p>
      <p className="tool-description">{tool.description}</p>
      <details>
        <summary>Input schema</summary>
        <SchemaTable schema={tool.inputSchema as JsonSchema} caption={`Arguments of ${tool.name}`} />
        <Json value={tool.inputSchema} label={`Input schema of ${tool.name}`} />
      </details>
      {tool.outputSchema && (
        <details>
          <summary>Output schema</summary>
          <SchemaTable schema={tool.outputSchema as JsonSchema} caption={`Result of ${tool.name}`} />
        </details>
      )}
      {tool.enabled && tool.taskSupport !== 'required' && (
        <p>
          <button type="button" aria-expanded={trying} onClick={() => setTrying(!trying)}>
            Try it
          </button>
        </p>
      )}
      {trying && <TryIt tool={tool} agent={agent} />}
    </section>
  );
}

/** Runs a real `tools/call` as the signed-in user, with arguments written as JSON. */
function TryIt({ tool, agent }: { tool: Tool; agent?: string }) {
  const [text, setText] = useState(() => JSON.stringify(exampleArguments(tool.inputSchema as JsonSchema), null, 2));
  const [parseError, setParseError] = useState<string>();
  const call = useMutation({
    mutationFn: (args: Record<string, unknown>) =>
      unwrap(api.POST('/api/tools/{name}/call', { params: { path: { name: tool.name } }, body: { arguments: args, ...(agent ? { agent } : {}) } })),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    let args: unknown;
    try {
      args = JSON.parse(text);
    } catch (error) {
      setParseError(`The arguments are not JSON: ${(error as Error).message}`);
      return;
    }
    if (!args || typeof args !== 'object' || Array.isArray(args)) {
      setParseError('The arguments must be a JSON object');
      return;
    }
    setParseError(undefined);
    call.mutate(args as Record<string, unknown>);
  };
  return (
    <form onSubmit={submit} className="try-it">
      <label>
        Arguments (JSON)
        <textarea value={text} onChange={(event) => setText(event.target.value)} spellCheck={false} />
      </label>
      <p>
        <button type="submit" className="primary" disabled={call.isPending}>
          Call {tool.name}
        </button>
      </p>
      {parseError && (
        <p className="state error" role="alert">
          {parseError}
        </p>
      )}
      {call.error && <ErrorPanel error={call.error} />}
      {call.data && (
        <div role="status">
          <h3>{call.data.isError ? 'The tool answered with an error' : 'Result'}</h3>
          <Json value={call.data} label={`Result of ${tool.name}`} />
        </div>
      )}
    </form>
  );
}
