#!/usr/bin/env node
// `npm run soak`: a mixed load on the app as users run it (dist/apps/server/src/main.js with the
// node options of `npm run start:prod`), for minutes: `echo`, `whoami`, `remember` and
// `recall_memory` by one user with a JWT, so that the user's memories grow through the run (past
// 10k in 5 minutes at ~50 remember/s). Every answer is checked: HTTP 200, a JSON-RPC result, no
// tool error, `remember` answers an id, and `recall_memory` answers only memories of the topic it
// asked about (and some, once every topic has surely been told). Prints one line per minute:
// requests per second, p50/p99/max latency, errors, the server's resident memory, memories stored
// so far, the CPU the server used per request (its process and, on PostgreSQL, its database's
// backends: what a call costs, whatever else the machine runs); then each target beside its
// figure, met or not, and the RSS slope. On the embedded database by default;
// SOAK_DATABASE_URL=<postgres url> runs it on a database of its own created on that server
// (dropped after).
//
// Settings (environment): SOAK_MINUTES=5 SOAK_CONNECTIONS=50 SOAK_MIX=echo:1,whoami:1,remember:1,recall_memory:1
// SOAK_DATABASE_URL=<url> (PostgreSQL; unset: embedded)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import pg from 'pg';
import { Pool } from 'undici';
import { positiveInteger } from './settings.mjs';
import { cpuSecondsOf, freePort, memoryOf } from './processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MINUTES = positiveInteger('SOAK_MINUTES', 5);
const CONNECTIONS = positiveInteger('SOAK_CONNECTIONS', 50);
const DATABASE_URL = process.env.SOAK_DATABASE_URL || undefined;
const JWT_SECRET = `soak-${process.pid}-a-jwt-secret-of-at-least-32-characters`;
const HOST = '127.0.0.1';

/** The tools of the mix and their weights (SOAK_MIX=name:weight,...). */
function mix() {
  const raw = process.env.SOAK_MIX || 'echo:1,whoami:1,remember:1,recall_memory:1';
  const entries = raw.split(',').map((entry) => {
    const [name, weight] = entry.split(':');
    if (!['echo', 'whoami', 'remember', 'recall_memory'].includes(name) || !(Number(weight) > 0))
      throw new Error(`SOAK_MIX: expected echo, whoami, remember or recall_memory with a positive weight, got "${entry}"`);
    return [name, Number(weight)];
  });
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  let cumulative = 0;
  return entries.map(([name, weight]) => [name, (cumulative += weight / total)]);
}
const MIX = mix();

const TOPICS = ['running', 'coffee', 'sleep', 'blood pressure', 'ferritin', 'yoga', 'vitamin D', 'cycling', 'migraine', 'swimming'];
let sequence = 0;
function nextCall() {
  const draw = Math.random();
  const [tool] = MIX.find(([, upTo]) => draw <= upTo) ?? MIX.at(-1);
  const n = sequence++;
  const topic = TOPICS[n % TOPICS.length];
  const args = {
    echo: { text: `hello ${n}` },
    whoami: {},
    remember: { text: `Note ${n}: the user mentioned ${topic} on day ${Math.floor(n / 10)} of the soak` },
    recall_memory: { query: `what about ${topic}` },
  }[tool];
  return { tool, topic, body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: tool, arguments: args } }) };
}

/** Memories stored after which a recall of any topic must find some: the chance that a topic is still untold is 10 × 0.9^500, about 1e-22. */
const EVERY_TOPIC_TOLD = 500;

/** What is wrong with a successful tool result, if anything; `remembered`: memories stored before the call was sent. */
function wrongResult(call, result, remembered) {
  const data = result.structuredContent;
  if (call.tool === 'remember' && typeof data?.id !== 'string') return `remember: no id in ${JSON.stringify(data).slice(0, 120)}`;
  if (call.tool !== 'recall_memory') return undefined;
  if (!Array.isArray(data?.memories)) return `recall_memory: no memories in ${JSON.stringify(data).slice(0, 120)}`;
  const stray = data.memories.find((memory) => !memory.text.includes(call.topic));
  if (stray) return `recall_memory: "${call.topic}" answered "${stray.text}"`;
  if (data.memories.length === 0 && remembered >= EVERY_TOPIC_TOLD) return `recall_memory: nothing about "${call.topic}" among ${remembered} memories`;
  return undefined;
}

