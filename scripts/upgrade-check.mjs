#!/usr/bin/env node
// The rolling-upgrade check (docs/architecture.md, "Migrations across releases"): the previous
// release and this one on one PostgreSQL database, as a rolling upgrade runs them.
//
//   1. The previous release is built in a temporary directory (`git archive`, then its own
//      `npm run build`; `npm ci --prefer-offline` only when its package-lock.json differs from this one's).
//   2. It starts on a new database (its migrations run) and serves a load of tool calls and REST
//      requests (`remember`, `echo`, `whoami`, memories, file uploads and lists) that never stops.
//   3. This release (dist/, built beforehand) starts on the same database and runs its migrations
//      while the previous one goes on answering; then both serve the load together.
//   4. What each wrote the other reads: a memory, a file's bytes.
// Any answer that is not a success, from either release at any moment, fails the check (exit 1).
//
// The previous release: HEAD when the working tree has changes to tracked files (the change under
// test is that work); else the newest `release-*` tag before HEAD (the last release, so that a
// landing of several commits is checked against what is deployed, not against its own last
// commit but one), else HEAD~1; UPGRADE_FROM=<commit or tag> names another. A shallow clone is
// deepened by one commit.
// PostgreSQL: the server of UPGRADE_DATABASE_URL, else TEST_DATABASE_URL, else 127.0.0.1:5432 as
// user postgres; without one the check is skipped, unless CI=true.
//
// Usage: npm run test:upgrade      (builds this release first; CI runs it inside `npm run test:all`)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../bench/processes.mjs';

const root = resolve(import.meta.dirname, '..');
const SERVER_URL = process.env.UPGRADE_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const LOAD_CONNECTIONS = 4;
/**
 * Each load connection's pause between requests: the check needs answers at every moment, not the
 * most the server can take, and a flat-out load competes on a 2-core CI host with the release
 * starting beside it.
 */
const LOAD_PAUSE_MS = 25;
const STARTUP_TIMEOUT_MS = 180_000;
const SECRETS = {
  JWT_SECRET: `upgrade-${process.pid}-a-jwt-secret-of-at-least-32-characters`,
  SIGNING_SECRET: `upgrade-${process.pid}-a-signing-secret-of-32-characters`,
};
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const cleanups = [];
/** The load's failed answers so far, reported even when a later step throws. */
let loadFailures = [];

function git(...args) {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${(result.stdout + result.stderr).slice(-4000)}`);
}

/** The commit of the previous release, deepening a shallow clone when it lacks it. */
function previousRelease() {
  if (process.env.UPGRADE_FROM) {
    const named = git('rev-parse', '--verify', `${process.env.UPGRADE_FROM}^{commit}`);
    if (!named) throw new Error(`UPGRADE_FROM=${process.env.UPGRADE_FROM} names no commit here`);
    return named;
  }
  const dirty = git('status', '--porcelain', '--untracked-files=no');
  if (dirty === undefined) throw new Error(`${root} is not a git checkout: the previous release is found in its history`);
  const revision = dirty ? 'HEAD' : (git('describe', '--tags', '--abbrev=0', '--match', 'release-*', 'HEAD~1') ?? 'HEAD~1');
  let commit = git('rev-parse', '--verify', `${revision}^{commit}`);
  if (!commit && git('rev-parse', '--is-shallow-repository') === 'true') {
    git('fetch', '--quiet', '--deepen=1');
    commit = git('rev-parse', '--verify', `${revision}^{commit}`);
  }
  if (!commit) throw new Error(`${revision} is not in this clone's history (a shallow clone that could not be deepened?): clone with --depth=2 or more`);
  return commit;
}

/** The previous release, built in a directory of its own. */
function buildPrevious(commit) {
  const dir = mkdtempSync(join(tmpdir(), 'mirobody-previous-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const archive = spawnSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${dir}"`], { cwd: root, encoding: 'utf8' });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr}`);
  // The same lockfile installs the same packages: this checkout's serve (nothing in a build writes to them).
  if (readFileSync(join(dir, 'package-lock.json'), 'utf8') === readFileSync(join(root, 'package-lock.json'), 'utf8')) {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  } else {
    console.log('  its package-lock.json differs: npm ci (from the npm cache when it can)');
    run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], dir);
  }
  run('npm', ['run', 'build'], dir);
  return dir;
}

