#!/usr/bin/env node
// `npm run bench:instructions`: machine instructions per `tools/call echo` (and `whoami` with a JWT), against bare Fastify.
//
// `npm run bench` measures time, which on a shared 2-core VM moves by a third between runs of the
// same build (the machine, not the code); a change worth a few percent cannot be seen there. This
// counts the instructions the server's main thread executes per request under valgrind's callgrind,
// which repeat within a few percent whatever else the machine does, so two builds can be compared.
// It leaves out what time includes: kernel work (the socket writes, waking the client), cache
// misses, and the collector's and compiler's helper threads.
//
// Per round and server: start it under callgrind with instrumentation off, warm it up with
// BENCH_WARMUP requests (so the JIT has settled), switch instrumentation on, send BENCH_REQUESTS,
// dump, stop. Rounds alternate between our server (embedded database) answering `echo`, the same
// server answering `whoami` with a JWT (signature check, caller resolution, the access log's
// writes), bare Fastify and the Nest floor (bench/nest-floor.mjs: bare Fastify's answer through
// Nest's adapter, with @fastify/multipart); the medians are printed with their ratios. Needs
// valgrind (`callgrind_control` comes with it). Under callgrind a server answers some 30 times
// slower, so the access log's 50 ms batches hold a few rows instead of hundreds: whoami's count
// overstates what the log's inserts cost at full speed (compare whoami's builds with each other).
// Settings: BENCH_ROUNDS=3 BENCH_REQUESTS=8000 BENCH_WARMUP=10000 BENCH_CONNECTIONS=10 (about twenty minutes);
// BENCH_CASES=echo,whoami measures only those servers (the targets are absolute; a comparison of builds needs no baseline).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import { positiveInteger } from './settings.mjs';
import { freePort } from './processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = positiveInteger('BENCH_ROUNDS', 3);
const REQUESTS = positiveInteger('BENCH_REQUESTS', 8000);
const WARMUP = positiveInteger('BENCH_WARMUP', 10000);
const CONNECTIONS = positiveInteger('BENCH_CONNECTIONS', 10);
const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 300_000;
const run = promisify(execFile);
/** Issue 53's ceilings per request: echo's is bare Fastify's count / 0.6, whoami's / 0.4. */
const TARGETS = { echo: 170_000, whoami: 255_000 };

const ECHO = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
const WHOAMI = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const JWT_SECRET = `instructions-${process.pid}-a-jwt-secret-of-at-least-32-characters`;
const now = Math.floor(Date.now() / 1000);
const TOKEN = await new SignJWT({ sub: 'bench-user', email: 'bench@example.com', iat: now, exp: now + 24 * 3600 })
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .sign(new TextEncoder().encode(JWT_SECRET));
/** The node options of `npm run start:prod` (the Dockerfile's too): the app is measured as users run it. */
const START_NODE_OPTIONS = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
  .scripts['start:prod'].split(/\s+/)
  .slice(1, -1);
const APP = { script: 'dist/apps/server/src/main.js', nodeArgs: START_NODE_OPTIONS };
const echoed = (result) => result?.structuredContent?.echo === 'hi';
const SERVERS = [
  { name: 'echo', ...APP, body: ECHO, headers: HEADERS, answers: echoed },
  {
    name: 'whoami',
    ...APP,
    body: WHOAMI,
    headers: { ...HEADERS, authorization: `Bearer ${TOKEN}` },
    answers: (result) => result?.structuredContent?.authenticated === true,
  },
  { name: 'bare', script: 'bench/bare-fastify.mjs', nodeArgs: [], body: ECHO, headers: HEADERS, answers: echoed },
  { name: 'nest', script: 'bench/nest-floor.mjs', nodeArgs: [], body: ECHO, headers: HEADERS, answers: echoed },
];

const load = (url, { body, headers }, amount) =>
  new Promise((resolve, reject) =>
    // Under callgrind on a loaded machine an answer can take seconds: autocannon's 10 s timeout would fail the round.
    autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, amount, timeout: 120 }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );

/** The main thread's instruction count in a callgrind dump directory (`--separate-threads`: thread 1's files end in `-01`). */
function mainThreadInstructions(directory) {
  let total = 0;
  for (const file of readdirSync(directory).filter((name) => name.endsWith('-01'))) {
    const summary = readFileSync(path.join(directory, file), 'utf8').match(/^(?:summary|totals): (\d+)/m);
    if (summary) total += Number(summary[1]);
  }
  return total;
}