async function startServer(env) {
  const port = await freePort();
  const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const nodeArgs = scripts['start:prod'].split(/\s+/).slice(1, -1);
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'dist/apps/server/src/main.js')], {
    cwd: root,
    env: { ...process.env, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0', LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors = (errors + chunk).slice(-4000)));
  process.on('exit', () => child.kill('SIGKILL'));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited during start-up:\n${errors}`);
    try {
      if ((await fetch(`http://${HOST}:${port}/health/ready`)).ok) return { child, origin: `http://${HOST}:${port}` };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server did not get ready in 120 s:\n${errors}`);
}

/**
 * CPU seconds the backends of one database of a PostgreSQL server on this machine have used so far:
 * their pids are listed every 5 s, and one that has ended counts with its last reading.
 */
function backendsCpu(admin, database) {
  const readings = new Map();
  const list = async () => {
    const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
    for (const { pid } of rows) if (!readings.has(pid)) readings.set(pid, 0);
  };
  // A listing that fails is retried 5 s later: the figure is a measurement, not a check.
  const timer = setInterval(() => list().catch(() => {}), 5_000);
  return {
    list,
    seconds() {
      for (const pid of readings.keys()) readings.set(pid, cpuSecondsOf(pid) ?? readings.get(pid));
      return [...readings.values()].reduce((sum, seconds) => sum + seconds, 0);
    },
    stop: () => clearInterval(timer),
  };
}

/** The p-th percentile (0-100) of sorted values. */
const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

/**
 * Drives the load; answers each minute's figures. `cpuSeconds()`: CPU the server has used so far,
 * its process and its database's (on the embedded database, the same process), whose growth per
 * request says what each call costs whatever else the machine runs.
 */
async function soak(origin, pid, token, cpuSeconds) {
  const pool = new Pool(origin, { connections: CONNECTIONS, pipelining: 1 });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
  const minutes = [];
  let current = { latencies: [], errors: 0, errorSamples: new Set(), byTool: {} };
  let remembered = 0;
  const started = performance.now();
  const endAt = started + MINUTES * 60_000;
  let nextMinute = started + 60_000;
  let cpuBefore = cpuSeconds();

  const closeMinute = () => {
    const sorted = current.latencies.toSorted((a, b) => a - b);
    const cpu = cpuSeconds();
    minutes.push({
      cpuPerRequest: ((cpu - cpuBefore) * 1000) / sorted.length,
      requests: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? NaN,
      errors: current.errors,
      errorSamples: [...current.errorSamples].slice(0, 3),
      rss: memoryOf(pid)?.rss,
      remembered,
      byTool: Object.entries(current.byTool).map(
        ([tool, latencies]) =>
          `${tool} ${percentile(
            latencies.toSorted((a, b) => a - b),
            99,
          ).toFixed(0)}`,
      ),
    });
    const m = minutes.at(-1);
    console.log(
      `minute ${String(minutes.length).padStart(2)}: ${(m.requests / 60).toFixed(0).padStart(5)} req/s  p50 ${m.p50.toFixed(1).padStart(6)} ms  p99 ${m.p99.toFixed(1).padStart(7)} ms  max ${m.max.toFixed(0).padStart(6)} ms  errors ${String(m.errors).padStart(4)}  RSS ${m.rss?.toFixed(0) ?? '-'} MB  memories ${m.remembered}  CPU ${m.cpuPerRequest.toFixed(2)} ms/req`,
    );
    console.log(`  p99 ms by tool: ${m.byTool.join(', ')}`);
    for (const sample of m.errorSamples) console.log(`  error: ${sample}`);
    current = { latencies: [], errors: 0, errorSamples: new Set(), byTool: {} };
    cpuBefore = cpu;
  };

  const connection = async () => {
    while (performance.now() < endAt) {
      const call = nextCall();
      const { tool, body } = call;
      const rememberedBefore = remembered;
      const sent = performance.now();
      let problem;
      try {
        const response = await pool.request({ path: '/mcp', method: 'POST', headers, body });
        const text = await response.body.text();
        if (response.statusCode !== 200) problem = `${tool}: HTTP ${response.statusCode} ${text.slice(0, 120)}`;
        else {
          const answer = JSON.parse(text);
          if (answer.error) problem = `${tool}: JSON-RPC ${answer.error.code} ${answer.error.message}`;
          else if (answer.result?.isError) problem = `${tool}: tool error ${JSON.stringify(answer.result.content).slice(0, 120)}`;
          else problem = wrongResult(call, answer.result, rememberedBefore);
          if (!problem && tool === 'remember') remembered++;
        }
      } catch (error) {
        problem = `${tool}: ${error.code ?? error.message}`;
      }
      const now = performance.now();
      while (now >= nextMinute && minutes.length < MINUTES) {
        closeMinute();
        nextMinute += 60_000;
      }
      current.latencies.push(now - sent);
      (current.byTool[tool] ??= []).push(now - sent);
      if (problem) {
        current.errors++;
        current.errorSamples.add(problem);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  if (minutes.length < MINUTES) closeMinute();
  await pool.close();
  return minutes;
}

async function main() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'mirobody-soak-'));
  let admin;
  let databaseName;
  let backends;
  try {
    const env = { DATA_DIR: path.join(scratch, 'data'), JWT_SECRET };
    if (DATABASE_URL) {
      admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      databaseName = `mirobody_soak_${process.pid}`;
      await admin.query(`CREATE DATABASE ${databaseName}`);
      const url = new URL(DATABASE_URL);
      url.pathname = `/${databaseName}`;
      env.DATABASE_URL = url.href;
    }
    const { child, origin } = await startServer(env);
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ sub: 'soak-user', iat: now, exp: now + 24 * 3600 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(JWT_SECRET));
    console.log(
      `soak: ${MINUTES} min, ${CONNECTIONS} connections, mix ${process.env.SOAK_MIX || 'echo:1,whoami:1,remember:1,recall_memory:1'}, ${DATABASE_URL ? 'PostgreSQL' : 'embedded database'} (node ${process.version})`,
    );
    console.log(`RSS idle before the load: ${memoryOf(child.pid)?.rss?.toFixed(0) ?? '-'} MB`);
    if (admin) {
      backends = backendsCpu(admin, databaseName);
      await backends.list();
    }
    const minutes = await soak(origin, child.pid, token, () => cpuSecondsOf(child.pid) + (backends?.seconds() ?? 0));
    const [first, last] = [minutes[0], minutes.at(-1)];
    const worstP99 = Math.max(...minutes.map((minute) => minute.p99));
    const errors = minutes.reduce((sum, minute) => sum + minute.errors, 0);
    // RSS slope: least squares over the per-minute readings, MB per minute.
    const points = minutes.map((minute, index) => [index, minute.rss]).filter(([, rss]) => rss !== undefined);
    const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
    const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
    const slope =
      points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0) /
      Math.max(
        1e-9,
        points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0),
      );
    const verdict = (met) => (met ? 'met' : 'not met');
    const held = last.requests / first.requests;
    const answers = minutes.reduce((sum, minute) => sum + minute.requests, 0);
    console.log(
      `summary: ${last.remembered} memories stored, RSS slope ${slope.toFixed(1)} MB/min, server CPU per request ${first.cpuPerRequest.toFixed(2)} ms in minute 1, ${last.cpuPerRequest.toFixed(2)} ms in minute ${minutes.length}`,
    );
    console.log(`  minute ${minutes.length} / minute 1 = ${held.toFixed(2)} (target >= 0.80): ${verdict(held >= 0.8)}`);
    console.log(`  worst minute's p99 = ${worstP99.toFixed(1)} ms (target <= 50): ${verdict(worstP99 <= 50)}`);
    console.log(errors === 0 ? `  every answer was right (${answers} checked)` : `  ${errors} of ${answers} answers were wrong (target 0): not met`);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    if (errors > 0) process.exitCode = 1;
  } finally {
    backends?.stop();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      await admin.end();
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
