import { useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { api, unwrap } from '../api/client';
import { queries } from '../api/queries';
import type { components } from '../api/schema';
import { ConfirmButton } from '../components/confirm';
import { When } from '../components/format';
import { Pager, useCursorPages } from '../components/pager';
import { SearchForm } from '../components/search-form';
import { OwnOrUsers } from '../components/own-or-users';
import { ErrorPanel, QueryState } from '../components/states';

type Memory = components['schemas']['MemoryHitDto'];
type Kind = Memory['kind'];
const KINDS: Kind[] = ['fact', 'preference', 'episode'];

/**
 * Memories: mine (`/account/memories`), or a user's for an admin (`/users/:id/memories`). Newest
 * first by pages; a search runs the `recall_memory` tool's own retrieval and shows its scores.
 * Current facts by default; "Include superseded versions" (`?history=all`) shows the older versions
 * too, and each memory's History lists the versions of its fact.
 */
export default function MemoriesPage() {
  return (
    <OwnOrUsers
      own={{
        title: 'My memories',
        intro: <p className="muted">What your assistants remembered about you. Delete what should be forgotten; edit what is wrong.</p>,
      }}
      users={{ title: 'Memories of this user' }}
    >
      {(userId) => <Memories userId={userId} />}
    </OwnOrUsers>
  );
}

function Memories({ userId }: { userId?: string }) {
  const { q, history } = useSearch({ strict: false }) as { q?: string; history?: string };
  const includeHistory = history === 'all';
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const pages = useCursorPages(`${q ?? ''}|${includeHistory}`);
  const key = ['memories', userId ?? 'me'];
  const memories = useQuery({ ...queries.memories(userId, q, includeHistory, pages.cursor), placeholderData: keepPreviousData });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const remove = useMutation({
    mutationFn: (id: string) =>
      unwrap(
        userId
          ? api.DELETE('/admin/users/{userId}/memories/{id}', { params: { path: { userId, id } } })
          : api.DELETE('/api/memories/{id}', { params: { path: { id } } }),
      ),
    onSettled: refresh,
  });
  return (
    <>
      <SearchForm
        label="Search memories"
        value={q}
        placeholder="what do they like to eat?"
        onSearch={(query) => void navigate({ to: '.', search: { q: query, ...(includeHistory ? { history: 'all' } : {}) } })}
      />
      <label className="inline">
        <input
          type="checkbox"
          checked={includeHistory}
          onChange={(event) => void navigate({ to: '.', search: { ...(q ? { q } : {}), ...(event.currentTarget.checked ? { history: 'all' } : {}) } })}
        />{' '}
        Include superseded versions
      </label>
      {q && <p className="muted">Best matches first, scored as the recall_memory tool scores them (1 is best).</p>}
      {remove.error && <ErrorPanel error={remove.error} />}
      <QueryState query={memories} isEmpty={(data) => data.items.length === 0} empty={q ? `No memory matches "${q}".` : 'No memory yet.'}>
        {(data) => (
          <>
            <ul className="memory-list" aria-label="Memories">
              {(data.items as Memory[]).map((memory) => (
                <MemoryItem key={memory.id} memory={memory} userId={userId} onSaved={refresh} onDelete={() => remove.mutateAsync(memory.id)} />
              ))}
            </ul>
            {!q && <Pager pages={pages} nextCursor={data.nextCursor} label="memories" />}
          </>
        )}
      </QueryState>
    </>
  );
}

function MemoryItem({ memory, userId, onSaved, onDelete }: { memory: Memory; userId?: string; onSaved: () => unknown; onDelete: () => Promise<unknown> }) {
  const [editing, setEditing] = useState(false);
  const [showHistory, setShowHistory] = useState(false);
  const save = useMutation({
    mutationFn: (body: { text: string; kind: Kind }) =>
      unwrap(
        userId
          ? api.PATCH('/admin/users/{userId}/memories/{id}', { params: { path: { userId, id: memory.id } }, body })
          : api.PATCH('/api/memories/{id}', { params: { path: { id: memory.id } }, body }),
      ),
    onSuccess: () => {
      setEditing(false);
      return onSaved();
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    save.mutate({ text: String(form.get('text') ?? ''), kind: String(form.get('kind')) as Kind });
  };
  return (
    <li className="card">
      {editing ? (
        <form onSubmit={submit}>
          <label>
            Text
            <textarea name="text" defaultValue={memory.text} required />
          </label>
          <div className="toolbar">
            <label>
              Kind
              <select name="kind" defaultValue={memory.kind}>
                {KINDS.map((kind) => (
                  <option key={kind}>{kind}</option>
                ))}
              </select>
            </label>
            <button type="submit" className="primary" disabled={save.isPending}>
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
          {save.error && <ErrorPanel error={save.error} />}
        </form>
      ) : (
        <>
          <p className="memory-text">{memory.text}</p>
          <p className="muted">
            <span className="badge">{memory.kind}</span> {memory.key && <span className="badge">key: {memory.key}</span>}{' '}
            {memory.validTo ? <span className="badge warn">superseded</span> : <span className="badge ok">current</span>}{' '}
            {typeof memory.score === 'number' && <span className="badge ok">score {memory.score.toFixed(3)}</span>} <Validity memory={memory} /> · stored{' '}
            <When at={memory.createdAt} />
            {memory.updatedAt !== memory.createdAt && (
              <>
                , refreshed <When at={memory.updatedAt} />
              </>
            )}
            {memory.source && (
              <>
                {' '}
                · from <code>{memory.source}</code>
              </>
            )}
          </p>
          <div className="actions">
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" aria-expanded={showHistory} onClick={() => setShowHistory(!showHistory)}>
              History
            </button>
            <ConfirmButton label="Delete" title="Delete this memory?" onConfirm={onDelete}>
              <p>{memory.text}</p>
              <p>It is never recalled again.</p>
            </ConfirmButton>
          </div>
          {showHistory && <History memory={memory} userId={userId} />}
        </>
      )}
    </li>
  );
}

/** When the fact held: from its valid_from, until the memory that superseded it took over. */
function Validity({ memory }: { memory: Pick<Memory, 'validFrom' | 'validTo'> }) {
  return (
    <>
      valid from <When at={memory.validFrom} />
      {memory.validTo && (
        <>
          {' '}
          until <When at={memory.validTo} />
        </>
      )}
    </>
  );
}

/** The versions of the fact a memory states, newest first: the current one, then those it superseded. */
function History({ memory, userId }: { memory: Memory; userId?: string }) {
  const versions = useQuery(queries.memoryHistory(userId, memory.id));
  return (
    <QueryState query={versions} isEmpty={(data) => data.items.length === 0} empty="No versions.">
      {(data) => (
        <ol className="memory-history" aria-label={`Versions of: ${memory.text}`}>
          {data.items.map((version) => (
            <li key={version.id} aria-current={version.id === memory.id ? 'true' : undefined}>
              {version.text}{' '}
              <span className="muted">
                {version.validTo ? (
                  <Validity memory={version} />
                ) : (
                  <>
                    current, <Validity memory={version} />
                  </>
                )}
              </span>
            </li>
          ))}
        </ol>
      )}
    </QueryState>
  );
}
