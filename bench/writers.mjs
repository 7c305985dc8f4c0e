// The write load of `npm run faults` (and of the backup test, apps/server/test/backup-restore.e2e-spec.ts):
// writers on keep-alive connections storing memories through `remember` and uploading files
// through REST, each write counted once the server acknowledged it.
import { Agent, fetch, FormData, request } from 'undici';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const mcpCall = (name, args, id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** The bytes of upload number `id`, named `file-<id>.txt`: a restored file's name says what it must hold. */
export const fileBody = (id) => `file ${id} `.repeat(20_000);

/** The number in an uploaded file's name. */
export const uploadNumber = (filename) => Number(/^file-(\d+)\.txt$/.exec(filename)?.[1]);

/**
 * Starts `connections` writers (one in four uploads, the others `remember`) until `stop()`.
 * `acknowledged` grows as the server acknowledges writes, in that order: memory ids and file keys.
 */
export function startWriters({ origin, bearer, connections }) {
  const dispatcher = new Agent({ connections });
  const acknowledged = { memories: [], files: [] };
  const outcomes = new Map();
  const count = (kind) => outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
  let stopped = false;
  let n = 0;
  const writer = async (index) => {
    while (!stopped) {
      const id = n++;
      const kind = index % 4 === 3 ? 'upload' : 'remember';
      try {
        if (kind === 'upload') {
          const form = new FormData();
          form.append('file', new Blob([fileBody(id)]), `file-${id}.txt`);
          const response = await fetch(`${origin}/api/files`, { method: 'POST', body: form, headers: { authorization: bearer }, dispatcher });
          const body = await response.text();
          count(`upload ${response.status}`);
          if (response.status === 201) acknowledged.files.push(JSON.parse(body).fileKey);
        } else {
          const response = await request(`${origin}/mcp`, {
            method: 'POST',
            headers: { ...MCP_HEADERS, authorization: bearer },
            body: mcpCall('remember', { text: `Acknowledged fact number ${id} of ${process.pid}` }, id),
            dispatcher,
          });
          const answer = await response.body.text();
          count(`remember ${response.statusCode}`);
          const parsed = response.statusCode === 200 ? JSON.parse(answer) : undefined;
          if (parsed?.result && !parsed.result.isError) acknowledged.memories.push(parsed.result.structuredContent.id);
        }
      } catch (error) {
        count(`${kind} ${error.cause?.code ?? error.code ?? error.name}`);
        if (stopped) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const running = Promise.all(Array.from({ length: connections }, (_, index) => writer(index)));
  let stopping;
  return {
    acknowledged,
    outcomes,
    /** Stops the writers and resolves once each has had its last answer (or error); a second call waits for the first. */
    stop: () => {
      stopped = true;
      stopping ??= running.then(() => dispatcher.close());
      return stopping;
    },
  };
}
