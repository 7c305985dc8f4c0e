import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { textPdf } from '../../../libs/files/test/fixtures.js';
import { ExtractionRuns } from '../../../libs/files/src/extraction/extraction-runs.js';
import { TEST_JWT_SECRET } from './support/auth.js';
import { call, uploadFile } from './support/files.js';
import { jsonCall } from './support/json-call.js';
import { auditEntries, partiesOf, statusesOf, type Parties } from './support/parties.js';
import { startApp, type RunningApp } from './support/test-app.js';

/** What the console's Files page takes: the extracted text, extraction run again, image previews, and the admin's view of every user's files. */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, FILES_OCR: 'off', RATE_LIMIT_REQUESTS: '0' };
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
/** Starts like a PDF, reads as none: its extraction fails, every time, until its bytes are mended. */
const BROKEN_PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\n%%EOF\n');
const UNKNOWN_KEY = 'A'.repeat(22);

let app: RunningApp;
let parties: Parties;

beforeAll(async () => {
  app = await startApp(ENV);
  parties = await partiesOf(app);
});
afterAll(() => app?.close());

/** Uploads as `token`; answers the file's key, after checking the upload was taken. */
async function upload(token: string, filename: string, content: Buffer | string, type?: string): Promise<{ fileKey: string; extractionStatus: string }> {
  const answer = await uploadFile(app, token, filename, content, type ? { type } : {});
  expect(answer.status).toBe(201);
  return answer.body as { fileKey: string; extractionStatus: string };
}

/** Where the local-disk storage keeps a file's bytes. */
async function storedPath(fileKey: string): Promise<string> {
  const [row] = await app.app.get(DataSource).query('SELECT object_key FROM files WHERE file_key = $1', [fileKey]);
  return join(app.dataDir, 'files', 'objects', row.object_key);
}

