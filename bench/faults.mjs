#!/usr/bin/env node
// `npm run faults`: the faults a company's operations put the server through, on the app as users
// run it (dist/apps/server/src/main.js), each checked, each a line of figures:
//   kill-9    writers (bench/writers.mjs) store memories (`remember`) and upload files; the server is killed (SIGKILL)
//             mid-write, restarted on the same data, and every acknowledged write is looked for
//             (an acknowledged write missing is a failure); after the restart no `.part` upload
//             is left. FAULTS_ROUNDS rounds.
//   outage    PostgreSQL only: the database goes away under load (a relay in front of it is cut)
//             and comes back: answers meanwhile are 503 with Retry-After, never 500; `echo` keeps
//             answering; after it returns, calls succeed again without a restart.
//   sigterm   keep-alive clients under load when SIGTERM comes: no client may see a reset
//             connection (ECONNRESET) or a request it cannot account for; exit code 0; every
//             acknowledged write is there after the restart.
// On the embedded database by default; FAULTS_DATABASE_URL=<postgres url> runs every fault on a
// database of its own on that server (the outage fault runs only then). Exit 1 on any failure.
// Settings (environment): FAULTS_ROUNDS=3 FAULTS_CONNECTIONS=20 FAULTS_WRITE_SECONDS=3
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import pg from 'pg';
import { Agent, fetch, request } from 'undici';
import { freePort } from './processes.mjs';
import { positiveInteger } from './settings.mjs';
import { startWriters } from './writers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = positiveInteger('FAULTS_ROUNDS', 3);
const CONNECTIONS = positiveInteger('FAULTS_CONNECTIONS', 20);
const WRITE_SECONDS = positiveInteger('FAULTS_WRITE_SECONDS', 3);
const DATABASE_URL = process.env.FAULTS_DATABASE_URL || undefined;
const JWT_SECRET = `faults-${process.pid}-a-jwt-secret-of-at-least-32-characters`;
const HOST = '127.0.0.1';
const failures = [];
const CLEANUP_GRACE_SECONDS = 2;
const pastTheGrace = () => new Promise((resolve) => setTimeout(resolve, (CLEANUP_GRACE_SECONDS + 1) * 1000));

const fail = (fault, message) => {
  failures.push(`${fault}: ${message}`);
  console.log(`  FAILED ${message}`);
};

async function startServer(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, 'dist/apps/server/src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      RATE_LIMIT_REQUESTS: '0',
      RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_SECONDS: '10',
      ...env,
      PORT: String(port),
      HOST,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors = (errors + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  process.on('exit', () => child.kill('SIGKILL'));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited during start-up:\n${errors}`);
    try {
      if ((await fetch(`http://${HOST}:${port}/health/ready`)).ok) return { child, exited, origin: `http://${HOST}:${port}` };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server did not get ready in 120 s:\n${errors}`);
}

async function token(subject) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: subject, iat: now, exp: now + 24 * 3600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(JWT_SECRET));
}

