#!/usr/bin/env node
// `npm run bench:tasks`: BENCH_TASKS (1,000) concurrent calls of a one-second task tool
// (`slow_compute`, from the conformance fixtures) by BENCH_USERS (100) users (JWTs), through the
// tasks extension, each going
// create (tools/call answered with a task) → poll (tasks/get while it works, every pollIntervalMs)
// → result (the tasks/get that inlines it), on the embedded database and on PostgreSQL
// (BENCH_PG_URL, default the local server, in a database of its own; BENCH_PG_URL=off skips it).
// The baseline, in the same run and on the same server: the same calls from clients without the
// extension, each holding its request open for the second. Prints per step the count, p50 and p99,
// the throughput (tasks per second, first call to last result) and the ratio of the tasks' end to
// end time to the baseline's. Every result is checked; a wrong one stops the bench (exit 1).
// BENCH_SERVER_NODE_ARGS: extra node options for the server (`--cpu-prof --cpu-prof-dir=DIR`).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOST = '127.0.0.1';
const TASKS = Number(process.env.BENCH_TASKS || 1000);
const USERS = Number(process.env.BENCH_USERS || 100);
const JWT_SECRET = 'bench-tasks-secret-of-at-least-32-characters';
/** Extra node options for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS || '').split(' ').filter(Boolean);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const START_TIMEOUT_MS = 120_000;
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

const work = mkdtempSync(path.join(os.tmpdir(), 'mirobody-bench-tasks-'));
const children = new Set();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(name, env) {
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVER_NODE_ARGS, path.join(root, 'dist/apps/server/src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST,
      LOG_LEVEL: 'warn',
      MCP_TOOL_DIRS: path.join(root, 'apps/server/test/support/conformance-tools'),
      // Every call of the bench is a task.
      MCP_TASK_ANSWER_WITHIN_MS: '0',
      MCP_MAX_TASKS_PER_USER: String(Math.ceil(TASKS / USERS)),
      JWT_SECRET,
      RATE_LIMIT_REQUESTS: '0',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let errors = '';
  child.stderr.on('data', (chunk) => (errors = (errors + chunk).slice(-4000)));
  const url = `http://${HOST}:${port}/mcp`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name}: the server exited (${child.exitCode}):\n${errors}`);
    try {
      await fetch(url, { method: 'GET' });
      return { child, url };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`${name}: the server did not answer within ${START_TIMEOUT_MS / 1000} s`);
}

let ids = 0;

/** A JWT of each bench user. */
const tokens = await Promise.all(
  Array.from({ length: USERS }, (_, index) =>
    new SignJWT({ sub: `bench-user-${index}`, email: `bench-${index}@example.com`, email_verified: true })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('2h')
      .sign(new TextEncoder().encode(JWT_SECRET)),
  ),
);

/** One 2026-07-28 request by user `index % USERS`; the result, or an Error carrying the JSON-RPC error. */
async function request(url, method, params, withTasks, index) {
  const name = method === 'tools/call' ? params.name : params.taskId;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name,
      authorization: `Bearer ${tokens[index % USERS]}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++ids,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench-tasks', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': withTasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
        },
      },
    }),
  });
  const body = await response.json();
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result;
}

const expectedText = (label) => `Computed ${label} in 1s`;

function check(result, label) {
  const text = result?.content?.[0]?.text;
  if (text !== expectedText(label)) throw new Error(`wrong result for ${label}: ${JSON.stringify(result).slice(0, 300)}`);
}

/** One call as a task: create, poll until it ends, read its result; the time of each request, by step. */
async function oneTask(url, index, steps) {
  const label = `task-${index}`;
  const began = performance.now();
  let at = performance.now();
  const created = await request(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label } }, true, index);
  steps.create.push(performance.now() - at);
  if (created.resultType !== 'task') throw new Error(`no task for ${label}: ${JSON.stringify(created).slice(0, 300)}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, created.pollIntervalMs ?? 500));
    at = performance.now();
    const task = await request(url, 'tasks/get', { taskId: created.taskId }, true, index);
    const took = performance.now() - at;
    if (task.status === 'working') {
      steps.poll.push(took);
      continue;
    }
    if (task.status !== 'completed') throw new Error(`${label} ended ${task.status}: ${JSON.stringify(task.error)}`);
    steps.result.push(took);
    check(task.result, label);
    steps.endToEnd.push(performance.now() - began);
    return;
  }
}

