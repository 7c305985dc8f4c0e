import { jest, afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ConnectionsService } from '@app/auth';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { consoleLinkSigner } from '../../../libs/auth/src/identity/console-sessions/console-link.js';
import { linkToken } from './support/console.js';
import { confirm, openConsole, openPage, watchCspViolations } from './support/console-browser.js';
import { eventually } from './support/files.js';
import { startIdentityProvider, type TestIdentityProvider } from './support/identity-provider.js';
import { describeWithChromium, launchChromium } from './support/oauth-browser.js';
import { ApprovalToolsModule } from './support/approval-tools.module.js';
import { TaskToolsModule } from './support/task-tools.module.js';
import { tasksClient } from './support/tasks-wire.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/**
 * The web console as an admin uses it, in Chromium: signing in (at the identity provider, or by a
 * one-time link), then each admin page's main action, checked by what it does to the rest of the
 * system (over MCP and REST, as a user's client sees it).
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0', OAUTH_MODE: 'builtin' };
const CLAUDE = 'https://claude.ai/oauth/mcp-oauth-client-metadata';

// A browser's steps take seconds each on a busy two-core machine.
jest.setTimeout(90_000);

const describeInBrowser = describeWithChromium();

const whoamiStatus = async (app: RunningApp, token: string) =>
  (
    await postRaw(app.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }), {
      ...JSON_HEADERS,
      ...bearer(token),
    })
  ).status;

