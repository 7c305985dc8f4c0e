import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Signer, UserDataContributors } from '@app/common';
import { DataSource } from 'typeorm';
import { startS3TestServer, type S3TestServer } from '../../../libs/files/test/s3-test-server.js';
import { cliToken, TEST_JWT_SECRET } from './support/auth.js';
import {
  call,
  dispositionOf,
  fileRows,
  localFilesOnDisk,
  s3Environment,
  settles,
  uploadBody,
  uploadFile,
  uploadParts,
  uploadRaw,
  userIdOf,
} from './support/files.js';
import { startApp, type RunningApp } from './support/test-app.js';

const MiB = 1024 * 1024;
const ENV = { JWT_SECRET: TEST_JWT_SECRET, FILES_MAX_BYTES: String(MiB), FILES_MAX_TOTAL_BYTES_PER_USER: String(2.5 * MiB), FILES_OCR: 'off' };

let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3TestServer();
});
afterAll(async () => {
  await s3.close();
});

const backends: [string, () => Record<string, string>][] = [
  ['local disk', () => ({})],
  ['S3', () => s3Environment(s3, 'rest')],
];

describe.each(backends)('files REST on %s', (backend, s3Env) => {
  let app: RunningApp;
  let env: Record<string, string>;
  let alice: string;
  let bob: string;
  let carol: string;
  let admin: string;
  /** Every stored object (S3) or file on disk (local) of this app. */
  const stored = async () => (backend === 'S3' ? (await s3.objectKeys()).filter((key) => key.startsWith(env.S3_PREFIX!)) : localFilesOnDisk(app));

  beforeAll(async () => {
    env = { ...ENV, ...s3Env() };
    app = await startApp(env);
    [alice, bob, carol, admin] = await Promise.all([
      cliToken(app, env, '--sub', 'alice'),
      cliToken(app, env, '--sub', 'bob'),
      cliToken(app, env, '--sub', 'carol'),
      cliToken(app, env, '--sub', 'root', '--admin'),
    ]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('uploads, describes, downloads (whole and by range) and deletes a file', async () => {
    const content = Buffer.from('Glucose 5.4 mmol/L\n'.repeat(100));
    const uploaded = await uploadFile(app, alice, 'labs.txt', content, { type: 'text/plain' });
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toEqual({
      fileKey: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      filename: 'labs.txt',
      mime: 'text/plain',
      size: content.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      uploadedAt: expect.any(String),
      extractionStatus: 'done',
    });
    const key = uploaded.body.fileKey as string;
    expect((await call(app, 'GET', `/api/files/${key}`, alice)).body).toEqual(uploaded.body);

    const whole = await call(app, 'GET', `/api/files/${key}/content`, alice);
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(content)).toBe(true);
    expect(whole.headers.get('content-disposition')).toBe('attachment; filename=labs.txt');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(whole.headers.get('content-type')).toBe('text/plain');

    const part = await call(app, 'GET', `/api/files/${key}/content`, alice, { range: 'bytes=8-10' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 8-10/${content.length}`);
    expect(part.bytes.toString()).toBe('5.4');
    const beyond = await call(app, 'GET', `/api/files/${key}/content`, alice, { range: `bytes=${content.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${content.length}`);

    const objectsBefore = (await stored()).length;
    expect((await call(app, 'DELETE', `/api/files/${key}`, alice)).status).toBe(204);
    expect((await call(app, 'GET', `/api/files/${key}`, alice)).status).toBe(404);
    expect((await call(app, 'GET', `/api/files/${key}/content`, alice)).status).toBe(404);
    expect((await call(app, 'DELETE', `/api/files/${key}`, alice)).status).toBe(404);
    expect(await stored()).toHaveLength(objectsBefore - 1);
  });

  it('never shows one user another user’s file, by any route or spelling of its key', async () => {
    const { body } = await uploadFile(app, alice, 'private.md', '# mine');
    const key = body.fileKey as string;
    const missing = await call(app, 'GET', `/api/files/${'A'.repeat(22)}`, bob);
    expect(missing.status).toBe(404);
    for (const [method, path] of [
      ['GET', `/api/files/${key}`],
      ['GET', `/api/files/${key}/content`],
      ['DELETE', `/api/files/${key}`],
    ]) {
      const answer = await call(app, method, path, bob);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual(missing.body);
      expect((await call(app, method, path)).status).toBe(401);
    }
    expect((await call(app, 'GET', '/api/files', bob)).body.items.map((item: { fileKey: string }) => item.fileKey)).not.toContain(key);
    expect((await call(app, 'GET', '/api/files')).status).toBe(401);
    expect((await uploadFile(app, undefined, 'anon.txt', 'x')).status).toBe(401);
    for (const spelled of [
      key.toUpperCase(),
      key.toLowerCase(),
      `${key}x`,
      key.slice(1),
      `${key}%00`,
      `%2e%2e%2f${key}`,
      '..%2F..%2Fetc%2Fpasswd',
      `${key}%20`,
      'x'.repeat(5000),
    ]) {
      const answer = await call(app, 'GET', `/api/files/${spelled}`, alice);
      if (spelled !== key) expect([404, 414]).toContain(answer.status);
    }
    expect((await call(app, 'GET', `/api/files/${key}/`, alice)).status).toBe(404);
    expect((await call(app, 'GET', `/api/files/${key}`, alice)).status).toBe(200);
  });

  it('keeps names for display only: path parts and control characters go', async () => {
    const { status, body } = await uploadRaw(app, alice, '..\\..\\etc/pass\twd\u0007\u001b\u202E.txt', 'hello');
    expect(status).toBe(201);
    expect(body.filename).toBe('passwd.txt');
    const download = await call(app, 'GET', `/api/files/${body.fileKey}/content`, alice);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename=passwd.txt');
    expect((await fileRows(app)).every((row) => /^[A-Za-z0-9_-]{2}\/[A-Za-z0-9_-]{22}$/.test(row.object_key))).toBe(true);
    const unicode = await uploadFile(app, alice, '化验单.txt', 'x');
    expect((await call(app, 'GET', `/api/files/${unicode.body.fileKey}/content`, alice)).headers.get('content-disposition')).toBe(
      `attachment; filename="???.txt"; filename*=UTF-8''%E5%8C%96%E9%AA%8C%E5%8D%95.txt`,
    );
  });

  it('refuses a file over FILES_MAX_BYTES with 413 and keeps nothing of it', async () => {
    const before = { objects: await stored(), rows: await fileRows(app) };
    const answer = await uploadFile(app, alice, 'big.bin', Buffer.alloc(MiB + 1, 7));
    expect(answer.status).toBe(413);
    expect(answer.body.message).toContain('FILES_MAX_BYTES');
    expect(await stored()).toEqual(before.objects);
    expect(await fileRows(app)).toEqual(before.rows);
    expect((await uploadFile(app, alice, 'exact.bin', Buffer.alloc(MiB, 7))).status).toBe(201);
  });

  it('refuses what would pass the user’s quota with 413 naming it, for that user only', async () => {
    expect((await uploadFile(app, carol, 'one.bin', Buffer.alloc(MiB, 1))).status).toBe(201);
    expect((await uploadFile(app, carol, 'two.bin', Buffer.alloc(MiB, 2))).status).toBe(201);
    const before = await stored();
    const third = await uploadFile(app, carol, 'three.bin', Buffer.alloc(MiB, 3));
    expect(third.status).toBe(413);
    expect(third.body.message).toContain('FILES_MAX_TOTAL_BYTES_PER_USER');
    expect(await stored()).toEqual(before);
    expect((await uploadFile(app, bob, 'bobs.bin', Buffer.alloc(MiB, 3))).status).toBe(201);
  });

  it('keeps nothing of an upload whose client hangs up midway', async () => {
    const before = { objects: await stored(), rows: await fileRows(app) };
    const boundary = 'cut-boundary';
    await new Promise<void>((resolve) => {
      const request = httpRequest(new URL('/api/files', app.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${alice}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(900 * 1024) },
      });
      request.on('error', () => resolve());
      request.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n`);
      request.write(Buffer.alloc(300 * 1024, 9), () => setTimeout(() => request.destroy(), 100));
      request.on('close', () => resolve());
    });
    await settles(async () => {
      expect(await stored()).toEqual(before.objects);
      expect(await fileRows(app)).toEqual(before.rows);
    });
  });

  it('answers a body that is not a file upload with 400 naming the field', async () => {
    const wrongField = await uploadFile(app, alice, 'x.txt', 'x', { field: 'document' });
    expect(wrongField.status).toBe(400);
    expect(wrongField.body.fields).toEqual({ file: 'missing', document: 'unexpected' });
    const post = (contentType: string, body: string) =>
      fetch(new URL('/api/files', app.url), { method: 'POST', headers: { authorization: `Bearer ${alice}`, 'content-type': contentType }, body });
    expect((await post('application/json', '{}')).status).toBe(400);
    expect((await post('multipart/form-data', 'no boundary')).status).toBe(400);
    const before = { objects: await stored(), rows: await fileRows(app) };
    const unfinished = await post('multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello');
    expect(unfinished.status).toBe(400);
    expect(((await unfinished.json()) as { fields: object }).fields).toEqual({ file: 'incomplete or malformed multipart body' });
    expect(await stored()).toEqual(before.objects);
    expect(await fileRows(app)).toEqual(before.rows);
  });

  it('takes one file part and nothing else: any other part, before or after it, is 400 naming it, and nothing is kept', async () => {
    const file = (name: string, filename: string) => ({ name, filename, content: `content of ${filename}` });
    const field = (name: string) => ({ name, content: 'a value' });
    const cases: [string, ReturnType<typeof file | typeof field>[], Record<string, string>][] = [
      ['a second file of the same name', [file('file', 'a.txt'), file('file', 'b.txt')], { file: 'unexpected' }],
      ['a second file of another name', [file('file', 'a.txt'), file('attachment', 'b.txt')], { attachment: 'unexpected' }],
      ['three files', [file('file', 'a.txt'), file('second', 'b.txt'), file('third', 'c.txt')], { second: 'unexpected' }],
      ['a field after the file', [file('file', 'a.txt'), field('note')], { note: 'unexpected' }],
      ['a field before the file', [field('note'), file('file', 'a.txt')], { file: 'missing', note: 'unexpected' }],
      ['the file sent as a field', [field('file')], { file: 'not a file' }],
    ];
    for (const [label, parts, fields] of cases) {
      const before = { objects: await stored(), rows: await fileRows(app) };
      const answer = await uploadParts(app, alice, parts);
      expect({ label, status: answer.status, fields: answer.body.fields }).toEqual({ label, status: 400, fields });
      expect(answer.body.message).toContain('"file"');
      await settles(async () => {
        expect(await stored()).toEqual(before.objects);
        expect(await fileRows(app)).toEqual(before.rows);
      });
    }
    // A body cut short after a whole file part keeps nothing either.
    const before = { objects: await stored(), rows: await fileRows(app) };
    const cut = await uploadParts(app, alice, [file('file', 'a.txt')], { unfinished: true });
    expect(cut.status).toBe(400);
    expect(await stored()).toEqual(before.objects);
    expect(await fileRows(app)).toEqual(before.rows);
    expect((await uploadParts(app, alice, [file('file', 'alone.txt')])).status).toBe(201);
  });

  describe('raw uploads (POST /api/files/raw: the file is the body)', () => {
    /** Objects and rows now, to show that a refused or cut upload left nothing. */
    const snapshot = async () => ({ objects: await stored(), rows: await fileRows(app) });

    /**
     * One request written by hand, for what fetch will not send: a Content-Length of its own, or
     * none. With `endsEarly` the client ends its side of the connection right after the body.
     */
    const rawRequest = (head: string, body: string, { endsEarly = false } = {}) =>
      new Promise<string>((resolve, reject) => {
        const url = new URL(app.url);
        const socket = connect(Number(url.port), url.hostname, () => {
          const request = `${head}\r\nConnection: close\r\n\r\n${body}`;
          if (endsEarly) socket.end(request);
          else socket.write(request);
        });
        let answer = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });

    it('stores the body as the file, for its owner only, with the checks of a multipart upload', async () => {
      const content = Buffer.from('Ferritin 85 ng/mL\n'.repeat(200));
      const uploaded = await uploadBody(app, alice, dispositionOf('ferritin.txt'), content);
      expect(uploaded.status).toBe(201);
      expect(uploaded.body).toEqual({
        fileKey: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        filename: 'ferritin.txt',
        mime: 'text/plain',
        size: content.length,
        sha256: createHash('sha256').update(content).digest('hex'),
        uploadedAt: expect.any(String),
        extractionStatus: 'done',
      });
      const key = uploaded.body.fileKey as string;
      expect((await call(app, 'GET', `/api/files/${key}/content`, alice)).bytes.equals(content)).toBe(true);
      // Typed from the content, whatever the name says: a page called .txt is not served as text.
      const page = await uploadBody(app, alice, { 'content-disposition': 'attachment; filename="notes.txt"' }, '<!doctype html><script>alert(1)</script>');
      expect([page.status, page.body.mime]).toEqual([201, 'application/octet-stream']);

      for (const [method, path] of [
        ['GET', `/api/files/${key}`],
        ['GET', `/api/files/${key}/content`],
        ['DELETE', `/api/files/${key}`],
      ]) {
        expect((await call(app, method, path, bob)).status).toBe(404);
        expect((await call(app, method, path)).status).toBe(401);
      }
      expect((await call(app, 'GET', '/api/files', bob)).body.items.map((item: { fileKey: string }) => item.fileKey)).not.toContain(key);
      const before = await snapshot();
      expect((await uploadBody(app, undefined, dispositionOf('anon.txt'), 'x')).status).toBe(401);
      expect(await snapshot()).toEqual(before);
    });

    it('keeps names for display only, and answers 400 naming the header when there is no name', async () => {
      const named = await uploadBody(app, alice, dispositionOf('..\\..\\etc/pass\twd\u0007\u001b\u202E.txt'), 'hello');
      expect([named.status, named.body.filename]).toEqual([201, 'passwd.txt']);
      const plain = await uploadBody(app, alice, { 'content-disposition': 'attachment; filename="../lab results.csv"' }, 'a,b\n1,2\n');
      expect([plain.status, plain.body.filename, plain.body.mime]).toEqual([201, 'lab results.csv', 'text/csv']);
      const unicode = await uploadBody(app, alice, dispositionOf('化验单.txt'), 'x');
      expect(unicode.body.filename).toBe('化验单.txt');
      // filename="…" as curl sends it from a UTF-8 terminal (it was stored as "cafÃ©.txt"), and in ISO-8859-1 as RFC 6266 has it.
      const headerBytes = (name: string, encoding: BufferEncoding) => ({
        'content-disposition': `attachment; filename="${Buffer.from(name, encoding).toString('latin1')}"`,
      });
      const utf8Bytes = await uploadBody(app, alice, headerBytes('café 化验单.txt', 'utf8'), 'x');
      const latin1Bytes = await uploadBody(app, alice, headerBytes('café.txt', 'latin1'), 'x');
      expect([utf8Bytes.body.filename, latin1Bytes.body.filename]).toEqual(['café 化验单.txt', 'café.txt']);

      const before = await snapshot();
      for (const [headers, field] of [
        [{}, 'missing'],
        [{ 'content-disposition': 'attachment' }, 'no filename'],
        [{ 'content-disposition': 'attachment; name="file"' }, 'no filename'],
        [{ 'content-disposition': 'attachment; filename=""' }, 'no filename'],
        // %E9 alone is ISO-8859-1's é, no UTF-8.
        [{ 'content-disposition': "attachment; filename*=UTF-8''caf%E9.txt" }, 'filename* not UTF-8'],
      ] as const) {
        const answer = await uploadBody(app, alice, headers, 'hello');
        expect([answer.status, answer.body.fields]).toEqual([400, { 'content-disposition': field }]);
        expect(answer.body.message).toContain('Content-Disposition');
      }
      expect(await snapshot()).toEqual(before);
    });

    it('takes only a body of known size: none (chunked) is 411, a malformed one 400', async () => {
      const before = await snapshot();
      const chunked = await rawRequest(
        `POST /api/files/raw HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${alice}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="c.txt"\r\nTransfer-Encoding: chunked`,
        '5\r\nhello\r\n0\r\n\r\n',
      );
      expect(chunked).toMatch(/^HTTP\/1\.1 411 /);
      expect(chunked).toContain('Content-Length');
      for (const length of ['abc', '-1', '5, 6']) {
        const malformed = await rawRequest(
          `POST /api/files/raw HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${alice}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="m.txt"\r\nContent-Length: ${length}`,
          'hello',
        );
        expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a body declared over FILES_MAX_BYTES or the quota with 413, keeping nothing', async () => {
      const before = await snapshot();
      const tooBig = await uploadBody(app, alice, dispositionOf('big.bin'), Buffer.alloc(MiB + 1, 7));
      expect(tooBig.status).toBe(413);
      expect(tooBig.body.message).toContain('FILES_MAX_BYTES');
      // Refused on its Content-Length alone: the answer comes before any of the body is sent.
      const announced = await rawRequest(
        `POST /api/files/raw HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${alice}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="huge.bin"\r\nContent-Length: ${100 * MiB}`,
        '',
      );
      expect(announced).toMatch(/^HTTP\/1\.1 413 /);
      expect(await snapshot()).toEqual(before);

      const gina = await cliToken(app, env, '--sub', 'gina');
      for (const name of ['one.bin', 'two.bin']) expect((await uploadBody(app, gina, dispositionOf(name), Buffer.alloc(MiB, 1))).status).toBe(201);
      const full = await snapshot();
      const overQuota = await uploadBody(app, gina, dispositionOf('three.bin'), Buffer.alloc(MiB, 3));
      expect(overQuota.status).toBe(413);
      expect(overQuota.body.message).toContain('FILES_MAX_TOTAL_BYTES_PER_USER');
      expect(await snapshot()).toEqual(full);
      expect((await uploadBody(app, gina, dispositionOf('half.bin'), Buffer.alloc(MiB / 2, 4))).status).toBe(201);
    });

    it('keeps nothing of an upload whose client hangs up midway, or stops short of its Content-Length', async () => {
      const before = await snapshot();
      await new Promise<void>((resolve) => {
        const request = httpRequest(new URL('/api/files/raw', app.url), {
          method: 'POST',
          headers: {
            authorization: `Bearer ${alice}`,
            'content-type': 'application/octet-stream',
            ...dispositionOf('cut.bin'),
            'content-length': String(900 * 1024),
          },
        });
        request.on('error', () => resolve());
        request.write(Buffer.alloc(300 * 1024, 9), () => setTimeout(() => request.destroy(), 100));
        request.on('close', () => resolve());
      });
      // Ends its side of the connection after 5 of the 1000 bytes it announced.
      await rawRequest(
        `POST /api/files/raw HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${alice}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="short.txt"\r\nContent-Length: 1000`,
        'hello',
        { endsEarly: true },
      );
      await settles(async () => {
        expect(await snapshot()).toEqual(before);
      });
    });

    it('answers 415 to a body that is not application/octet-stream, and leaves the multipart route as it was', async () => {
      const before = await snapshot();
      for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/json']) {
        const answer = await uploadBody(app, alice, { ...dispositionOf('x.txt'), 'content-type': type }, type === 'application/json' ? '{}' : 'hello');
        expect([type, answer.status]).toEqual([type, 415]);
      }
      expect(await snapshot()).toEqual(before);
      expect((await uploadFile(app, alice, 'still.txt', 'multipart still works')).status).toBe(201);
    });
  });

  it('lists by time or name, a page at a time, filtered by type', async () => {
    const dave = await cliToken(app, env, '--sub', 'dave');
    for (const [name, content] of [
      ['b.txt', 'b'],
      ['a.md', '# a'],
      ['c.csv', 'c,1'],
    ] as const)
      await uploadFile(app, dave, name, content);
    const byTime = await call(app, 'GET', '/api/files', dave);
    expect(byTime.body.items.map((item: { filename: string }) => item.filename)).toEqual(['c.csv', 'a.md', 'b.txt']);
    const first = await call(app, 'GET', '/api/files?sort=name&limit=2', dave);
    expect(first.body.items.map((item: { filename: string }) => item.filename)).toEqual(['a.md', 'b.txt']);
    const second = await call(app, 'GET', `/api/files?sort=name&limit=2&cursor=${first.body.nextCursor}`, dave);
    expect(second.body).toEqual({ items: [expect.objectContaining({ filename: 'c.csv' })], nextCursor: null });
    expect((await call(app, 'GET', '/api/files?mime=text/csv', dave)).body.items).toHaveLength(1);
    expect((await call(app, 'GET', '/api/files?mime=text/*', dave)).body.items).toHaveLength(3);
    expect((await call(app, 'GET', '/api/files?mime=image/*', dave)).body.items).toHaveLength(0);
    for (const [query, field] of [
      ['sort=size', 'sort'],
      ['mime=text', 'mime'],
      ['limit=0', 'limit'],
      ['cursor=nonsense', 'cursor'],
      [`sort=time&cursor=${first.body.nextCursor}`, 'cursor'],
    ]) {
      const answer = await call(app, 'GET', `/api/files?${query}`, dave);
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.fields ?? {})).toContain(field);
    }
  });

  it('lets admins list, delete one, and erase all of a user’s files with their objects', async () => {
    const erin = await cliToken(app, env, '--sub', 'erin');
    const keys = [];
    for (const name of ['1.txt', '2.txt', '3.txt']) keys.push((await uploadFile(app, erin, name, name)).body.fileKey as string);
    const erinId = await userIdOf(app, 'erin');
    const base = `/admin/users/${erinId}/files`;
    expect((await call(app, 'GET', base, erin)).status).toBe(403);
    expect((await call(app, 'GET', base)).status).toBe(401);
    expect((await call(app, 'GET', '/admin/users/not-a-uuid/files', admin)).status).toBe(400);
    expect((await call(app, 'GET', base, admin)).body.items).toHaveLength(3);
    expect((await call(app, 'DELETE', `${base}/${keys[0]}`, admin)).status).toBe(204);
    expect((await call(app, 'DELETE', `${base}/${keys[0]}`, admin)).status).toBe(404);
    const before = (await stored()).length;
    expect((await call(app, 'DELETE', base, admin)).body).toEqual({ deleted: 2 });
    expect(await stored()).toHaveLength(before - 2);
    expect((await call(app, 'GET', '/api/files', erin)).body.items).toEqual([]);
  });

  it('serves signed links (local disk) only while they are genuine and unexpired', async () => {
    if (backend === 'S3') return;
    const { body } = await uploadFile(app, alice, 'photo.bin', Buffer.from([1, 2, 3, 4]));
    const [row] = (await fileRows(app)).filter((file) => file.file_key === body.fileKey);
    const signer = app.app.get(Signer).forPurpose('file-url');
    const good = await call(app, 'GET', `/files/signed/${signer.sign(row!.object_key, new Date(Date.now() + 60_000))}`);
    expect(good.status).toBe(200);
    expect([...good.bytes]).toEqual([1, 2, 3, 4]);
    expect((await call(app, 'GET', `/files/signed/${signer.sign(row!.object_key, new Date(Date.now() - 1000))}`)).status).toBe(403);
    const token = signer.sign(row!.object_key, new Date(Date.now() + 60_000));
    const tampered = token.replace(/^./, (first) => (first === 'A' ? 'B' : 'A'));
    expect((await call(app, 'GET', `/files/signed/${tampered}`)).status).toBe(403);
    expect((await call(app, 'GET', `/files/signed/${app.app.get(Signer).forPurpose('other').sign(row!.object_key)}`)).status).toBe(403);
    expect((await call(app, 'GET', '/files/signed/garbage')).status).toBe(403);
    await call(app, 'DELETE', `/api/files/${body.fileKey}`, alice);
    expect((await call(app, 'GET', `/files/signed/${token}`)).status).toBe(403);
  });

  it('is part of the user’s data: exported with download links, counted, erased with the objects', async () => {
    const frank = await cliToken(app, env, '--sub', 'frank');
    await uploadFile(app, frank, 'mine.txt', 'frank data');
    const frankId = await userIdOf(app, 'frank');
    const files = app.app
      .get(UserDataContributors)
      .all()
      .find((entry) => entry.name === 'files')!.contributor;
    expect(await files.countFor(frankId)).toBe(1);
    expect(await files.exportFor(frankId)).toEqual([
      expect.objectContaining({ filename: 'mine.txt', extractedText: 'frank data', download: { url: expect.any(String), expiresAt: expect.any(String) } }),
    ]);
    const before = (await stored()).length;
    await files.eraseFor(frankId);
    await files.eraseFor(frankId);
    expect(await files.countFor(frankId)).toBe(0);
    expect(await stored()).toHaveLength(before - 1);
  });

  it('is described in the OpenAPI document', async () => {
    const { paths } = (await call(app, 'GET', '/openapi.json')).body as { paths: Record<string, object> };
    for (const path of [
      '/api/files',
      '/api/files/raw',
      '/api/files/{key}',
      '/api/files/{key}/content',
      '/admin/users/{userId}/files',
      '/admin/users/{userId}/files/{key}',
      '/files/signed/{token}',
    ]) {
      expect(Object.keys(paths)).toContain(path);
    }
    const raw = (paths['/api/files/raw'] as { post: { requestBody: { content: object }; parameters: object[] } }).post;
    expect(Object.keys(raw.requestBody.content)).toEqual(['application/octet-stream']);
    expect(raw.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'content-disposition', in: 'header', required: true }),
        expect.objectContaining({ name: 'content-length', in: 'header', required: true }),
      ]),
    );
  });

  it('has a schema that matches its entity', async () => {
    const pending = await app.app.get(DataSource).driver.createSchemaBuilder().log();
    expect(pending.upQueries.filter((query) => /\bfiles\b/.test(query.query))).toEqual([]);
  });
});
