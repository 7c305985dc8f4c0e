#!/usr/bin/env node
// Runs the official MCP conformance suite against the built server, the way the suite scores a
// revision (`server --url <url> --requirements <revision>`), for every revision we claim.
//
// Starts dist/apps/server/src/main.js on a free port and a throw-away DATA_DIR with the fixture tool directory (MCP_TOOL_DIRS), waits
// until it answers, runs the suite per revision with a Node >= 22 binary (the suite needs it; the
// server itself runs on this Node; see findSuiteNode), prints a summary and exits non-zero if any scored scenario
// failed, the suite could not run, or the server died. Not-scored scenarios (pending, extensions)
// are reported but never fail the run, as in the suite's own scoring, except those of the extensions
// the server implements (CLAIMED_EXTENSIONS), which are scored like the rest.
//
// Usage: npm run conformance            (builds first)
//        node scripts/conformance.mjs [--revision 2026-07-28] [--keep]   (--keep leaves the result files)

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const SUITE = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SUITE_NODE_MAJOR = 22;
const SERVER = join(root, 'dist/apps/server/src/main.js');
/** The tools, resources and prompts the suite expects: a tool directory, as a deployment's own tools are. */
const FIXTURES = join(root, 'apps/server/test/support/conformance-tools');
const REVISIONS = ['2025-11-25', '2026-07-28'];
// A first start creates the embedded database: seconds on an idle machine, a minute or more on a busy CI host.
const STARTUP_TIMEOUT_MS = 180_000;
const REVISION_TIMEOUT_MS = 15 * 60_000;
const SCENARIO_TIMEOUT_MS = 30_000;
/** Extensions the server implements: the suite runs their scenarios without scoring them; this script scores them. */
const CLAIMED_EXTENSIONS = [{ name: 'io.modelcontextprotocol/tasks', scenarioPrefix: 'tasks-' }];

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const onlyRevision = args.includes('--revision') ? args[args.indexOf('--revision') + 1] : undefined;
const revisions = onlyRevision ? [onlyRevision] : REVISIONS;

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

for (const [file, hint] of [
  [SUITE, 'run npm install'],
  [SERVER, 'run npm run build'],
]) {
  if (!existsSync(file)) fail(`${file} is missing; ${hint}`);
}

const majorOf = (version) => Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);

/** npm publishes Node builds as `node-<os>-<arch>` (Windows as `win`); never a dependency: few platforms, 185 MB. */
const PLATFORM_PACKAGE = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
/** Where the suite's Node is installed on first use when none is at hand; `node_modules` keeps it out of git. */
const SUITE_NODE_CACHE = join(root, 'node_modules', '.cache', 'conformance-node');

const nodeIn = (prefix) => join(prefix, 'node_modules', PLATFORM_PACKAGE, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');

function isSuiteNode(candidate) {
  if (!candidate || !existsSync(candidate)) return false;
  const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  return majorOf(version) >= SUITE_NODE_MAJOR;
}

/**
 * A Node >= 22 for the suite, first found of: CONFORMANCE_NODE (a path), the Node running this
 * script, the platform package installed beside the project or in the cache; else the platform
 * package is installed into the cache from npm, so that `npm run test:all` works on Node 20 too.
 * The server itself runs on the Node running this script.
 */
function findSuiteNode() {
  const found = [process.env.CONFORMANCE_NODE, process.execPath, nodeIn(root), nodeIn(SUITE_NODE_CACHE)].find(isSuiteNode);
  if (found) return found;
  console.log(
    `conformance: the suite needs Node >= ${SUITE_NODE_MAJOR} (this is ${process.version}); installing ${PLATFORM_PACKAGE}@${SUITE_NODE_MAJOR} into ${SUITE_NODE_CACHE}`,
  );
  const install = spawnSync(
    'npm',
    ['install', '--prefix', SUITE_NODE_CACHE, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${PLATFORM_PACKAGE}@${SUITE_NODE_MAJOR}`],
    { stdio: 'inherit', shell: process.platform === 'win32' },
  );
  if (install.status === 0 && isSuiteNode(nodeIn(SUITE_NODE_CACHE))) return nodeIn(SUITE_NODE_CACHE);
  fail(
    `the conformance suite needs Node >= ${SUITE_NODE_MAJOR}, and this is Node ${process.version}, and npm could not install ${PLATFORM_PACKAGE}@${SUITE_NODE_MAJOR}. ` +
      `Run it on Node ${SUITE_NODE_MAJOR} (\`nvm use\` reads .nvmrc), or point CONFORMANCE_NODE at a Node ${SUITE_NODE_MAJOR} binary.`,
  );
}
const NODE22 = findSuiteNode();

/** Runs a command to completion, collecting its output; kills it after `timeoutMs`. The promise carries the `child`. */
function run(command, commandArgs, { timeoutMs } = {}) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const finished = new Promise((resolvePromise) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = timeoutMs ? setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), timeoutMs) : undefined;
    child.on('error', (error) => (stderr += `\n${error.message}`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr, timedOut });
    });
  });
  return Object.assign(finished, { child });
}

