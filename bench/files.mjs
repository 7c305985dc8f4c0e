#!/usr/bin/env node
// `npm run bench:files`: upload and download of one large file through the REST API, on local disk
// and on an S3-protocol server (s3rver, in a child process), against `cp` of the same file in the
// same run. Prints MB/s (10^6 bytes per second), the server's peak RSS growth during each transfer
// (VmRSS sampled every 20 ms, minus the value just before) and the CPU time the server and this
// client used for it (all threads, user and system), which says how much of the two cores a transfer
// takes. Every transfer is verified (size and SHA-256 both ways). The bench reports; it checks the
// targets only to print them, against the fastest upload route.
//
// Targets: RSS growth under 64 MB (streaming); local-disk upload at least half the speed of `cp`.
// Settings (environment): BENCH_FILE_MB=1024 (size of the file, MiB), BENCH_BACKENDS=local,s3,
// BENCH_ROUTES=raw,multipart (POST /api/files/raw with the file as the body; POST /api/files as multipart),
// BENCH_ROUNDS=3 (uploads per route, taking turns, best kept),
// BENCH_SERVER_NODE_ARGS (extra node options for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { freePort } from './processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOST = '127.0.0.1';
const MiB = 1024 * 1024;
const FILE_BYTES = Math.round(Number(process.env.BENCH_FILE_MB || 1024) * MiB);
const JWT_SECRET = 'bench-files-secret-of-at-least-32-characters';
const BUCKET = 'bench-files';
const RSS_TARGET_MB = 64;
const BACKENDS = (process.env.BENCH_BACKENDS || 'local,s3').split(',').map((name) => name.trim());
const ROUTES = (process.env.BENCH_ROUTES || 'raw,multipart').split(',').map((name) => name.trim());
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS || '').split(' ').filter(Boolean);

const work = mkdtempSync(path.join(os.tmpdir(), 'mirobody-bench-files-'));
const children = new Set();
const cleanUp = () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const mb = (bytes) => bytes / 1e6;
const rate = (bytes, ms) => mb(bytes) / (ms / 1000);

/** A file of random bytes (incompressible, typed as application/octet-stream), and its SHA-256. */
function makeSource(file) {
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  const chunk = Buffer.alloc(8 * MiB);
  return new Promise((resolve, reject) => {
    let written = 0;
    const writeMore = () => {
      while (written < FILE_BYTES) {
        const part = chunk.subarray(0, Math.min(chunk.length, FILE_BYTES - written));
        randomFillSync(part);
        hash.update(part);
        written += part.length;
        if (!out.write(Buffer.from(part))) return out.once('drain', writeMore);
      }
      out.end(() => resolve(hash.digest('hex')));
    };
    out.on('error', reject);
    writeMore();
  });
}

function timeCp(source) {
  const target = path.join(work, 'cp-copy');
  const started = performance.now();
  const result = spawnSync('cp', [source, target]);
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`cp failed: ${result.stderr}`);
  rmSync(target);
  return ms;
}