describeInBrowser('the web console for admins', () => {
  let provider: TestIdentityProvider;
  let app: RunningApp;
  let browser: Browser;
  let context: BrowserContext;
  let admin: Page;
  let aliceToken: string;
  let cspViolations: string[];
  /** The app's settings, which the operators' CLI reads too. */
  let env: Record<string, string>;

  beforeAll(async () => {
    provider = await startIdentityProvider();
    env = { ...ENV, ...provider.env, OAUTH_ALLOW_INSECURE_DEV: 'true' };
    app = await startApp(env, { imports: [TaskToolsModule, ApprovalToolsModule] });
    provider.admit(`${app.url.origin}/oauth/callback`, `${app.url.origin}/console/sign-in/callback`);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    admin = await openConsole(context, app, env, '--email', 'ops@example.com', '--admin');
    cspViolations = watchCspViolations(admin);
    aliceToken = await cliToken(app, env, '--sub', 'alice', '--email', 'alice@example.com', '--name', 'Alice');
    expect(await whoamiStatus(app, aliceToken)).toBe(200);
  }, 60_000);
  afterEach(() => expect(cspViolations).toEqual([]));
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await provider?.close();
  });

  it('signs people in at the identity provider, back to the page they asked for', async () => {
    const visitor = await browser.newContext();
    try {
      const page = await visitor.newPage();
      await page.goto(`${app.url.origin}/console/account/memories`);
      await page.getByRole('link', { name: 'Sign in with your company account' }).click();
      await page.fill('input[name=login]', 'bea');
      await page.fill('input[name=password]', 'any password');
      await page.click('button[type=submit]');
      if (await page.locator('input[name=prompt][value=consent]').count()) await page.click('button[type=submit]');
      await page.getByRole('heading', { level: 1, name: 'My memories' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/console/account/memories');
      await expect(page.locator('.who').innerText()).resolves.toContain('User bea');
    } finally {
      await visitor.close();
    }
  });

  it('refuses a one-time link used already, or expired', async () => {
    const page = await browser.newPage();
    const token = await linkToken(app, env, '--email', 'twice@example.com');
    const visitor = await browser.newContext();
    try {
      const first = await visitor.newPage();
      await first.goto(`${app.url.origin}/console/sign-in/link#${token}`);
      await first.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
      await page.goto(`${app.url.origin}/console/sign-in/link#${token}`);
      await page
        .getByRole('alert')
        .getByText(/used already/)
        .waitFor();
      // The token left the address bar at once.
      expect(new URL(page.url()).hash).toBe('');
      const claims = JSON.stringify({ id: 'an-expired-link', sub: 'late@example.com', email: 'late@example.com' });
      const expired = consoleLinkSigner({ dataDir: app.dataDir }).sign(claims, new Date(Date.now() - 1000));
      // A page of its own: the link opened where the last one was would change only the address's fragment.
      const late = await browser.newPage();
      await late.goto(`${app.url.origin}/console/sign-in/link#${expired}`);
      await late
        .getByRole('alert')
        .getByText(/not valid or has expired/)
        .waitFor();
      await late.close();
    } finally {
      await visitor.close();
      await page.close();
    }
  });

  it('Users: finds a user, and disabling them refuses their next MCP call', async () => {
    await openPage(admin, 'Users');
    await admin.getByRole('searchbox', { name: 'Search users' }).fill('alice');
    await admin.getByRole('button', { name: 'Search' }).click();
    await admin.getByRole('link', { name: 'alice@example.com' }).click();
    await admin.getByRole('heading', { level: 1, name: 'alice@example.com' }).waitFor();
    await confirm(admin, admin, 'Disable account');
    await admin.getByText('disabled', { exact: false }).first().waitFor();
    expect(await whoamiStatus(app, aliceToken)).toBe(403);
    await admin.getByRole('button', { name: 'Enable account' }).click();
    await admin.getByText('active', { exact: true }).waitFor();
    expect(await whoamiStatus(app, aliceToken)).toBe(200);
  });

  it('Connected clients: revoking a connection stops its token at once', async () => {
    const aliceId = (await (await fetch(new URL('/api/console/session', app.url), { headers: bearer(aliceToken) })).json()).user.id;
    const issuer = app.url.origin;
    const { tokens } = await app.app
      .get(ConnectionsService)
      .connect({ userId: aliceId, clientId: CLAUDE, clientName: 'Claude', clientVerified: true, scopes: ['memory:read'], resource: `${issuer}/mcp`, issuer });
    expect(await whoamiStatus(app, tokens.access_token)).toBe(200);
    await openPage(admin, 'Connected clients');
    const row = admin.getByRole('row').filter({ hasText: 'alice@example.com' }).filter({ hasText: 'Claude' });
    await confirm(admin, row, 'Revoke');
    await row.getByText('revoked').waitFor();
    expect(await whoamiStatus(app, tokens.access_token)).toBe(401);
  });

  it('Memories: a search shows the recall scores, and a deleted memory is no longer recalled', async () => {
    await withClient(app.url, '2025-11-25', bearer(aliceToken), async (client) => {
      await structured(client, 'remember', { text: 'Alice is allergic to peanuts' });
      await structured(client, 'remember', { text: 'Alice walks to work' });
    });
    await openPage(admin, 'Users');
    await admin.getByRole('link', { name: 'alice@example.com' }).click();
    await admin.getByRole('link', { name: 'Memories', exact: true }).click();
    await admin.getByRole('searchbox', { name: 'Search memories' }).fill('peanuts');
    await admin.getByRole('button', { name: 'Search' }).click();
    const memory = admin.getByRole('listitem').filter({ hasText: 'Alice is allergic to peanuts' });
    await memory.getByText(/^score \d\.\d{3}$/).waitFor();
    await confirm(admin, memory, 'Delete');
    await memory.waitFor({ state: 'detached' });
    await withClient(app.url, '2025-11-25', bearer(aliceToken), async (client) => {
      const recalled = (await structured(client, 'recall_memory', { query: 'peanuts' })).memories as { text: string }[];
      expect(recalled.map((found) => found.text)).not.toContain('Alice is allergic to peanuts');
    });
  });

  it('Tasks: cancelling a running task makes tasks/get say cancelled', async () => {
    const alice = tasksClient(app.url, bearer(aliceToken));
    const { taskId } = (await alice.call('wait_for', { ms: 60_000 })) as { taskId: string };
    await openPage(admin, 'Tasks');
    const row = admin.getByRole('row').filter({ hasText: 'wait_for' }).filter({ hasText: 'working' });
    await confirm(admin, row, 'Cancel', 'Cancel the task');
    await eventually(async () => expect((await alice.get(taskId))['status']).toBe('cancelled'), 5000);
  });

  it('Approvals: approving a request runs the call as its caller, declining asks for a reason the caller receives', async () => {
    const alice = tasksClient(app.url, bearer(aliceToken));
    const { taskId: approvedTask } = (await alice.call('delete_record', { id: 'r-console' })) as { taskId: string };
    const { taskId: declinedTask } = (await alice.call('delete_record', { id: 'r-console-declined' })) as { taskId: string };
    await openPage(admin, 'Approvals');
    const approvedRow = admin.getByRole('row').filter({ hasText: 'r-console"' });
    await approvedRow.getByText('alice@example.com').waitFor();
    await confirm(admin, approvedRow, 'Approve', 'Approve the call');
    await eventually(
      async () =>
        expect(await alice.get(approvedTask)).toMatchObject({
          status: 'completed',
          result: { content: [{ text: expect.stringMatching(/^deleted r-console for /) }] },
        }),
      10_000,
    );

    const declinedRow = admin.getByRole('row').filter({ hasText: 'r-console-declined' });
    await declinedRow.getByRole('button', { name: 'Decline', exact: true }).click();
    const dialog = admin.getByRole('dialog');
    const declineButton = dialog.getByRole('button', { name: 'Decline the call', exact: true });
    expect(await declineButton.isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Reason' }).fill('the record is still needed');
    await declineButton.click();
    await dialog.waitFor({ state: 'hidden' });
    await eventually(async () => expect(JSON.stringify(await alice.get(declinedTask))).toContain('the record is still needed'), 10_000);
  });

  it('Approvals: a user who is no approver sees the refusal, and no request to decide', async () => {
    await tasksClient(app.url, bearer(aliceToken)).call('delete_record', { id: 'r-not-for-bob' });
    // A context of its own: the admin's session cookie stays the admin's.
    const bobContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const bob = await openConsole(bobContext, app, env, '--email', 'bob@example.com');
    await bob.goto(`${app.url.origin}/console/approvals`);
    await bob
      .getByRole('alert')
      .getByText(/Only admins/)
      .waitFor();
    expect(await bob.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    expect(await bob.getByText('r-not-for-bob').count()).toBe(0);
    await bobContext.close();
  });

  it('Tools: shows each tool with its schema and scopes, and "Try it" runs a real call as the signed-in admin', async () => {
    await openPage(admin, 'Tools');
    const whoami = admin.getByRole('region', { name: 'whoami' });
    await whoami.getByRole('button', { name: 'Try it' }).click();
    await whoami.getByRole('button', { name: 'Call whoami' }).click();
    await expect(whoami.getByRole('status').innerText()).resolves.toMatch(/"authenticated": true/);
    const recall = admin.getByRole('region', { name: 'recall_memory' });
    await recall.getByText('scope memory:read').waitFor();
    await recall.getByText('Input schema').click();
    await recall.getByRole('cell', { name: 'query' }).first().waitFor();
    // Found by a word of its description.
    await admin.getByLabel('Find a tool').fill('long-term');
    await admin.getByRole('button', { name: 'Show' }).click();
    await whoami.waitFor({ state: 'detached' });
    const shown = await admin.getByRole('heading', { level: 2 }).allInnerTexts();
    expect(shown).toContain('recall_memory');
    expect(shown).not.toContain('echo');
  });

  it('Audit trail: filters by action and downloads what it shows as CSV', async () => {
    await openPage(admin, 'Audit trail');
    await admin.getByLabel('Action').fill('user.disable');
    await admin.getByRole('button', { name: 'Filter' }).click();
    // The unfiltered list shows alice's rows too: wait for the filter to have taken the others away.
    await admin.getByRole('row').filter({ hasText: 'user.enable' }).first().waitFor({ state: 'detached' });
    const disabled = admin.getByRole('row').filter({ hasText: 'alice@example.com' }).filter({ hasText: 'user.disable' }).first();
    // Where the admin acted from: this browser, on the loopback.
    await disabled.getByText(/^(::ffff:)?127\.0\.0\.1$|^::1$/).waitFor();
    const [download] = await Promise.all([admin.waitForEvent('download'), admin.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toMatch(/^id,at,actorId,actorEmail,action,/);
    expect(csv.slice(1).every((line) => line.includes('user.disable'))).toBe(true);
    expect(csv.length).toBeGreaterThan(1);
  });

  it('Overview: the last hour of tool calls, per tool', async () => {
    await openPage(admin, 'Overview');
    const perTool = admin.getByRole('region', { name: 'By tool, last hour' });
    await perTool.getByRole('row').filter({ hasText: 'remember' }).waitFor();
    await admin.getByRole('region', { name: 'Database' }).getByText('reachable').waitFor();
  });

  it('Users: erasing a user (typed confirmation) leaves nothing of theirs', async () => {
    admin.setDefaultTimeout(8000);
    const doomed = await cliToken(app, env, '--sub', 'doomed', '--email', 'doomed@example.com');
    await withClient(app.url, '2025-11-25', bearer(doomed), (client) => structured(client, 'remember', { text: 'Doomed likes tea' }));
    const doomedId = (await (await fetch(new URL('/api/console/session', app.url), { headers: bearer(doomed) })).json()).user.id;
    await openPage(admin, 'Users');
    await admin.getByRole('link', { name: 'doomed@example.com' }).click();
    await admin.getByRole('heading', { level: 1, name: 'doomed@example.com' }).waitFor();
    await confirm(admin, admin, 'Erase user', 'Erase', 'doomed@example.com');
    await admin.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    const adminToken = await cliToken(app, env, '--sub', 'root', '--admin');
    expect((await fetch(new URL(`/admin/users/${doomedId}`, app.url), { headers: bearer(adminToken) })).status).toBe(404);
    // A later token of the same person makes a new, empty user.
    const memories = await (await fetch(new URL('/api/memories', app.url), { headers: bearer(doomed) })).json();
    expect(memories.items).toEqual([]);
  });
});
