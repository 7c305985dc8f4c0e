import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { docx, ocrInstalled, pngOfText, textPdf, whenOcrInstalled } from '../../../libs/files/test/fixtures.js';
import { startS3TestServer, type S3TestServer } from '../../../libs/files/test/s3-test-server.js';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { s3Environment, uploadFile, userIdOf } from './support/files.js';
import { startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET, FILES_READ_MAX_CHARS: '5000' };
// A 1x1 transparent PNG: nothing for OCR to read, so read_file answers with a link.
const BLANK_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3TestServer();
});
afterAll(async () => {
  await s3.close();
});

const backends: [string, () => Record<string, string>][] = [
  ['local disk', () => ({})],
  ['S3', () => s3Environment(s3, 'tools')],
];

/** A tool call's error text, failing the test when the call succeeds. */
async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  return (result.content as { text: string }[])[0]!.text;
}

describe.each(backends)('list_files and read_file on %s', (backend, s3Env) => {
  let app: RunningApp;
  let alice: string;
  let bob: string;
  const keys: Record<string, string> = {};
  const pngWithText = ocrInstalled() ? pngOfText(['Ferritin 87 ng/mL']) : BLANK_PNG;

  beforeAll(async () => {
    const env = { ...ENV, ...s3Env() };
    app = await startApp(env);
    [alice, bob] = await Promise.all([cliToken(app, env, '--sub', 'alice'), cliToken(app, env, '--sub', 'bob')]);
    const uploads: [string, Buffer | string][] = [
      ['notes.txt', 'Blood pressure 120/80'],
      ['plan.md', '# Plan\n\n- walk daily'],
      ['report.pdf', textPdf(['Hemoglobin 14.2 g/dL'])],
      ['letter.docx', await docx(['Dear doctor,', 'Cholesterol 4.1 mmol/L'])],
      ['scan.png', pngWithText],
      ['pixel.png', BLANK_PNG],
      ['long.txt', 'abcdefghij'.repeat(600)],
    ];
    for (const [name, content] of uploads) {
      const answer = await uploadFile(app, alice, name, content);
      expect(answer.status).toBe(201);
      keys[name] = answer.body.fileKey as string;
    }
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  const asAlice = <T>(work: (client: Client) => Promise<T>) => withClient(app.url, '2025-11-25', bearer(alice), work);

  it('lists the caller’s files newest first, as text/plain where text was extracted', async () => {
    const { files, note } = (await asAlice((client) => structured(client, 'list_files'))) as { files: Record<string, string>[]; note?: string };
    expect(note).toBeUndefined();
    expect(files.map((file) => file.filename)).toEqual(['long.txt', 'pixel.png', 'scan.png', 'letter.docx', 'report.pdf', 'plan.md', 'notes.txt']);
    const byName = Object.fromEntries(files.map((file) => [file.filename, file]));
    expect(byName['report.pdf']).toEqual({
      filename: 'report.pdf',
      file_key: keys['report.pdf'],
      mime: 'text/plain',
      uploaded_at: expect.stringMatching(/Z$/),
    });
    expect(byName['letter.docx']!.mime).toBe('text/plain');
    expect(byName['plan.md']!.mime).toBe('text/markdown');
    expect(byName['pixel.png']!.mime).toBe('image/png');
    expect(byName['scan.png']!.mime).toBe(ocrInstalled() ? 'text/plain' : 'image/png');
  });

  it('reads text, PDF and DOCX inline', async () => {
    await asAlice(async (client) => {
      expect(await structured(client, 'read_file', { file_key: keys['notes.txt'] })).toEqual({
        filename: 'notes.txt',
        mime: 'text/plain',
        content: 'Blood pressure 120/80',
      });
      expect(await structured(client, 'read_file', { file_key: keys['plan.md'] })).toEqual({
        filename: 'plan.md',
        mime: 'text/markdown',
        content: '# Plan\n\n- walk daily',
      });
      expect(await structured(client, 'read_file', { file_key: keys['report.pdf'] })).toEqual({
        filename: 'report.pdf',
        mime: 'text/plain',
        content: 'Hemoglobin 14.2 g/dL',
      });
      expect(await structured(client, 'read_file', { file_key: keys['letter.docx'] })).toEqual({
        filename: 'letter.docx',
        mime: 'text/plain',
        content: 'Dear doctor,\n\nCholesterol 4.1 mmol/L',
      });
    });
  });

  it('cuts long text at FILES_READ_MAX_CHARS and says so', async () => {
    const read = (await asAlice((client) => structured(client, 'read_file', { file_key: keys['long.txt'] }))) as { content: string; note: string };
    expect(read.content).toHaveLength(5000);
    expect(read.note).toBe('Cut at character 5000 of 6000; the rest is not shown.');
  });

  whenOcrInstalled(it)('reads a picture of text by OCR', async () => {
    const read = (await asAlice((client) => structured(client, 'read_file', { file_key: keys['scan.png'] }))) as { content: string; mime: string };
    expect(read.mime).toBe('text/plain');
    expect(read.content).toContain('Ferritin 87');
  });

  it('hands over other binaries as a temporary link that downloads the same bytes', async () => {
    const read = (await asAlice((client) => structured(client, 'read_file', { file_key: keys['pixel.png'] }))) as Record<string, string>;
    expect(read).toEqual({
      filename: 'pixel.png',
      mime: 'image/png',
      url: expect.any(String),
      expires_at: expect.any(String),
      note: expect.stringContaining('URL'),
    });
    expect(Date.parse(read.expires_at!) - Date.now()).toBeGreaterThan(3500_000);
    let url = new URL(read.url!);
    // The app under test listens on a random port its PUBLIC_BASE_URL does not know.
    if (backend === 'local disk') url = new URL(`${url.pathname}${url.search}`, app.url);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(BLANK_PNG)).toBe(true);
    expect(response.headers.get('content-disposition')).toContain('attachment');
  });

  it('answers another user’s key exactly like an unknown one, and anonymous callers not at all', async () => {
    await withClient(app.url, '2025-11-25', bearer(bob), async (client) => {
      expect(await structured(client, 'list_files')).toEqual({ files: [] });
      const unknown = await toolError(client, 'read_file', { file_key: 'A'.repeat(22) });
      expect(unknown).toBe('File not found.');
      for (const key of Object.values(keys)) expect(await toolError(client, 'read_file', { file_key: key })).toBe(unknown);
      for (const guess of ['../notes.txt', keys['notes.txt']!.toLowerCase(), ' ', `${keys['notes.txt']}\u0000`])
        expect(await toolError(client, 'read_file', { file_key: guess })).toBe(unknown);
      expect(await toolError(client, 'read_file', {})).toMatch(/file_key/);
      expect(await toolError(client, 'read_file', { file_key: 42 })).toMatch(/file_key/);
    });
    await withClient(app.url, '2025-11-25', {}, async (client) => {
      await expect(client.callTool({ name: 'list_files', arguments: {} })).rejects.toThrow(/Authentication required/);
      await expect(client.callTool({ name: 'read_file', arguments: { file_key: keys['notes.txt'] } })).rejects.toThrow(/Authentication required/);
    });
  });

  it('lists at most 100 files, with a note when there are more', async () => {
    const carol = await cliToken(app, { ...ENV, ...s3Env() }, '--sub', 'carol');
    // The first authenticated call creates the user.
    await withClient(app.url, '2025-11-25', bearer(carol), (client) => structured(client, 'whoami'));
    const carolId = await userIdOf(app, 'carol');
    const dataSource = app.app.get(DataSource);
    for (let index = 0; index < 101; index++) {
      await dataSource.query(
        `INSERT INTO files (id, user_id, file_key, filename, mime, size, sha256, storage_backend, object_key, extraction_status, created_at)
         VALUES ($1, $2, $3, $4, 'text/plain', 1, '', 'local', $5, 'none', now() - make_interval(secs => $6))`,
        [randomUUID(), carolId, `k${String(index).padStart(21, '0')}`, `f${index}.txt`, `zz/k${index}`, index],
      );
    }
    const listed = (await withClient(app.url, '2025-11-25', bearer(carol), (client) => structured(client, 'list_files'))) as { files: unknown[]; note: string };
    expect(listed.files).toHaveLength(100);
    expect(listed.note).toMatch(/100 newest/);
  });
});
