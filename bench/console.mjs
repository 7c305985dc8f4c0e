#!/usr/bin/env node
// `npm run bench:console`: how soon the web console shows the first rows of its busiest lists, in
// Chromium, against the built server on the embedded database holding 1,000 users and 10,000
// memories of one user. Each page is opened in a fresh browser context (nothing cached: the
// console's scripts are fetched too) and then reloaded; the time runs from the navigation's start
// (the page's own clock) to its first table row (or memory) in the document. Prints each figure
// beside the target and says met or not.
//
// Target: under 1 s to the first rows of Users and of Memories.
// Settings (environment): BENCH_CONSOLE_USERS=1000, BENCH_CONSOLE_MEMORIES=10000, BENCH_ROUNDS=5
// (openings of each page, the median and the slowest printed), CHROMIUM_PATH=/usr/bin/chromium,
// BENCH_CONSOLE_WATERFALL=1 (prints what the last first visit of each page fetched, and when).
/* global window, document, location, MutationObserver -- the functions given to page.evaluate and addInitScript run in the page */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { chromium } from 'playwright-core';
import { freePort } from './processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USERS = Number(process.env.BENCH_CONSOLE_USERS || 1000);
const MEMORIES = Number(process.env.BENCH_CONSOLE_MEMORIES || 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const TARGET_MS = 1000;
const JWT_SECRET = 'bench-console-secret-of-at-least-32-characters';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mirobody-bench-console-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  JWT_SECRET,
  RATE_LIMIT_REQUESTS: '0',
  RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
  LOG_LEVEL: 'warn',
};
const server = spawn(process.execPath, ['--max-semi-space-size=8', '--max-old-space-size=1000', path.join(root, 'dist/apps/server/src/main.js')], {
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
let browser;
const cleanUp = async () => {
  await browser?.close();
  if (server.exitCode === null) server.kill('SIGTERM');
  await new Promise((resolve) => (server.exitCode === null ? server.once('exit', resolve) : resolve()));
  rmSync(dataDir, { recursive: true, force: true });
};

const token = (sub, claims = {}) =>
  new SignJWT({ email: `${sub}@example.com`, email_verified: true, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(JWT_SECRET));

async function ready() {
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      if ((await fetch(`${base}/health/ready`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('The server did not become ready within 60 s');
}

/** Runs `work(index)` for 0..count-1, `concurrency` at a time. */
async function inParallel(count, concurrency, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

async function seed() {
  const started = performance.now();
  await inParallel(USERS, 16, async (index) => {
    const response = await fetch(`${base}/api/console/session`, { headers: { authorization: `Bearer ${await token(`user-${index}`)}` } });
    if (!response.ok) throw new Error(`Seeding user ${index}: ${response.status}`);
  });
  const heavy = await token('heavy');
  const topics = ['running', 'coffee', 'the dentist', 'Paris', 'blood pressure', 'music', 'the garden', 'work', 'reading', 'sleep'];
  await inParallel(MEMORIES, 8, async (index) => {
    const response = await fetch(`${base}/api/memories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${heavy}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: `Note ${index}: something the user said about ${topics[index % topics.length]} on day ${Math.floor(index / 10)}` }),
    });
    if (response.status !== 201) throw new Error(`Seeding memory ${index}: ${response.status} ${await response.text()}`);
  });
  const heavyId = (await (await fetch(`${base}/api/console/session`, { headers: { authorization: `Bearer ${heavy}` } })).json()).user.id;
  process.stdout.write(`Seeded ${USERS} users and ${MEMORIES} memories of one user in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return heavyId;
}

/** A console session cookie for `email`, from a one-time link of the operators' CLI. */
async function sessionCookie(...cliArgs) {
  const cli = spawnSync(process.execPath, [path.join(root, 'dist/apps/server/src/cli.js'), 'console-link', ...cliArgs], { env, encoding: 'utf8' });
  if (cli.status !== 0) throw new Error(`console-link failed: ${cli.stderr}`);
  const linkToken = new URL(cli.stdout.trim()).hash.slice(1);
  const response = await fetch(`${base}/console/sign-in/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ token: linkToken }),
  });
  if (response.status !== 204) throw new Error(`Signing in failed: ${response.status}`);
  const [name, value] = response.headers.get('set-cookie').split(';')[0].split('=');
  return { name, value, url: base };
}

/** Each request of the page since it was asked for: when it started and ended, ms from navigation start. */
async function printWaterfall(page) {
  const entries = await page.evaluate(() =>
    [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')].map((entry) => ({
      name: entry.name.replace(location.origin, ''),
      start: entry.startTime,
      end: entry.responseEnd,
    })),
  );
  const firstRowAt = await page.evaluate(() => window.firstRowAt);
  for (const entry of entries)
    process.stdout.write(`    ${entry.start.toFixed(0).padStart(5)} → ${entry.end.toFixed(0).padStart(5)} ms  ${entry.name.slice(0, 90)}\n`);
  process.stdout.write(`    first rows in the page at ${firstRowAt.toFixed(0)} ms\n`);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Milliseconds from the navigation's start (the page's time origin, as the browser's own timings
 * count) to the first time `firstRow` is in the document: measured in the page by an observer that
 * the test harness installs before any of the page's scripts, so that neither Playwright's polling
 * nor the browser context's own set-up is counted.
 */
function watchFirstRow(page, firstRow) {
  return page.addInitScript((selector) => {
    const seen = () => {
      if (window.firstRowAt === undefined && document.querySelector(selector)) window.firstRowAt = performance.now();
    };
    new MutationObserver(seen).observe(document, { childList: true, subtree: true });
  }, firstRow);
}

/** Time to `firstRow` on opening `url`: in a fresh context (nothing cached), then reloaded. */
async function timeToFirstRows(cookie, url, firstRow) {
  const cold = [];
  const warm = [];
  for (let round = 0; round < ROUNDS; round++) {
    const context = await browser.newContext();
    await context.addCookies([cookie]);
    const page = await context.newPage();
    await watchFirstRow(page, firstRow);
    await page.goto(url);
    await page.locator(firstRow).first().waitFor();
    cold.push(await page.evaluate(() => window.firstRowAt));
    if (process.env.BENCH_CONSOLE_WATERFALL === '1' && round === ROUNDS - 1) await printWaterfall(page);
    await page.reload();
    await page.locator(firstRow).first().waitFor();
    warm.push(await page.evaluate(() => window.firstRowAt));
    await context.close();
  }
  return { cold, warm };
}

try {
  await ready();
  const heavyId = await seed();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const admin = await sessionCookie('--email', 'ops@example.com', '--admin');
  const heavy = await sessionCookie('--email', 'heavy@example.com', '--sub', 'heavy');
  const cases = [
    ['Users (admin, 1,000 users)', admin, `${base}/console/users`, 'tbody tr'],
    [`Memories of a user (admin, ${MEMORIES.toLocaleString('en')})`, admin, `${base}/console/users/${heavyId}/memories`, '.memory-list li'],
    [`My memories (${MEMORIES.toLocaleString('en')})`, heavy, `${base}/console/account/memories`, '.memory-list li'],
    ['My memories, searched', heavy, `${base}/console/account/memories?q=blood%20pressure`, '.memory-list li'],
  ];
  let met = true;
  process.stdout.write(`\nTime to the first rows, ms (target < ${TARGET_MS}; ${ROUNDS} rounds: median / slowest)\n`);
  for (const [label, cookie, url, firstRow] of cases) {
    const { cold, warm } = await timeToFirstRows(cookie, url, firstRow);
    const worst = Math.max(...cold, ...warm);
    met &&= worst < TARGET_MS;
    process.stdout.write(
      `  ${label.padEnd(42)} first visit ${median(cold).toFixed(0).padStart(4)} / ${Math.max(...cold)
        .toFixed(0)
        .padStart(4)}   reload ${median(warm).toFixed(0).padStart(4)} / ${Math.max(...warm)
        .toFixed(0)
        .padStart(4)}   ${worst < TARGET_MS ? 'met' : 'NOT met'}\n`,
    );
  }
  process.stdout.write(`\nTarget (every opening under ${TARGET_MS} ms): ${met ? 'met' : 'NOT met'}\n`);
} finally {
  await cleanUp();
}