describe('a user’s own files', () => {
  it('answers the extracted text, cut at 200,000 characters, saying so', async () => {
    const long = await upload(parties.alice.token, 'long.txt', `${'word '.repeat(50_000)}the end`, 'text/plain');
    const text = await jsonCall(app, 'GET', `/api/files/${long.fileKey}/text`, parties.alice.token);
    expect(text.status).toBe(200);
    expect({ ...text.body, text: text.body.text.length }).toEqual({ fileKey: long.fileKey, extractionStatus: 'done', text: 200_000, truncated: true });
    const short = await upload(parties.alice.token, 'short.txt', 'Just a line', 'text/plain');
    expect((await jsonCall(app, 'GET', `/api/files/${short.fileKey}/text`, parties.alice.token)).body).toEqual({
      fileKey: short.fileKey,
      extractionStatus: 'done',
      text: 'Just a line',
      truncated: false,
    });
    const image = await upload(parties.alice.token, 'dot.png', PNG);
    expect((await jsonCall(app, 'GET', `/api/files/${image.fileKey}/text`, parties.alice.token)).body).toMatchObject({ extractionStatus: 'none', text: null });
  });

  it('shows raster images inline, keeps every other type an attachment, never sniffed', async () => {
    const image = await upload(parties.alice.token, 'dot.png', PNG);
    const png = await call(app, 'GET', `/api/files/${image.fileKey}/content`, parties.alice.token);
    expect([png.status, png.headers.get('content-type'), png.headers.get('content-disposition')]).toEqual([200, 'image/png', 'inline; filename=dot.png']);
    expect(png.headers.get('x-content-type-options')).toBe('nosniff');
    expect(png.headers.get('content-security-policy')).toContain('sandbox');
    const svg = await upload(parties.alice.token, 'logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml');
    const html = await upload(parties.alice.token, 'page.html', '<!doctype html><html><body><script>alert(1)</script></body></html>', 'text/html');
    for (const fileKey of [svg.fileKey, html.fileKey]) {
      const answer = await call(app, 'GET', `/api/files/${fileKey}/content`, parties.alice.token);
      expect([answer.headers.get('content-disposition')?.split(';')[0], answer.headers.get('x-content-type-options')]).toEqual(['attachment', 'nosniff']);
    }
  });

  it('extracts a failed file again once its cause is mended: 200 with the new status, and its text readable', async () => {
    const broken = await upload(parties.alice.token, 'scan.pdf', BROKEN_PDF, 'application/pdf');
    expect(broken.extractionStatus).toMatch(/^failed: /);
    expect((await jsonCall(app, 'GET', `/api/files/${broken.fileKey}/text`, parties.alice.token)).body).toMatchObject({ text: null, truncated: false });
    const again = await jsonCall(app, 'POST', `/api/files/${broken.fileKey}/extraction`, parties.alice.token);
    expect([again.status, again.body.extractionStatus]).toEqual([200, expect.stringMatching(/^failed: /)]);

    writeFileSync(await storedPath(broken.fileKey), textPdf(['Hello from the console']));
    const mended = await jsonCall(app, 'POST', `/api/files/${broken.fileKey}/extraction`, parties.alice.token);
    expect([mended.status, mended.body]).toEqual([200, expect.objectContaining({ fileKey: broken.fileKey, filename: 'scan.pdf', extractionStatus: 'done' })]);
    expect((await jsonCall(app, 'GET', `/api/files/${broken.fileKey}/text`, parties.alice.token)).body.text).toContain('Hello from the console');
    expect((await jsonCall(app, 'GET', `/api/files/${broken.fileKey}`, parties.alice.token)).body.extractionStatus).toBe('done');
  });

  it('never runs two extractions of one file: while one is under way the answer is 202 pending; one left stale is taken over', async () => {
    const file = await upload(parties.alice.token, 'notes.txt', 'Notes to extract', 'text/plain');
    const rows = app.app.get(DataSource);
    const [{ id }] = await rows.query('SELECT id FROM files WHERE file_key = $1', [file.fileKey]);
    // As a run on another instance would: claimed, and under way.
    expect(await app.app.get(ExtractionRuns).claim(id, 60_000)).toEqual(expect.any(String));
    const meanwhile = await jsonCall(app, 'POST', `/api/files/${file.fileKey}/extraction`, parties.alice.token);
    expect([meanwhile.status, meanwhile.body.extractionStatus]).toEqual([202, 'pending']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await jsonCall(app, 'GET', `/api/files/${file.fileKey}/text`, parties.alice.token)).body).toMatchObject({
      extractionStatus: 'pending',
      text: null,
    });
    // That run died: its claim is older than twice the extraction timeout.
    await rows.query(`UPDATE files SET extraction_started_at = now() - interval '1 day' WHERE id = $1`, [id]);
    const takenOver = await jsonCall(app, 'POST', `/api/files/${file.fileKey}/extraction`, parties.alice.token);
    expect([takenOver.status, takenOver.body.extractionStatus]).toEqual([200, 'done']);
    expect((await jsonCall(app, 'GET', `/api/files/${file.fileKey}/text`, parties.alice.token)).body.text).toBe('Notes to extract');
  });

  it("answers another user's file exactly like a missing one (404), and anonymous callers 401", async () => {
    const file = await upload(parties.alice.token, 'mine.txt', 'Mine alone', 'text/plain');
    for (const [method, suffix] of [
      ['GET', 'text'],
      ['POST', 'extraction'],
    ] as const) {
      const missing = await jsonCall(app, method, `/api/files/${UNKNOWN_KEY}/${suffix}`, parties.bob.token);
      const others = await jsonCall(app, method, `/api/files/${file.fileKey}/${suffix}`, parties.bob.token);
      expect([others.status, others.body]).toEqual([404, missing.body]);
      expect((await jsonCall(app, method, `/api/files/${file.fileKey.slice(1)}/${suffix}`, parties.alice.token)).status).toBe(404);
      expect((await jsonCall(app, method, `/api/files/${file.fileKey}/${suffix}`, undefined)).status).toBe(401);
    }
    expect((await jsonCall(app, 'GET', `/api/files/${file.fileKey}/text`, parties.alice.token)).body.text).toBe('Mine alone');
  });
});