function spawnChild(args, env = {}) {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const keep = (chunk) => (output = (output + chunk).slice(-8000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return { child, output: () => output };
}

async function waitFor(url, what, child) {
  // Generous: a fresh embedded database on a busy machine can take a minute to initialise.
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.child.exitCode !== null) throw new Error(`${what} exited:\n${child.output()}`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not start:\n${child.output()}`);
}

async function startS3rver() {
  const port = await freePort();
  const directory = path.join(work, 's3rver');
  const child = spawnChild([
    path.join(root, 'node_modules/s3rver/bin/s3rver.js'),
    '-d',
    directory,
    '-a',
    HOST,
    '-p',
    String(port),
    '-s',
    '--configure-bucket',
    BUCKET,
  ]);
  await waitFor(`http://${HOST}:${port}/`, 's3rver', child);
  return {
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: `http://${HOST}:${port}`,
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  };
}

async function startServer(name, env) {
  const port = await freePort();
  const dataDir = path.join(work, `data-${name}`);
  const server = spawnChild([...SERVER_NODE_ARGS, path.join(root, 'dist/apps/server/src/main.js')], {
    ...env,
    HOST,
    PORT: String(port),
    DATA_DIR: dataDir,
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    FILES_MAX_BYTES: String(FILE_BYTES + MiB),
    FILES_MAX_TOTAL_BYTES_PER_USER: String(4 * FILE_BYTES + 10 * MiB),
  });
  await waitFor(`http://${HOST}:${port}/health/ready`, `server (${name})`, server);
  return { ...server, port, dataDir };
}

function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

/** CPU time the process has used so far (user and system, all its threads), in seconds. */
function cpuSeconds(pid) {
  // Fields 14 and 15 of /proc/<pid>/stat, counted after the command name (which may hold spaces).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** Runs `transfer` while sampling the server's RSS; returns its result, the time, the peak growth and the CPU time server and client used. */
async function measured(pid, transfer) {
  const before = rssBytes(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
  const cpuBefore = { server: cpuSeconds(pid), client: process.cpuUsage() };
  const started = performance.now();
  try {
    const result = await transfer();
    const ms = performance.now() - started;
    const client = process.cpuUsage(cpuBefore.client);
    const cpu = { server: cpuSeconds(pid) - cpuBefore.server, client: (client.user + client.system) / 1e6 };
    return { result, ms, growth: Math.max(0, peak - before), cpu };
  } finally {
    clearInterval(sampler);
  }
}

/** Sends one request whose body is `head`, the file streamed from disk, then `tail`; resolves with the 201 answer. */
function send(port, { path: target, headers, head = Buffer.alloc(0), tail = Buffer.alloc(0) }, source) {
  const { size } = statSync(source);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: HOST, port, method: 'POST', path: target, headers: { ...headers, 'content-length': head.length + size + tail.length } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () =>
          response.statusCode === 201 ? resolve(JSON.parse(text)) : reject(new Error(`upload answered ${response.statusCode}: ${text}`)),
        );
      },
    );
    request.on('error', reject);
    request.write(head);
    const body = createReadStream(source, { highWaterMark: MiB });
    body.on('error', reject);
    body.on('end', () => request.end(tail));
    body.pipe(request, { end: false });
  });
}

/** The upload routes, each streaming the file from disk (the client holds no copy either). */
const uploadRoutes = {
  /** POST /api/files/raw: the file is the body. */
  raw: (port, token, source, filename) =>
    send(
      port,
      {
        path: '/api/files/raw',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${filename}"` },
      },
      source,
    ),
  /** POST /api/files: one multipart part named "file", as a browser sends it. */
  multipart: (port, token, source, filename) => {
    const boundary = `----bench${Date.now()}`;
    return send(
      port,
      {
        path: '/api/files',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        head: Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        tail: Buffer.from(`\r\n--${boundary}--\r\n`),
      },
      source,
    );
  },
};

function remove(port, token, fileKey) {
  return new Promise((resolve, reject) => {
    http
      .request({ host: HOST, port, method: 'DELETE', path: `/api/files/${fileKey}`, headers: { authorization: `Bearer ${token}` } }, (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 204 ? resolve() : reject(new Error(`delete answered ${response.statusCode}`))));
      })
      .on('error', reject)
      .end();
  });
}