/** A server of `dir` on the database; resolves once it answers its readiness probe. */
async function startServer(name, dir, env) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(dir, 'dist/apps/server/src/main.js')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      RATE_LIMIT_REQUESTS: '0',
      RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => (output = (output + chunk).slice(-8000)));
  const exited = new Promise((done) => child.once('exit', (code, signal) => done(code ?? signal)));
  cleanups.push(() => child.kill('SIGKILL'));
  const origin = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + STARTUP_TIMEOUT_MS; Date.now() < deadline; await new Promise((done) => setTimeout(done, 200))) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited during start-up:\n${output}`);
    const ready = await fetch(`${origin}/health/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) {
      console.log(`  ${name} ready (${elapsed()})`);
      return { name, origin, child, exited, output: () => output };
    }
  }
  throw new Error(`${name} did not get ready in ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`);
}

/** SIGTERM, and the exit code. */
function stop(server) {
  server.child.kill('SIGTERM');
  return server.exited;
}

async function bearerToken() {
  const { SignJWT } = await import('jose');
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ sub: 'upgrade-check', iat: now, exp: now + 3600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(SECRETS.JWT_SECRET));
  return `Bearer ${token}`;
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** One request of the load, by its number: an MCP tool call or a REST call; resolves with a failure's description, or nothing. */
async function loadRequest(origin, bearer, n) {
  const call = async (path, init, isSuccess) => {
    const response = await fetch(`${origin}${path}`, { ...init, headers: { authorization: bearer, ...init.headers } });
    const text = await response.text();
    return isSuccess(response.status, text) ? undefined : `${init.method ?? 'GET'} ${path}: ${response.status} ${text.slice(0, 300)}`;
  };
  const tool = (name, args) =>
    call(
      '/mcp',
      { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name, arguments: args } }) },
      (status, text) => {
        if (status !== 200) return false;
        const { result } = JSON.parse(text);
        return result !== undefined && !result.isError;
      },
    );
  switch (n % 6) {
    case 0:
      return tool('remember', { text: `Upgrade check fact ${n} ${process.pid}` });
    case 1:
      return tool('echo', { text: `upgrade ${n}` });
    case 2:
      return tool('whoami', {});
    case 3:
      return call('/api/memories?limit=5', {}, (status) => status === 200);
    case 4: {
      const form = new FormData();
      form.append('file', new Blob([`upgrade file ${n}`]), `upgrade-${n}.txt`);
      return call('/api/files', { method: 'POST', body: form }, (status) => status === 201);
    }
    default:
      return call('/api/files?limit=5', {}, (status) => status === 200);
  }
}