/** The baseline: the same call from a client without the extension, answered in its request. */
async function oneCall(url, index, steps) {
  const label = `call-${index}`;
  const began = performance.now();
  check(await request(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label } }, false, index), label);
  steps.endToEnd.push(performance.now() - began);
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};
const ms = (value) => `${value.toFixed(1).padStart(7)} ms`;

async function measure(url, run) {
  const steps = { create: [], poll: [], result: [], endToEnd: [] };
  const began = performance.now();
  await Promise.all(Array.from({ length: TASKS }, (_, index) => run(url, index, steps)));
  return { steps, seconds: (performance.now() - began) / 1000 };
}

function report(name, tasks, baseline) {
  console.log(`\n${name}: ${TASKS} concurrent one-second calls by ${USERS} users`);
  for (const [step, values] of Object.entries(tasks.steps)) {
    if (values.length)
      console.log(`  ${step.padEnd(10)} ${String(values.length).padStart(6)} requests  p50 ${ms(quantile(values, 0.5))}  p99 ${ms(quantile(values, 0.99))}`);
  }
  console.log(`  as tasks:   ${(TASKS / tasks.seconds).toFixed(0).padStart(6)} tasks/s, all done in ${tasks.seconds.toFixed(2)} s`);
  console.log(
    `  baseline:   ${(TASKS / baseline.seconds).toFixed(0).padStart(6)} calls/s, all done in ${baseline.seconds.toFixed(2)} s (end to end p50 ${ms(quantile(baseline.steps.endToEnd, 0.5))}, p99 ${ms(quantile(baseline.steps.endToEnd, 0.99))})`,
  );
  const ratio = quantile(tasks.steps.endToEnd, 0.99) / quantile(baseline.steps.endToEnd, 0.99);
  console.log(`  end to end p99, tasks/baseline: ${ratio.toFixed(2)} (a task is seen done at the first poll after it ends)`);
}

async function benchOn(name, env) {
  const server = await startServer(name, env);
  try {
    // Warm-up: each user's first call makes its user row; then a few tasks.
    await Promise.all(tokens.map((_, index) => request(server.url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, false, index)));
    await measure(server.url, (url, index, steps) => (index < 20 ? oneTask(url, index, steps) : Promise.resolve()));
    const tasks = await measure(server.url, oneTask);
    const baseline = await measure(server.url, oneCall);
    report(name, tasks, baseline);
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
}

async function main() {
  console.log(`bench:tasks on Node ${process.version}, ${os.cpus().length} cores`);
  await benchOn('embedded database', { DATA_DIR: path.join(work, 'embedded') });
  if (PG_URL === 'off') return console.log('\nPostgreSQL: skipped (BENCH_PG_URL=off)');
  const admin = new pg.Client({ connectionString: PG_URL });
  try {
    await admin.connect();
  } catch (error) {
    return console.log(`\nPostgreSQL: skipped (${PG_URL} unreachable: ${error.message})`);
  }
  const database = `bench_tasks_${process.pid}`;
  await admin.query(`CREATE DATABASE ${database}`);
  try {
    const url = new URL(PG_URL);
    url.pathname = `/${database}`;
    await benchOn('PostgreSQL', { DATA_DIR: path.join(work, 'pg'), DATABASE_URL: url.toString() });
  } finally {
    await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
    await admin.end();
  }
}

try {
  await main();
} catch (error) {
  console.error(`\nbench:tasks failed: ${error.message}`);
  process.exit(1);
}
