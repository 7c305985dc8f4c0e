import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll } from '@jest/globals';
import { startS3TestServer, type S3TestServer } from '../../../../libs/files/test/s3-test-server.js';
import type { RunningApp } from './test-app.js';

export interface UploadAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** POST /api/files with one part named `file` (or `field`). */
export async function uploadFile(
  app: RunningApp,
  token: string | undefined,
  filename: string,
  content: Buffer | string,
  options: { type?: string; field?: string } = {},
): Promise<UploadAnswer> {
  const form = new FormData();
  form.append(
    options.field ?? 'file',
    new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type: options.type ?? 'application/octet-stream' }),
    filename,
  );
  const response = await fetch(new URL('/api/files', app.url), { method: 'POST', body: form, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** POST /api/files with a hand-written multipart body, for filenames and part types a browser's FormData would escape or drop. */
export async function uploadRaw(app: RunningApp, token: string, rawFilename: string, content: string, partType = 'text/plain'): Promise<UploadAnswer> {
  const boundary = 'raw-boundary-7d1f';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${rawFilename}"\r\nContent-Type: ${partType}\r\n\r\n`, 'utf8'),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const response = await fetch(new URL('/api/files', app.url), {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** POST /api/files with a hand-written multipart body of these parts (a file part has a filename); `unfinished` leaves out the closing boundary. */
export async function uploadParts(
  app: RunningApp,
  token: string,
  parts: { name: string; filename?: string; content: string }[],
  options: { unfinished?: boolean } = {},
): Promise<UploadAnswer> {
  const boundary = 'parts-boundary-51c2';
  const body =
    parts
      .map(
        ({ name, filename, content }) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"\r\nContent-Type: text/plain`}\r\n\r\n${content}\r\n`,
      )
      .join('') + (options.unfinished ? `--${boundary}` : `--${boundary}--\r\n`);
  const response = await fetch(new URL('/api/files', app.url), {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** POST /api/files/raw: the file is the body; the headers (Content-Disposition naming it among them) are the caller's to choose. */
export async function uploadBody(app: RunningApp, token: string | undefined, headers: Record<string, string>, content: Buffer | string): Promise<UploadAnswer> {
  const response = await fetch(new URL('/api/files/raw', app.url), {
    method: 'POST',
    body: typeof content === 'string' ? content : new Uint8Array(content),
    headers: { 'content-type': 'application/octet-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** `attachment; filename*=UTF-8''…`: any name, percent-encoded as RFC 8187 says. */
export const dispositionOf = (filename: string) => ({ 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(filename)}` });

/** A request to the app with an optional bearer token; the body is parsed when it is JSON. */
export async function call(app: RunningApp, method: string, path: string, token?: string, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, app.url), { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
  const bytes = Buffer.from(await response.arrayBuffer());
  const isJson = response.headers.get('content-type')?.includes('application/json');
  return { status: response.status, headers: response.headers, bytes, body: isJson && bytes.length ? JSON.parse(bytes.toString()) : undefined };
}

/** Everything the local-disk backend holds, objects and half-written uploads alike. */
export function localFilesOnDisk(app: RunningApp): string[] {
  try {
    return readdirSync(join(app.dataDir, 'files'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

export async function fileRows(app: RunningApp): Promise<{ user_id: string; file_key: string; object_key: string }[]> {
  return app.app.get(DataSource).query('SELECT user_id, file_key, object_key FROM files ORDER BY created_at');
}

/** The internal id of the user a token's subject became. */
export async function userIdOf(app: RunningApp, subject: string): Promise<string> {
  const [row] = await app.app.get(DataSource).query('SELECT id FROM users WHERE subject = $1', [subject]);
  return row.id;
}

/**
 * `eventually`, then the same check once more a moment later: after a client hangs up, the server
 * may not yet have opened the upload's temporary file when the first check runs, so a first pass
 * alone could come before the state it is meant to see the end of.
 */
export async function settles(check: () => Promise<void> | void): Promise<void> {
  await eventually(check);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await eventually(check);
}

/** Polls `check` until it passes or `withinMs` (two seconds) have gone by (the server finishes a cut upload asynchronously). */
export async function eventually(check: () => Promise<void> | void, withinMs = 2000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The app's S3_* keys for the test S3 server, each suite's objects under a prefix of its own. */
export function s3Environment(s3: S3TestServer, prefix: string): Record<string, string> {
  return {
    S3_BUCKET: s3.options.bucket,
    S3_ENDPOINT: s3.options.endpoint!,
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: s3.options.accessKeyId!,
    S3_SECRET_ACCESS_KEY: s3.options.secretAccessKey!,
    S3_PREFIX: `${prefix}-${process.pid}/`,
  };
}

/**
 * The storage backends a files suite runs on, for `describe.each`: local disk, and S3 on a test
 * server the suite starts and stops (its objects under `prefix`); with the app's environment for
 * each, and the S3 test server itself (undefined for local disk).
 */
export function fileBackends(prefix: string): [string, () => Record<string, string>, () => S3TestServer | undefined][] {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3TestServer();
  });
  afterAll(async () => {
    await s3.close();
  });
  return [
    ['local disk', () => ({}), () => undefined],
    ['S3', () => s3Environment(s3, prefix), () => s3],
  ];
}
