import { bearer } from './auth.js';
import type { RunningApp } from './test-app.js';

/** A JSON request to the app's REST routes, with a bearer token unless `token` is undefined; the answer's body parsed. */
export async function jsonCall(app: RunningApp, method: string, path: string, token: string | undefined, body?: unknown) {
  const response = await fetch(new URL(path, app.url), {
    method,
    headers: { ...(token ? bearer(token) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
