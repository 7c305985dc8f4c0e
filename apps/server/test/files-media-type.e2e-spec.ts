import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { call, dispositionOf, fileRows, uploadBody, uploadFile, uploadRaw, userIdOf } from './support/files.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * A file's type is a media type (RFC 9110) whatever the client declared: a declared type that is
 * none is ignored in favour of detection, and one stored before that rule (`text/evil\x01`, which
 * no header can carry; its download answered 500) is served as application/octet-stream.
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, FILES_OCR: 'off' };
const NOT_A_TYPE = 'text/evil\u0001';
const OCTET_STREAM = 'application/octet-stream';

let app: RunningApp;
let alice: string;
let bob: string;

beforeAll(async () => {
  app = await startApp(ENV);
  [alice, bob] = await Promise.all([cliToken(app, ENV, '--sub', 'alice'), cliToken(app, ENV, '--sub', 'bob')]);
});
afterAll(async () => {
  await app?.close();
});

/** The file's download as its owner, another user and an anonymous caller see it. */
async function downloads(fileKey: string) {
  const path = `/api/files/${fileKey}/content`;
  return { own: await call(app, 'GET', path, alice), other: (await call(app, 'GET', path, bob)).status, anonymous: (await call(app, 'GET', path)).status };
}

const asAlice = <T>(work: (client: Client) => Promise<T>) => withClient(app.url, '2025-11-25', bearer(alice), work);

describe('the Content-Type of a multipart upload’s file part', () => {
  // The file is named without an extension, so that the declared type is the only hint besides the content.
  it.each([
    [NOT_A_TYPE, 'a control character', 'text/plain'],
    ['text/', 'no subtype', 'text/plain'],
    ['text/csv, text/html', 'two types', 'text/plain'],
    ['TEXT/CSV; Charset="UTF-8"', 'a media type, in upper case with a parameter', 'text/csv'],
  ])('%j (%s) is stored as %s, which downloads', async (declared, _what, stored) => {
    const uploaded = await uploadRaw(app, alice, 'labs', 'Ferritin,87\n', declared);
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.mime).toBe(stored);
    const { own, other, anonymous } = await downloads(uploaded.body.fileKey as string);
    expect([own.status, own.headers.get('content-type'), own.bytes.toString()]).toEqual([200, stored, 'Ferritin,87\n']);
    expect([other, anonymous]).toEqual([404, 401]);
  });
});

describe('the Content-Type of a raw upload', () => {
  const upload = (contentType: string) => uploadBody(app, alice, { 'content-type': contentType, ...dispositionOf('labs.csv') }, 'Ferritin,87\n');

  it('is read as a media type: one with a malformed parameter is 415 naming the header, and nothing is kept', async () => {
    const aliceId = await userIdOf(app, 'alice');
    const before = (await fileRows(app)).filter((row) => row.user_id === aliceId).length;
    const refused = await upload(`${OCTET_STREAM}; charset`);
    expect(refused).toEqual({
      status: 415,
      body: expect.objectContaining({ statusCode: 415, message: expect.stringContaining('Content-Type') }),
    });
    expect((await fileRows(app)).filter((row) => row.user_id === aliceId)).toHaveLength(before);
  });

  it('takes application/octet-stream in any case and with parameters', async () => {
    const taken = await upload('Application/Octet-Stream; charset=binary');
    expect([taken.status, taken.body.mime]).toEqual([201, 'text/csv']);
  });
});

describe('a type stored before declared types were parsed', () => {
  let textKey: string;
  let binaryKey: string;

  beforeAll(async () => {
    textKey = (await uploadFile(app, alice, 'legacy.txt', 'Ferritin 87 ng/mL', { type: 'text/plain' })).body.fileKey as string;
    binaryKey = (await uploadFile(app, alice, 'legacy.bin', Buffer.from([0, 159, 146, 150, 1, 2]))).body.fileKey as string;
    await app.app.get(DataSource).query('UPDATE files SET mime = $1 WHERE file_key IN ($2, $3)', [NOT_A_TYPE, textKey, binaryKey]);
  });

  it('downloads as application/octet-stream, to its owner only', async () => {
    const { own, other, anonymous } = await downloads(textKey);
    expect([own.status, own.headers.get('content-type'), own.bytes.toString()]).toEqual([200, OCTET_STREAM, 'Ferritin 87 ng/mL']);
    expect([other, anonymous]).toEqual([404, 401]);
    expect((await call(app, 'GET', `/api/files/${textKey}`, alice)).body.mime).toBe(OCTET_STREAM);
  });

  it('reaches the model as a type, and its signed link downloads', async () => {
    const [text, binary] = await asAlice(async (client) => [
      await structured(client, 'read_file', { file_key: textKey }),
      await structured(client, 'read_file', { file_key: binaryKey }),
    ]);
    expect(text).toEqual({ filename: 'legacy.txt', mime: 'text/plain', content: 'Ferritin 87 ng/mL' });
    expect(binary).toEqual(expect.objectContaining({ filename: 'legacy.bin', mime: OCTET_STREAM, url: expect.any(String) }));
    const link = new URL(binary.url as string);
    const signed = await call(app, 'GET', link.pathname);
    expect([signed.status, signed.headers.get('content-type'), [...signed.bytes]]).toEqual([200, OCTET_STREAM, [0, 159, 146, 150, 1, 2]]);
    const listed = (await asAlice((client) => structured(client, 'list_files'))) as { files: { file_key: string; mime: string }[] };
    const listedTypes = Object.fromEntries(listed.files.map((file) => [file.file_key, file.mime]));
    expect(listedTypes).toEqual(expect.objectContaining({ [textKey]: 'text/plain', [binaryKey]: OCTET_STREAM }));
    const bobsRead = await withClient(app.url, '2025-11-25', bearer(bob), (client) => client.callTool({ name: 'read_file', arguments: { file_key: textKey } }));
    expect(bobsRead.isError).toBe(true);
  });
});