const mcpCall = (name, args, id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Every acknowledged memory and file is there, and nothing is left half-written. */
async function audit(fault, origin, bearer, dataDir, acknowledged) {
  const exported = await (await fetch(`${origin}/api/memories/export`, { headers: { authorization: bearer } })).json();
  const stored = new Set(exported.memories.map((memory) => memory.id));
  const lostMemories = acknowledged.memories.filter((id) => !stored.has(id));
  const files = new Set();
  for (let cursor; ;) {
    const page = await (await fetch(`${origin}/api/files?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: bearer } })).json();
    for (const file of page.items) files.add(file.fileKey);
    if (!page.nextCursor) break;
    cursor = encodeURIComponent(page.nextCursor);
  }
  const lostFiles = acknowledged.files.filter((key) => !files.has(key));
  // Start-up's housekeeping has run by the time the server answers: nothing half-written, no object without its file.
  const filesDir = path.join(dataDir, 'files');
  const onDisk = (directory, name) =>
    existsSync(directory) ? readdirSync(directory, { recursive: true }).filter((entry) => name.test(path.basename(entry))) : [];
  const partial = onDisk(path.join(filesDir, 'incoming'), /\.part$/);
  const orphans = onDisk(path.join(filesDir, 'objects'), /^[A-Za-z0-9_-]{22}$/).filter((entry) => !files.has(path.basename(entry)));
  console.log(
    `  audit: ${acknowledged.memories.length} memories and ${acknowledged.files.length} files acknowledged; lost ${lostMemories.length} and ${lostFiles.length}; after the restart ${partial.length} partial uploads, ${orphans.length} objects without a file`,
  );
  if (orphans.length) fail(fault, `objects without a file after the restart: ${orphans.slice(0, 3).join(', ')}`);
  if (lostMemories.length) fail(fault, `acknowledged memories missing: ${lostMemories.slice(0, 3).join(', ')}`);
  if (lostFiles.length) fail(fault, `acknowledged files missing: ${lostFiles.slice(0, 3).join(', ')}`);
  if (partial.length) fail(fault, `.part files left after the restart: ${partial.slice(0, 3).join(', ')}`);
  return stored.size;
}

const describe = (outcomes) => [...outcomes].map(([kind, count]) => `${kind} ×${count}`).join(', ');

async function kill9(env, bearer) {
  console.log(`kill-9: ${ROUNDS} rounds of ${WRITE_SECONDS} s of writes by ${CONNECTIONS} connections, then SIGKILL`);
  const all = { memories: [], files: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const server = await startServer(env);
    const writers = startWriters({ origin: server.origin, bearer, connections: CONNECTIONS });
    await new Promise((resolve) => setTimeout(resolve, WRITE_SECONDS * 1000));
    server.child.kill('SIGKILL');
    await server.exited;
    await writers.stop();
    const { acknowledged, outcomes } = writers;
    all.memories.push(...acknowledged.memories);
    all.files.push(...acknowledged.files);
    console.log(`  round ${round}: ${describe(outcomes)}`);
  }
  await pastTheGrace();
  const server = await startServer(env);
  await audit('kill-9', server.origin, bearer, env.DATA_DIR, all);
  server.child.kill('SIGTERM');
  await server.exited;
}

/** A TCP relay in front of PostgreSQL, cut and restored to take the database away from the server alone. */
async function relayTo(target) {
  const sockets = new Set();
  let server;
  const port = await freePort();
  const open = () =>
    new Promise((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, HOST, resolve);
    });
  await open();
  return {
    port,
    open,
    cut: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function outage(env, bearer) {
  const target = new URL(env.DATABASE_URL);
  const relay = await relayTo(target);
  const viaRelay = new URL(env.DATABASE_URL);
  viaRelay.host = `${HOST}:${relay.port}`;
  console.log('outage: load of remember and echo; the database goes away for 5 s, then comes back');
  const server = await startServer({ ...env, DATABASE_URL: viaRelay.href });
  const dispatcher = new Agent({ connections: CONNECTIONS });
  const phases = { before: new Map(), during: new Map(), after: new Map() };
  let phase = 'before';
  let stop = false;
  let retryAfterMissing = 0;
  const samples = new Map();
  const caller = async (index) => {
    for (let id = index; !stop; id += CONNECTIONS) {
      const tool = index % 2 ? 'echo' : 'remember';
      const args = tool === 'echo' ? { text: 'still here' } : { text: `Outage fact ${id} of ${process.pid}` };
      const counted = phases[phase];
      try {
        const response = await request(`${server.origin}/mcp`, {
          method: 'POST',
          headers: { ...MCP_HEADERS, authorization: bearer },
          body: mcpCall(tool, args, id),
          dispatcher,
        });
        const text = await response.body.text();
        const parsed = response.statusCode === 200 ? JSON.parse(text) : undefined;
        const kind = parsed?.result?.isError ? 'tool error' : String(response.statusCode);
        if (kind === 'tool error' && !samples.has(phase)) samples.set(phase, parsed.result.content[0].text.slice(0, 160));
        if (response.statusCode === 503 && !response.headers['retry-after']) retryAfterMissing++;
        counted.set(`${tool} ${kind}`, (counted.get(`${tool} ${kind}`) ?? 0) + 1);
      } catch (error) {
        counted.set(`${tool} ${error.code ?? error.name}`, (counted.get(`${tool} ${error.code ?? error.name}`) ?? 0) + 1);
      }
    }
  };
  const load = Promise.all(Array.from({ length: CONNECTIONS }, (_, index) => caller(index)));
  await new Promise((resolve) => setTimeout(resolve, 2000));
  phase = 'during';
  await relay.cut();
  await new Promise((resolve) => setTimeout(resolve, 5000));
  await relay.open();
  phase = 'after';
  // The pool reconnects on the next query; a moment for connections it had to time out.
  await new Promise((resolve) => setTimeout(resolve, 8000));
  stop = true;
  await load;
  await dispatcher.close();
  for (const [name, outcomes] of Object.entries(phases)) {
    console.log(`  ${name}: ${describe(outcomes)}`);
    if (samples.has(name)) console.log(`    a tool error: ${samples.get(name)}`);
  }
  const fiveHundreds = [...phases.before, ...phases.during, ...phases.after].filter(([kind]) => / 500$/.test(kind));
  if (fiveHundreds.length) fail('outage', `answered 500: ${describe(new Map(fiveHundreds))}`);
  if (retryAfterMissing) fail('outage', `${retryAfterMissing} answers 503 without Retry-After`);
  if (!phases.during.get('echo 200')) fail('outage', 'echo did not answer while the database was away');
  if (!phases.after.get('remember 200')) fail('outage', 'remember did not succeed after the database came back');
  await relay.cut();
  server.child.kill('SIGTERM');
  await server.exited;
}

async function sigterm(env, bearer) {
  console.log(`sigterm: ${CONNECTIONS} keep-alive writers, SIGTERM after ${WRITE_SECONDS} s`);
  const server = await startServer(env);
  const writers = startWriters({ origin: server.origin, bearer, connections: CONNECTIONS });
  await new Promise((resolve) => setTimeout(resolve, WRITE_SECONDS * 1000));
  server.child.kill('SIGTERM');
  const exitCode = await server.exited;
  await writers.stop();
  const { acknowledged, outcomes } = writers;
  console.log(`  exit ${exitCode}; ${describe(outcomes)}`);
  const resets = [...outcomes].filter(([kind]) => / (ECONNRESET|UND_ERR_SOCKET|EPIPE)$/.test(kind));
  if (exitCode !== 0) fail('sigterm', `exit code ${exitCode}`);
  if (resets.length) fail('sigterm', `clients saw connections reset mid-request: ${describe(new Map(resets))}`);
  await pastTheGrace();
  const restarted = await startServer(env);
  await audit('sigterm', restarted.origin, bearer, env.DATA_DIR, acknowledged);
  restarted.child.kill('SIGTERM');
  await restarted.exited;
}

async function main() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'mirobody-faults-'));
  let admin;
  const databases = [];
  const env = async (name) => {
    // What a crash leaves is put right once older than the grace: short here, and waited out before each restart.
    const settings = { DATA_DIR: path.join(scratch, name), JWT_SECRET, FILES_CLEANUP_GRACE: String(CLEANUP_GRACE_SECONDS), FILES_EXTRACT_TIMEOUT: '1' };
    if (!DATABASE_URL) return settings;
    const database = `mirobody_faults_${name.replace(/\W/g, '_')}_${process.pid}`;
    await admin.query(`CREATE DATABASE ${database}`);
    databases.push(database);
    const url = new URL(DATABASE_URL);
    url.pathname = `/${database}`;
    return { ...settings, DATABASE_URL: url.href };
  };
  try {
    if (DATABASE_URL) {
      admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
    }
    console.log(`faults on ${DATABASE_URL ? 'PostgreSQL' : 'the embedded database'} (node ${process.version})`);
    await kill9(await env('kill9'), `Bearer ${await token('faults-kill9')}`);
    if (DATABASE_URL) await outage(await env('outage'), `Bearer ${await token('faults-outage')}`);
    else console.log('outage: skipped (PostgreSQL only: set FAULTS_DATABASE_URL)');
    await sigterm(await env('sigterm'), `Bearer ${await token('faults-sigterm')}`);
  } finally {
    for (const database of databases) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(failures.length ? `${failures.length} failures:\n${failures.join('\n')}` : 'every fault handled');
  if (failures.length) process.exitCode = 1;
}

await main();