describe("an admin's view of users' files", () => {
  it("describes, downloads (Range included), reads the text of and extracts again one user's file, each on the audit trail", async () => {
    const file = await upload(parties.alice.token, 'labs.txt', 'Cholesterol 180 mg/dL', 'text/plain');
    const base = `/admin/users/${parties.alice.id}/files/${file.fileKey}`;
    expect((await jsonCall(app, 'GET', base, parties.admin.token)).body).toMatchObject({ fileKey: file.fileKey, filename: 'labs.txt' });
    const part = await call(app, 'GET', `${base}/content`, parties.admin.token, { range: 'bytes=0-10' });
    expect([part.status, part.bytes.toString(), part.headers.get('content-range')]).toEqual([206, 'Cholesterol', 'bytes 0-10/21']);
    expect((await jsonCall(app, 'GET', `${base}/text`, parties.admin.token)).body).toMatchObject({ text: 'Cholesterol 180 mg/dL', truncated: false });
    const extracted = await jsonCall(app, 'POST', `${base}/extraction`, parties.admin.token);
    expect([extracted.status, extracted.body.extractionStatus]).toEqual([200, 'done']);
    const target = { actor_id: parties.admin.id, target_user_id: parties.alice.id };
    expect((await auditEntries(app, 'files.read')).slice(-2)).toEqual([
      { ...target, detail: { fileKey: file.fileKey } },
      { ...target, detail: { fileKey: file.fileKey, part: 'text' } },
    ]);
    expect((await auditEntries(app, 'files.download')).at(-1)).toEqual({ ...target, detail: { fileKey: file.fileKey, range: 'bytes=0-10' } });
    expect((await auditEntries(app, 'files.extract')).at(-1)).toEqual({ ...target, detail: { fileKey: file.fileKey } });
  });

  it("answers another user's key and an unknown one alike (404), a malformed user id 400, an unknown user 404; 401 and 403 to others", async () => {
    const bobs = await upload(parties.bob.token, 'bob.txt', 'Bob only', 'text/plain');
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/content'],
      ['GET', '/text'],
      ['POST', '/extraction'],
    ] as const) {
      const path = (userId: string, key: string) => `/admin/users/${userId}/files/${key}${suffix}`;
      for (const key of [bobs.fileKey, UNKNOWN_KEY])
        expect([method, suffix, (await jsonCall(app, method, path(parties.alice.id, key), parties.admin.token)).status]).toEqual([method, suffix, 404]);
      const malformed = await jsonCall(app, method, path('not-a-uuid', bobs.fileKey), parties.admin.token);
      expect([malformed.status, malformed.body.fields]).toEqual([400, { userId: 'must be a UUID' }]);
      const nobody = await jsonCall(app, method, path('00000000-0000-4000-8000-000000000000', bobs.fileKey), parties.admin.token);
      expect([nobody.status, nobody.body.message]).toEqual([404, 'No such user']);
      const statuses = await statusesOf(app, method, path(parties.bob.id, bobs.fileKey), { ...parties, admin: parties.bob });
      expect([method, suffix, statuses]).toEqual([method, suffix, { anonymous: 401, user: 403, admin: 403 }]);
    }
  });

  it("lists every user's files with their owners, newest first, by extraction state and by pages; reading the list is not audited", async () => {
    const failed = await upload(parties.bob.token, 'broken.pdf', BROKEN_PDF, 'application/pdf');
    const done = await upload(parties.alice.token, 'fine.txt', 'Fine', 'text/plain');
    const audited = (await auditEntries(app, 'files.view')).length;
    const failures = await jsonCall(app, 'GET', '/admin/files?extraction=failed', parties.admin.token);
    expect(failures.status).toBe(200);
    expect(failures.body.items[0]).toEqual(
      expect.objectContaining({
        fileKey: failed.fileKey,
        ownerUserId: parties.bob.id,
        ownerEmail: parties.bob.email,
        extractionStatus: expect.stringMatching(/^failed: /),
      }),
    );
    expect(failures.body.items.every((file: { extractionStatus: string }) => file.extractionStatus.startsWith('failed: '))).toBe(true);
    const finished = await jsonCall(app, 'GET', '/admin/files?extraction=done', parties.admin.token);
    expect(finished.body.items[0]).toMatchObject({ fileKey: done.fileKey, ownerUserId: parties.alice.id, ownerEmail: parties.alice.email });
    expect((await jsonCall(app, 'GET', '/admin/files?extraction=pending', parties.admin.token)).body.items).toEqual([]);
    const first = await jsonCall(app, 'GET', '/admin/files?limit=1', parties.admin.token);
    expect(first.body.items.map((file: { fileKey: string }) => file.fileKey)).toEqual([done.fileKey]);
    const second = await jsonCall(app, 'GET', `/admin/files?limit=1&cursor=${first.body.nextCursor}`, parties.admin.token);
    expect(second.body.items.map((file: { fileKey: string }) => file.fileKey)).toEqual([failed.fileKey]);
    expect((await auditEntries(app, 'files.view')).length).toBe(audited);
  });

  it.each([
    ['extraction=broken', 'extraction'],
    ['limit=201', 'limit'],
    ['cursor=nonsense', 'cursor'],
    ['userId=x', 'userId'],
  ])('answers /admin/files?%s with 400 naming the parameter', async (query, field) => {
    const answer = await jsonCall(app, 'GET', `/admin/files?${query}`, parties.admin.token);
    expect([answer.status, Object.keys(answer.body.fields ?? {})]).toEqual([400, [field]]);
  });

  it('is for admins only: 401 without a credential, 403 for a user', async () => {
    expect(await statusesOf(app, 'GET', '/admin/files', parties)).toEqual({ anonymous: 401, user: 403, admin: 200 });
  });
});