/** Requests on every server in `targets()` until stopped, counted per server and phase. */
function startLoad(bearer, targets, phase) {
  const counts = new Map();
  const failures = [];
  let stopped = false;
  let n = 0;
  const worker = async () => {
    while (!stopped) {
      for (const server of targets()) {
        const key = `${server.name} ${phase()}`;
        const failure = await loadRequest(server.origin, bearer, n++).catch((error) => `${error.cause?.code ?? error.message}`);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        if (failure) failures.push(`${key}: ${failure}`);
        await new Promise((done) => setTimeout(done, LOAD_PAUSE_MS));
      }
    }
  };
  const running = Promise.all(Array.from({ length: LOAD_CONNECTIONS }, worker));
  return {
    counts,
    failures,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** What `writer` stores, `reader` returns: a memory through REST, a file's bytes. */
async function crossRead(writer, reader, bearer) {
  const headers = { authorization: bearer, 'content-type': 'application/json' };
  const { memory } = await (
    await fetch(`${writer.origin}/api/memories`, { method: 'POST', headers, body: JSON.stringify({ text: `Written by ${writer.name}` }) })
  ).json();
  const readBack = await fetch(`${reader.origin}/api/memories/${memory.id}`, { headers });
  const form = new FormData();
  form.append('file', new Blob([`bytes from ${writer.name}`]), 'cross.txt');
  const file = await (await fetch(`${writer.origin}/api/files`, { method: 'POST', body: form, headers: { authorization: bearer } })).json();
  const content = await fetch(`${reader.origin}/api/files/${file.fileKey}/content`, { headers: { authorization: bearer } });
  const problems = [];
  if (readBack.status !== 200 || (await readBack.json()).text !== `Written by ${writer.name}`)
    problems.push(`a memory ${writer.name} wrote: ${readBack.status}`);
  if (content.status !== 200 || (await content.text()) !== `bytes from ${writer.name}`) problems.push(`a file ${writer.name} uploaded: ${content.status}`);
  return problems.map((problem) => `${reader.name} cannot read ${problem}`);
}

async function databaseServer() {
  const client = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return client;
  } catch (error) {
    if (process.env.CI === 'true') throw new Error(`No PostgreSQL at ${SERVER_URL} (${error.message}): the upgrade check needs one`, { cause: error });
    console.log(`upgrade check skipped: no PostgreSQL at ${SERVER_URL} (${error.message}); CI=true makes this a failure`);
    return undefined;
  }
}

async function main() {
  if (!existsSync(join(root, 'dist/apps/server/src/main.js'))) throw new Error('dist/ is missing: npm run build first (npm run test:upgrade does)');
  const admin = await databaseServer();
  if (!admin) return;
  cleanups.push(() => admin.end());
  const commit = previousRelease();
  console.log(`upgrade check: ${git('log', '-1', '--format=%h %s', commit)?.slice(0, 100)} -> this checkout`);
  const previousDir = buildPrevious(commit);
  console.log(`  previous release built (${elapsed()})`);

  const database = `mirobody_upgrade_${process.pid}`;
  await admin.query(`CREATE DATABASE ${database}`);
  cleanups.push(() => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  const url = new URL(SERVER_URL);
  url.pathname = `/${database}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'mirobody-upgrade-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  // One database and one file store, as instances behind a load balancer share them.
  const env = { ...SECRETS, DATABASE_URL: url.href, DATA_DIR: dataDir };
  const migrationsApplied = async () => {
    const db = new pg.Client({ connectionString: url.href });
    await db.connect();
    try {
      return (await db.query('SELECT count(*)::int AS n FROM migrations')).rows[0].n;
    } finally {
      await db.end();
    }
  };

  const previous = await startServer('previous', previousDir, env);
  const previousMigrations = await migrationsApplied();
  const bearer = await bearerToken();
  const servers = [previous];
  let phase = 'before the upgrade';
  const load = startLoad(
    bearer,
    () => servers,
    () => phase,
  );
  loadFailures = load.failures;
  cleanups.push(() => load.stop());
  await new Promise((done) => setTimeout(done, 2000));
  phase = 'while the current one starts and migrates';
  const current = await startServer('current', root, env);
  const currentMigrations = await migrationsApplied();
  phase = 'side by side';
  servers.push(current);
  await new Promise((done) => setTimeout(done, 3000));
  const problems = [...(await crossRead(previous, current, bearer)), ...(await crossRead(current, previous, bearer))];
  // A rollback: the current release stops, and the previous one starts again on the database the current one migrated.
  phase = 'after the rollback';
  servers.splice(servers.indexOf(current), 1);
  const exits = [await stop(current)];
  const restarted = await startServer('previous restarted', previousDir, env);
  servers.push(restarted);
  await new Promise((done) => setTimeout(done, 2000));
  await load.stop();
  problems.push(...load.failures);
  exits.push(await stop(previous), await stop(restarted));
  for (const [index, server] of [current, previous, restarted].entries())
    if (exits[index] !== 0) problems.push(`${server.name} exited with ${exits[index]} on SIGTERM:\n${server.output()}`);

  console.log(
    `  migrations: ${previousMigrations} applied by the previous release, ${currentMigrations - previousMigrations} more by this one while the previous one served`,
  );
  console.log(`  answers: ${[...load.counts].map(([key, count]) => `${key} ${count}`).join(', ')}`);
  const phases = ['previous before the upgrade', 'previous while the current one starts and migrates', 'previous side by side', 'current side by side'];
  for (const key of [...phases, 'previous after the rollback', 'previous restarted after the rollback'])
    if (!load.counts.get(key)) problems.push(`no request reached ${key}: the load did not run`);
  if (problems.length) {
    console.log(`upgrade check FAILED (${elapsed()}):\n  ${[...new Set(problems)].slice(0, 20).join('\n  ')}`);
    process.exitCode = 1;
  } else console.log(`upgrade check passed in ${elapsed()}`);
}

try {
  await main();
} catch (error) {
  console.error(`upgrade check FAILED: ${error.message}`);
  if (loadFailures.length) console.error(`failed answers before that:\n  ${[...new Set(loadFailures)].slice(0, 20).join('\n  ')}`);
  process.exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
}
