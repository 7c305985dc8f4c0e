import { jest, afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { confirm, openConsole, openPage, watchCspViolations } from './support/console-browser.js';
import { uploadFile } from './support/files.js';
import { describeWithChromium, launchChromium } from './support/oauth-browser.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/**
 * The web console as a user (not an admin) uses it, in Chromium: my account, my MCP secrets, my
 * memories and files; and what a user must not reach: the admin pages, another user's data
 * through the console's own requests, and requests another site makes the browser send.
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };

// A browser's steps take seconds each on a busy two-core machine.
jest.setTimeout(90_000);

const describeInBrowser = describeWithChromium();

const whoami = (app: RunningApp, credential: string) =>
  postRaw(app.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }), {
    ...JSON_HEADERS,
    ...bearer(credential),
  });

describeInBrowser('the web console for users', () => {
  let app: RunningApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cspViolations: string[];

  beforeAll(async () => {
    app = await startApp(ENV);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await openConsole(context, app, ENV, '--email', 'uma@example.com', '--name', 'Uma');
    cspViolations = watchCspViolations(page);
  }, 60_000);
  afterEach(() => expect(cspViolations).toEqual([]));
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('lands a user on their account, with no admin pages to open', async () => {
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Users' }).count()).toBe(0);
    await page.goto(`${app.url.origin}/console/users`);
    await page.getByRole('heading', { name: 'Administrators only' }).waitFor();
    // Nor do the console's own requests reach the admin area.
    const refused = await page.evaluate(() => fetch('/admin/users').then((response) => response.status));
    expect(refused).toBe(403);
  });

  it('My account: a new MCP secret is shown once, works on /mcp, and stops when revoked', async () => {
    await page.goto(`${app.url.origin}/console/account`);
    await page.getByLabel('Label').fill('laptop');
    await page.getByLabel('Agent (optional)').fill('cursor');
    await page.getByRole('button', { name: 'Create secret' }).click();
    const secret = await page.getByTestId('created-secret').innerText();
    expect(secret).toMatch(/^mrb_sk_/);
    expect((await whoami(app, secret)).status).toBe(200);
    await page.reload();
    expect(await page.getByTestId('created-secret').count()).toBe(0);
    const row = page.getByRole('row').filter({ hasText: 'laptop' });
    await confirm(page, row, 'Revoke');
    await row.waitFor({ state: 'detached' });
    expect((await whoami(app, secret)).status).toBe(401);
  });

  it('My memories: edits and deletes what was remembered', async () => {
    const token = await cliToken(app, ENV, '--sub', 'uma@example.com', '--email', 'uma@example.com');
    await withClient(app.url, '2025-11-25', bearer(token), (client) => structured(client, 'remember', { text: 'Uma lives in Paris' }));
    await openPage(page, 'My memories');
    const memory = page.getByRole('listitem').filter({ hasText: 'Uma lives in Paris' });
    await memory.getByRole('button', { name: 'Edit' }).click();
    await memory.getByLabel('Text').fill('Uma lives in Berlin');
    await memory.getByRole('button', { name: 'Save' }).click();
    const edited = page.getByRole('listitem').filter({ hasText: 'Uma lives in Berlin' });
    await edited.waitFor();
    await withClient(app.url, '2025-11-25', bearer(token), async (client) => {
      const recalled = (await structured(client, 'recall_memory', { query: 'where does Uma live' })).memories as { text: string }[];
      expect(recalled.map((memory) => memory.text)).toEqual(['Uma lives in Berlin']);
    });
    await confirm(page, edited, 'Delete');
    await page.getByText('No memory yet.').waitFor();
  });

  it('My memories: a fact that changed shows its validity, its history, and its old version on request', async () => {
    const token = await cliToken(app, ENV, '--sub', 'uma@example.com', '--email', 'uma@example.com');
    await withClient(app.url, '2025-11-25', bearer(token), async (client) => {
      const acme = await structured(client, 'remember', { text: 'Uma works at Acme', valid_from: '2020-03-01' });
      await structured(client, 'remember', { text: 'Uma works at Globex', replaces: [acme.id], valid_from: '2024-06-01' });
    });
    await openPage(page, 'My memories');
    // A memory's card, by its own text (an expanded history lists the other versions' texts too).
    const card = (text: string) =>
      page
        .getByRole('list', { name: 'Memories' })
        .getByRole('listitem')
        .filter({ has: page.getByText(text, { exact: true }) });
    const globex = card('Uma works at Globex');
    await globex.getByText('current', { exact: true }).waitFor();
    expect(await card('Uma works at Acme').count()).toBe(0);
    await globex.getByRole('button', { name: 'History' }).click();
    const versions = globex.getByRole('list', { name: 'Versions of: Uma works at Globex' }).getByRole('listitem');
    await versions.nth(1).waitFor();
    expect(await versions.allInnerTexts()).toEqual([
      expect.stringMatching(/^Uma works at Globex current, valid from 2024-06-0[12]/),
      expect.stringMatching(/^Uma works at Acme valid from 2020-0[23]-.* until 2024-06-0[12]/),
    ]);
    await page.getByLabel('Include superseded versions').check();
    await card('Uma works at Acme').getByText('superseded', { exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('history')).toBe('all');
  });

  it('My files: previews the text read from a file, reads it again, deletes it', async () => {
    await openPage(page, 'My files');
    await page.getByLabel('Upload a file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Blood pressure 120/80 on Monday') });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('button', { name: 'notes.txt' }).click();
    await page.getByLabel('Text of notes.txt').getByText('Blood pressure 120/80').waitFor();
    await page.getByRole('button', { name: 'Read its text again' }).click();
    await page.getByLabel('Text of notes.txt').getByText('Blood pressure 120/80').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
    expect(readFileSync((await download.path())!, 'utf8')).toBe('Blood pressure 120/80 on Monday');
    await confirm(page, page.getByRole('row').filter({ hasText: 'notes.txt' }), 'Delete');
    await page.getByText('No file yet.').waitFor();
  });

  it("never shows another user's data through the console's own requests", async () => {
    const other = await cliToken(app, ENV, '--sub', 'oscar', '--email', 'oscar@example.com');
    const { memory } = await (
      await fetch(new URL('/api/memories', app.url), {
        method: 'POST',
        headers: { ...bearer(other), 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Oscar secret' }),
      })
    ).json();
    const file = await uploadFile(app, other, 'oscar.txt', 'Oscar file');
    const statuses = await page.evaluate(
      async ([memoryId, fileKey]) =>
        Promise.all(
          [`/api/memories/${memoryId}`, `/api/files/${fileKey}`, `/api/files/${fileKey}/content`].map((path) =>
            fetch(path).then((response) => response.status),
          ),
        ),
      [memory.id, file.body.fileKey as string],
    );
    expect(statuses).toEqual([404, 404, 404]);
  });

  it('refuses what another site makes the browser send, even from the same machine', async () => {
    // Another origin on this host (a port is no site boundary: the Lax cookie goes along with its form).
    let attacker!: Server;
    const attackerOrigin = await new Promise<string>((resolve) => {
      attacker = createServer((_request, response) => {
        response.setHeader('content-type', 'text/html');
        response.end(`<form id="f" method="post" action="${app.url.origin}/api/mcp-secrets" enctype="text/plain"><input name='{"label":"forged","x":"' value='"}'></form>
          <script>document.getElementById('f').submit()</script>`);
      }).listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(attacker.address() as { port: number }).port}`));
    });
    try {
      const forged = await context.newPage();
      const answer = forged.waitForResponse((response) => response.url().endsWith('/api/mcp-secrets'));
      await forged.goto(attackerOrigin);
      expect([403, 415]).toContain((await answer).status());
      await forged.close();
      const secrets = await page.evaluate(() => fetch('/api/mcp-secrets').then((response) => response.json()));
      expect((secrets as { items: { label: string }[] }).items.map((secret) => secret.label)).not.toContain('forged');
    } finally {
      attacker.close();
    }
  });

  it('My account: downloads my data, and deleting my account (typed confirmation) signs me out with nothing left', async () => {
    await page.goto(`${app.url.origin}/console/account`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(exported.parts.account.user.email).toBe('uma@example.com');
    await confirm(page, page, 'Delete my account', 'Delete everything', 'uma@example.com');
    await page.getByRole('heading', { level: 1, name: 'Sign in to Mirobody' }).waitFor();
    const token = await cliToken(app, ENV, '--sub', 'uma@example.com', '--email', 'uma@example.com');
    expect((await (await fetch(new URL('/api/memories', app.url), { headers: bearer(token) })).json()).items).toEqual([]);
  });
});
