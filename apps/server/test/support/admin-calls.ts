import { expect } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer } from './auth.js';
import type { RunningApp } from './test-app.js';

/** An answer of a REST route: its status, headers and text, and the text as JSON when it is JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A request to the app's REST routes, with a bearer credential unless it is undefined. */
export async function restCall(running: RunningApp, method: string, path: string, credential?: string): Promise<Answer> {
  const response = await fetch(new URL(path, running.url), { method, headers: credential ? bearer(credential) : {} });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Anonymous callers get 401 and a signed-in user without the admin role 403, before anything else is looked at. */
export async function expectAdminOnly(running: RunningApp, method: string, path: string, nonAdmin: string): Promise<void> {
  const anonymous = await restCall(running, method, path);
  const user = await restCall(running, method, path, nonAdmin);
  expect({ route: `${method} ${path}`, anonymous: anonymous.status, user: user.status }).toEqual({ route: `${method} ${path}`, anonymous: 401, user: 403 });
}

/** The 400 of a bad query or path: the names of the fields it reports. */
export async function refusedFields(running: RunningApp, method: string, path: string, credential: string): Promise<unknown> {
  const answer = await restCall(running, method, path, credential);
  return { path, status: answer.status, fields: Object.keys(answer.json?.fields ?? {}) };
}

/** Makes the user of `credential` exist (its first valid token) and returns their id. */
export async function userIdOf(running: RunningApp, credential: string): Promise<string> {
  const answer = await restCall(running, 'GET', '/api/me/export', credential);
  expect(answer.status).toBe(200);
  return answer.json.userId;
}

export const sql = (running: RunningApp, query: string, parameters: unknown[] = []): Promise<any[]> => running.app.get(DataSource).query(query, parameters);

/** Reads RFC 4180 CSV (quoted fields, doubled quotes, CRLF records) into rows of cells; anything else throws. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted && char === '"' && text[index + 1] === '"') {
      cell += '"';
      index++;
    } else if (char === '"' && (quoted || cell === '')) {
      quoted = !quoted;
    } else if (quoted) {
      cell += char;
    } else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      rows.push([...row, cell]);
      row = [];
      cell = '';
      index++;
    } else if (char === '"' || char === '\n' || char === '\r') {
      throw new Error(`A bare ${JSON.stringify(char)} at ${index}: not RFC 4180`);
    } else {
      cell += char;
    }
  }
  if (quoted || cell || row.length) throw new Error('The CSV does not end with a complete record');
  return rows;
}