function freePort() {
  return new Promise((resolvePromise, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePromise(port));
    });
  });
}

/**
 * Starts the built server; `exited` settles if it stops for any reason. Its data goes to `dataDir`,
 * not the repository's ./data: a server started with `npm start` holds that one (and keeps the
 * developer's own data there, which the suite's fixtures have no business in).
 */
function startServer(port, dataDir) {
  const child = spawn(process.execPath, [SERVER], {
    cwd: root,
    // The suite is one anonymous client sending thousands of requests (its task scenarios poll every 200 ms): the per-address budget is not what it tests.
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      MCP_TOOL_DIRS: FIXTURES,
      NO_COLOR: '1',
      RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = [];
  const remember = (chunk) => {
    log.push(...String(chunk).split('\n').filter(Boolean));
    if (log.length > 200) log.splice(0, log.length - 200);
  };
  child.stdout.on('data', remember);
  child.stderr.on('data', remember);
  const exited = new Promise((resolvePromise) => child.on('exit', (code, signal) => resolvePromise(signal ?? `code ${code}`)));
  return { child, log, exited };
}

/** Polls the endpoint until it answers at all (any HTTP status means the app is listening). */
async function waitUntilAnswering(url, server) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let died = false;
  server.exited.then(() => (died = true));
  while (Date.now() < deadline && !died) {
    try {
      await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(died ? 'the server exited during start-up' : `the server did not answer within ${STARTUP_TIMEOUT_MS / 1000}s`);
}

/** Scored and not-scored server scenarios of a revision, from the suite's own `list`. */
async function listScenarios(revision) {
  const listed = await run(NODE22, [SUITE, 'list', '--requirements', revision, '--server'], { timeoutMs: 60_000 });
  if (listed.code !== 0) throw new Error(`listing scenarios for ${revision} failed:\n${listed.stderr || listed.stdout}`);
  const scored = [];
  const notScored = new Map();
  let section;
  let reason;
  for (const line of listed.stdout.split('\n')) {
    if (line.startsWith('Server scenarios')) section = 'scored';
    else if (line.startsWith('Client scenarios')) section = undefined;
    else if (line.startsWith('Run and reported, but never scored')) section = 'not-scored';
    const group = /^ {2}([\w-]+) \(\d+\):$/.exec(line);
    if (group) reason = group[1];
    const scenario = /^\s+- (\S+)(?: \[(server|client)\])?$/.exec(line);
    if (!scenario) continue;
    const claimed =
      reason === 'extension' && scenario[2] === 'server' && CLAIMED_EXTENSIONS.some((extension) => scenario[1].startsWith(extension.scenarioPrefix));
    if (section === 'scored' || (section === 'not-scored' && claimed)) scored.push(scenario[1]);
    else if (section === 'not-scored' && scenario[2] === 'server') notScored.set(scenario[1], reason);
  }
  if (scored.length === 0) throw new Error(`the suite listed no scored server scenarios for ${revision}`);
  return { scored, notScored };
}

/** Per-scenario check counts from the `-o` directory (`server-<scenario>-<timestamp>/checks.json`). */
async function readResults(outputDir) {
  const results = new Map();
  for (const entry of await readdir(outputDir, { withFileTypes: true })) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    if (!entry.isDirectory() || !match) continue;
    const checksFile = join(outputDir, entry.name, 'checks.json');
    if (!existsSync(checksFile)) continue;
    const checks = JSON.parse(await readFile(checksFile, 'utf8'));
    const count = (status) => checks.filter((check) => check.status === status).length;
    const failures = checks.filter((check) => check.status === 'FAILURE').map((check) => `${check.id}: ${check.errorMessage ?? check.description}`);
    results.set(match[1], { passed: count('SUCCESS'), failed: count('FAILURE'), warnings: count('WARNING'), failures });
  }
  return results;
}

const outcome = (result) =>
  result === undefined ? 'no result' : `${result.passed} passed, ${result.failed} failed${result.warnings ? `, ${result.warnings} warnings` : ''}`;

async function runRevision(revision, { scored, notScored }, url, workDir, server) {
  const outputDir = join(workDir, revision);
  const suite = run(NODE22, [SUITE, 'server', '--url', url, '--requirements', revision, '-o', outputDir, '--timeout', String(SCENARIO_TIMEOUT_MS)], {
    timeoutMs: REVISION_TIMEOUT_MS,
  });
  const finished = await Promise.race([suite, server.exited.then((how) => ({ serverDied: how }))]);
  if (finished.serverDied) {
    suite.child.kill('SIGKILL');
    throw new Error(`the server stopped (${finished.serverDied}) while the ${revision} suite was running`);
  }
  if (finished.timedOut) throw new Error(`the ${revision} suite did not finish within ${REVISION_TIMEOUT_MS / 60_000} minutes`);
  const results = existsSync(outputDir) ? await readResults(outputDir) : new Map();

  const failedScored = scored.filter((name) => !results.has(name) || results.get(name).failed > 0);
  console.log(`\n=== ${revision}: ${scored.length - failedScored.length}/${scored.length} scored scenarios passed ===`);
  for (const name of failedScored) {
    console.log(`  ✗ ${name}: ${outcome(results.get(name))}`);
    for (const failure of results.get(name)?.failures ?? []) console.log(`      - ${failure}`);
  }
  if (notScored.size > 0) {
    const passing = [...notScored.keys()].filter((name) => results.has(name) && results.get(name).failed === 0).length;
    console.log(`  not scored (${passing}/${notScored.size} passing):`);
    for (const [name, reason] of notScored) {
      const result = results.get(name);
      console.log(`    ${result && result.failed === 0 ? '✓' : '✗'} ${name} (${reason}): ${outcome(result)}`);
    }
  }
  // The suite exits 1 exactly when a scored scenario failed; any other non-zero code means it broke.
  const suiteBroke = finished.code !== 0 && failedScored.length === 0;
  if (suiteBroke) console.log(`  the suite exited with code ${finished.code}:\n${(finished.stderr || finished.stdout).split('\n').slice(-20).join('\n')}`);
  return failedScored.length === 0 && !suiteBroke;
}

const scenarios = new Map();
for (const revision of revisions) scenarios.set(revision, await listScenarios(revision).catch((error) => fail(error.message)));
const workDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}/mcp`;
const server = startServer(port, join(workDir, 'data'));
let ok = true;
try {
  await waitUntilAnswering(url, server);
  console.log(`Server answering at ${url}; suite on Node ${(await run(NODE22, ['--version'])).stdout.trim()}`);
  for (const revision of revisions) {
    if (!(await runRevision(revision, scenarios.get(revision), url, workDir, server))) ok = false;
  }
} catch (error) {
  ok = false;
  console.log(`\nconformance: ${error.message}`);
  console.log(`last server output:\n${server.log.slice(-30).join('\n')}`);
} finally {
  server.child.kill('SIGTERM');
  const stopped = await Promise.race([server.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
  if (!stopped) server.child.kill('SIGKILL');
  if (keep) console.log(`\nResult files kept in ${workDir}`);
  else await rm(workDir, { recursive: true, force: true });
}
console.log(ok ? '\nConformance: every scored scenario passed.' : '\nConformance: FAILED (see above).');
process.exit(ok ? 0 : 1);