/** One server, one round: instructions per request of its main thread, once warmed up. */
async function measure({ name, script, nodeArgs, ...request }) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'mcp-instructions-'));
  const port = await freePort();
  // valgrind names its control pipes after USER and HOST, and callgrind_control must find them.
  const env = {
    ...process.env,
    USER: process.env.USER || os.userInfo().username,
    HOST,
    PORT: String(port),
    DATA_DIR: path.join(scratch, 'data'),
    DATABASE_URL: '',
    JWT_SECRET,
    RATE_LIMIT_REQUESTS: '0',
    RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
  };
  const valgrind = [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${scratch}/callgrind.%p`,
  ];
  const child = spawn('valgrind', [...valgrind, process.execPath, ...nodeArgs, path.join(root, script)], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // The server's last warnings and errors, to say why a round failed.
  const warnings = [];
  child.stdout.setEncoding('utf8').on('data', (text) => {
    for (const line of text.split('\n')) if (/"level":(40|50|60)/.test(line)) warnings.splice(0, warnings.length - 4, line.slice(0, 300));
  });
  const control = (flag) => run('callgrind_control', [flag, String(child.pid)], { env });
  const url = `http://${HOST}:${port}/mcp`;
  try {
    await answered(url, request, child);
    await load(url, request, WARMUP);
    await control('--instr=on');
    const result = await load(url, request, REQUESTS);
    await control('--dump');
    if (result.non2xx || result.errors || result.timeouts) {
      const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${count} x ${status}`);
      throw new Error(
        `${name}: ${result.non2xx} non-2xx (${statuses.join(', ')}), ${result.errors} errors, ${result.timeouts} timeouts; the server's last warnings:\n${warnings.join('\n')}`,
      );
    }
    return mainThreadInstructions(scratch) / result.requests.total;
  } finally {
    child.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Waits for the server to answer the request correctly; a server that answers wrongly is not measured. */
async function answered(url, { body, headers, answers }, child) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    const answer = await fetch(url, { method: 'POST', headers, body }).then(
      (response) => response.text(),
      () => undefined,
    );
    if (answer !== undefined) {
      if (!answers(JSON.parse(answer).result)) throw new Error(`${url} answered ${answer.slice(0, 300)}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} did not answer (valgrind exit code ${child.exitCode})`);
}

function median(values) {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[Math.floor(middle)];
}
const thousands = (value) => `${(value / 1000).toFixed(1)}k`;

try {
  await run('valgrind', ['--version']);
} catch {
  console.error('bench:instructions needs valgrind (with callgrind_control) on the PATH, e.g. `apt-get install valgrind`');
  process.exit(1);
}
console.log(
  `instructions per tools/call echo and whoami (main thread, callgrind): ${ROUNDS} rounds, ${WARMUP} warm-up + ${REQUESTS} measured requests, ${CONNECTIONS} connections`,
);
const cases = process.env.BENCH_CASES ? process.env.BENCH_CASES.split(',') : SERVERS.map(({ name }) => name);
const unknownCase = cases.find((name) => !SERVERS.some((server) => server.name === name));
if (unknownCase) throw new Error(`BENCH_CASES names "${unknownCase}"; the cases are ${SERVERS.map(({ name }) => name).join(', ')}`);
const counts = new Map(cases.map((name) => [name, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const server of SERVERS.filter(({ name }) => counts.has(name))) {
    const perRequest = await measure(server);
    counts.get(server.name).push(perRequest);
    console.log(`round ${round}  ${server.name.padEnd(6)} ${thousands(perRequest)} instructions per request`);
  }
}
const medians = new Map([...counts].map(([name, values]) => [name, median(values)]));
console.log(`\nmedian: ${[...medians].map(([name, value]) => `${name} ${thousands(value)}`).join(', ')}`);
const bare = medians.get('bare');
const nest = medians.get('nest');
if (bare !== undefined && nest !== undefined) {
  console.log(`Nest's adapter and @fastify/multipart alone: bare / Nest floor = ${(bare / nest).toFixed(2)}`);
  if (medians.has('echo')) console.log(`our hooks and MCP work per echo: ${thousands(medians.get('echo') - nest)}`);
}
const targets = [
  ['echo', 'echo', TARGETS.echo],
  ['whoami', 'whoami with a JWT', TARGETS.whoami],
].filter(([name]) => medians.has(name));
if (targets.length) console.log('\nTargets (issue 53):');
for (const [name, label, limit] of targets) {
  const count = medians.get(name);
  const ratio = bare === undefined ? '' : `; bare / ${name} ${(bare / count).toFixed(2)}`;
  console.log(
    `  ${label}: ${thousands(count)} instructions per request (median; target <= ${thousands(limit)}${ratio}): ${count <= limit ? 'met' : 'not met'}`,
  );
}
