import { jest, afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ConnectionsService } from '@app/auth';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { openConsole, screenshotDirectory, seriousViolations, watchCspViolations } from './support/console-browser.js';
import { uploadFile } from './support/files.js';
import { describeWithChromium, launchChromium } from './support/oauth-browser.js';
import { ApprovalToolsModule } from './support/approval-tools.module.js';
import { TaskToolsModule } from './support/task-tools.module.js';
import { tasksClient } from './support/tasks-wire.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * Every page of the web console, with data in it: no serious or critical accessibility violation
 * (axe-core, WCAG 2.1 AA) in the light and the dark theme, nothing its Content Security Policy
 * refuses, and a screenshot at 1280 and 360 px wide (into docs/console/ with
 * UPDATE_CONSOLE_SCREENSHOTS=1, which the README and docs/console.md show).
 */
const ENV = {
  JWT_SECRET: TEST_JWT_SECRET,
  RATE_LIMIT_REQUESTS: '0',
  RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
  OAUTH_MODE: 'builtin',
  OIDC_ISSUER: 'http://127.0.0.1:9/',
  OIDC_CLIENT_ID: 'mirobody',
};

// A browser's steps take seconds each on a busy two-core machine.
jest.setTimeout(90_000);

const describeInBrowser = describeWithChromium();

describeInBrowser('every page of the web console', () => {
  let app: RunningApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cspViolations: string[];
  let aliceId: string;
  const shots = screenshotDirectory(mkdtempSync(join(tmpdir(), 'console-screenshots-')));

  beforeAll(async () => {
    app = await startApp({ ...ENV, OAUTH_ALLOW_INSECURE_DEV: 'true' }, { imports: [TaskToolsModule, ApprovalToolsModule] });
    const alice = await cliToken(app, ENV, '--sub', 'alice', '--email', 'alice@example.com', '--name', 'Alice Martin');
    for (const name of ['bob', 'carol', 'dave'])
      await cliToken(app, ENV, '--sub', name, '--email', `${name}@example.com`).then((token) =>
        fetch(new URL('/api/memories', app.url), { headers: bearer(token) }),
      );
    await withClient(app.url, '2025-11-25', bearer(alice), async (client) => {
      for (const text of ['Alice is allergic to peanuts', 'Alice prefers morning meetings', 'Alice runs 5 km on Sundays'])
        await structured(client, 'remember', { text });
      await structured(client, 'echo', { text: 'hello' });
      await client.callTool({ name: 'remember', arguments: { text: '' } });
    });
    await uploadFile(app, alice, 'blood-pressure.txt', 'Blood pressure 120/80 on Monday, 125/82 on Tuesday', { type: 'text/plain' });
    await tasksClient(app.url, bearer(alice)).call('wait_for', { ms: 120_000 });
    await tasksClient(app.url, bearer(alice)).call('delete_record', { id: 'lab-report-2026-05' });
    aliceId = (await (await fetch(new URL('/api/console/session', app.url), { headers: bearer(alice) })).json()).user.id;
    const issuer = app.url.origin;
    await app.app.get(ConnectionsService).connect({
      userId: aliceId,
      clientId: 'https://claude.ai/oauth/mcp-oauth-client-metadata',
      clientName: 'Claude',
      clientVerified: true,
      scopes: ['memory:read'],
      resource: `${issuer}/mcp`,
      issuer,
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await openConsole(context, app, ENV, '--email', 'ops@example.com', '--name', 'Olga Ops', '--admin');
    cspViolations = watchCspViolations(page);
    // An entry or two in the audit trail, as an admin's work leaves them.
    await page.goto(`${app.url.origin}/console/users/${aliceId}`);
    await page.getByRole('heading', { level: 1, name: 'alice@example.com' }).waitFor();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const pages: [name: string, path: () => string, heading: string][] = [
    ['overview', () => '/console/', 'Overview'],
    ['users', () => '/console/users', 'Users'],
    ['user', () => `/console/users/${aliceId}`, 'alice@example.com'],
    ['user-memories', () => `/console/users/${aliceId}/memories?q=peanuts`, 'Memories of this user'],
    ['user-files', () => `/console/users/${aliceId}/files`, 'Files of this user'],
    ['clients', () => '/console/clients', 'Connected clients'],
    ['files', () => '/console/files', 'Files'],
    ['tasks', () => '/console/tasks', 'Tasks'],
    ['approvals', () => '/console/approvals', 'Approvals'],
    ['tools', () => '/console/tools', 'Tools'],
    ['audit', () => '/console/audit', 'Audit trail'],
    ['account', () => '/console/account', 'My account'],
    ['my-memories', () => '/console/account/memories', 'My memories'],
    ['my-files', () => '/console/account/files', 'My files'],
    ['my-tasks', () => '/console/account/tasks', 'My tasks'],
  ];

  it.each(pages)('%s: no serious accessibility violation in either theme, nothing refused by the CSP, and its screenshots', async (name, path, heading) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${app.url.origin}${path()}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, `${name}-1280.png`), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    if (name === 'overview') await page.screenshot({ path: join(shots, `${name}-dark-1280.png`), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 360, height: 780 });
    await page.screenshot({ path: join(shots, `${name}-360.png`), fullPage: true });
    // Readable at 360 px: nothing but a table's own box scrolls sideways.
    const wider = await page.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !element.closest('.table-box, .side-nav'))
        .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
    );
    expect(wider).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
  });

  it('sign-in: the page a signed-out visitor sees', async () => {
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const signIn = await visitor.newPage();
      const refused = watchCspViolations(signIn);
      await signIn.goto(`${app.url.origin}/console/`);
      await signIn.getByRole('heading', { level: 1, name: 'Sign in to Mirobody' }).waitFor();
      expect(await seriousViolations(signIn)).toEqual([]);
      await signIn.screenshot({ path: join(shots, 'sign-in-1280.png'), fullPage: true });
      await signIn.setViewportSize({ width: 360, height: 780 });
      await signIn.screenshot({ path: join(shots, 'sign-in-360.png'), fullPage: true });
      expect(refused).toEqual([]);
    } finally {
      await visitor.close();
    }
  });

  it('is navigable by keyboard alone: the skip link, then the navigation, reach the page', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.url.origin}/console/users`);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    // Tab through to the navigation's Tools link, and open it with Enter.
    for (let step = 0; step < 30; step++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Tools') break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Tools' }).waitFor();
    // A confirmation dialog closes with Escape and gives the keyboard back.
    await page.goto(`${app.url.origin}/console/users/${aliceId}`);
    await page.getByRole('button', { name: 'Disable account' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
  });
});