/** GET the content, hashing it as it arrives; returns its size and SHA-256. */
function download(port, token, fileKey) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: HOST, port, path: `/api/files/${fileKey}/content`, headers: { authorization: `Bearer ${token}` } }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`download answered ${response.statusCode}`));
        const hash = createHash('sha256');
        let size = 0;
        response.on('data', (chunk) => {
          size += chunk.length;
          hash.update(chunk);
        });
        response.on('end', () => resolve({ size, sha256: hash.digest('hex') }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

async function benchBackend(name, env, source, sha256) {
  const server = await startServer(name, env);
  const token = await new SignJWT({ email: 'bench@example.com' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(`bench-${name}`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  // Warm-up: the first request creates the user and loads the lazy parts of the stack.
  const warm = path.join(work, 'warm.bin');
  writeFileSync(warm, randomFillSync(Buffer.alloc(65536)));
  for (const route of ROUTES) {
    const warmed = await uploadRoutes[route](server.port, token, warm, 'warm.bin');
    await download(server.port, token, warmed.fileKey);
  }

  // The server's first big upload costs more than the next ones (memory the process and the page
  // cache take once), whichever route carries it: it is not timed, only its RSS growth counts.
  const first = await measured(server.child.pid, () => uploadRoutes[ROUTES[0]](server.port, token, source, 'big.bin'));
  if (first.result.size !== FILE_BYTES || first.result.sha256 !== sha256) throw new Error(`${name}: the stored file differs (${JSON.stringify(first.result)})`);
  let stored = first.result;
  // Then each route BENCH_ROUNDS times, taking turns, so that none gains from its place; each keeps
  // its best time, as `cp` does, and its largest RSS growth.
  const best = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of ROUTES) {
      // One big file at a time on disk: the one before goes once checked.
      if (stored) await remove(server.port, token, stored.fileKey);
      const up = await measured(server.child.pid, () => uploadRoutes[route](server.port, token, source, 'big.bin'));
      if (up.result.size !== FILE_BYTES || up.result.sha256 !== sha256)
        throw new Error(`${name} ${route}: the stored file differs (${JSON.stringify(up.result)})`);
      const before = best.get(route);
      best.set(route, { route, ...(before && before.ms < up.ms ? before : up), growth: Math.max(up.growth, before?.growth ?? 0) });
      stored = up.result;
    }
  }
  const ups = [...best.values()];
  const down = await measured(server.child.pid, () => download(server.port, token, stored.fileKey));
  if (down.result.size !== FILE_BYTES || down.result.sha256 !== sha256) throw new Error(`${name}: the downloaded file differs`);
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
  rmSync(server.dataDir, { recursive: true, force: true });
  return { name, first: { route: ROUTES[0], ...first }, ups, down };
}

async function main() {
  const source = path.join(work, 'source.bin');
  console.log(`Preparing a ${FILE_BYTES / MiB} MiB file of random bytes in ${work} ...`);
  const sha256 = await makeSource(source);
  const loadBefore = os.loadavg()[0].toFixed(1);
  const cpMs = [timeCp(source)];
  const results = [];
  if (BACKENDS.includes('local')) results.push(await benchBackend('local', {}, source, sha256));
  cpMs.push(timeCp(source));
  if (BACKENDS.includes('s3')) results.push(await benchBackend('s3', await startS3rver(), source, sha256));
  const cpRate = Math.max(...cpMs.map((ms) => rate(FILE_BYTES, ms)));

  const line = (label, value) => console.log(`${label.padEnd(40)}${value}`);
  console.log(
    `\nfiles bench: ${FILE_BYTES / MiB} MiB, node ${process.version}, ${os.cpus().length} cores, load average ${loadBefore} before, ${os.loadavg()[0].toFixed(1)} after`,
  );
  line('cp (same file, same disk, best of 2)', `${cpRate.toFixed(0)} MB/s`);
  for (const { name, first, ups, down } of results) {
    const cpu = ({ server, client }) => `CPU s: server ${server.toFixed(2)}, client ${client.toFixed(2)}`;
    line(`${name} first upload (${first.route}, untimed)`, `${' '.repeat(11)}peak RSS growth ${mb(first.growth).toFixed(1)} MB`);
    for (const up of ups) {
      line(
        `${name} upload (${up.route}, best of ${ROUNDS})`,
        `${rate(FILE_BYTES, up.ms).toFixed(0)} MB/s   peak RSS growth ${mb(up.growth).toFixed(1)} MB   ${(rate(FILE_BYTES, up.ms) / cpRate).toFixed(2)} x cp   ${cpu(up.cpu)}`,
      );
    }
    line(`${name} download`, `${rate(FILE_BYTES, down.ms).toFixed(0)} MB/s   peak RSS growth ${mb(down.growth).toFixed(1)} MB   ${cpu(down.cpu)}`);
  }
  console.log('\ntargets');
  const local = results.find((result) => result.name === 'local');
  if (local) {
    const fastest = local.ups.reduce((best, up) => (up.ms < best.ms ? up : best));
    const localShare = rate(FILE_BYTES, fastest.ms) / cpRate;
    line(`local upload (${fastest.route}) >= 0.5 x cp`, `${localShare.toFixed(2)} x cp  ${localShare >= 0.5 ? 'met' : 'MISSED'}`);
  }
  const worstGrowth = Math.max(...results.flatMap(({ first, ups, down }) => [first.growth, ...ups.map((up) => up.growth), down.growth]));
  line(`RSS growth < ${RSS_TARGET_MB} MB`, `${mb(worstGrowth).toFixed(1)} MB  ${mb(worstGrowth) < RSS_TARGET_MB ? 'met' : 'MISSED'}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error.message);
    process.exit(1);
  },
);
