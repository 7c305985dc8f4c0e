// Summarizes a V8 .cpuprofile (node --cpu-prof): the functions with the most self time, with the
// package (or file) they belong to, so a bench run says where the server's time went.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where a profiled function lives: `pkg` for node_modules code, a repo-relative path for ours, `node:` internals. */
function origin(url, root) {
  if (!url) return '(native)';
  const file = url.replace(/^file:\/\//, '');
  const inModules = file.lastIndexOf('/node_modules/');
  if (inModules !== -1) {
    const rest = file.slice(inModules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return file.startsWith(root) ? path.relative(root, file) : file;
}

/** Samples that are no work of the server's: waiting for I/O, and V8's unattributed bookkeeping. */
const NOT_WORK = new Set(['(idle)', '(program)']);

/**
 * The `count` entries with the most self time across every profile in `directory`, as shares of the
 * time the server was busy (idle excluded; start-up included, a small part of a bench's load).
 */
export function topSelfTime(directory, root, count = 10) {
  const totals = new Map();
  let allMicros = 0;
  for (const name of readdirSync(directory).filter((file) => file.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(path.join(directory, name), 'utf8'));
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    // Self time per node: each sample is attributed to the node on top of the stack for timeDeltas[i] µs.
    profile.samples.forEach((id, index) => {
      const micros = profile.timeDeltas[index] ?? 0;
      const { functionName, url, lineNumber } = nodes.get(id).callFrame;
      if (NOT_WORK.has(functionName)) return;
      const key = `${functionName || '(anonymous)'}  ${origin(url, root)}${url ? `:${lineNumber + 1}` : ''}`;
      totals.set(key, (totals.get(key) ?? 0) + micros);
      allMicros += micros;
    });
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([where, micros]) => ({ where, share: micros / allMicros, ms: micros / 1000 }));
}
