import { expect } from '@jest/globals';
import { runCli } from '../../src/cli.js';
import type { RunningApp } from './test-app.js';

/** A console session from a one-time link: the cookie a browser would keep, and the CSRF token the console reads. */
export interface ConsoleSignIn {
  cookie: string;
  csrfToken: string;
  /** Headers of a request the console's page makes: the cookie, its origin, the CSRF token. */
  headers: Record<string, string>;
}

export const appOrigin = (app: RunningApp) => app.url.origin;

/** The token of a one-time link, printed by the operators' CLI as an operator would get it (`console-link`). */
export async function linkToken(app: RunningApp, env: Record<string, string>, ...args: string[]): Promise<string> {
  const url = new URL(await runCli(['console-link', ...args], { ...env, DATA_DIR: app.dataDir }));
  expect(url.pathname).toBe('/console/sign-in/link');
  return url.hash.slice(1);
}

/** POST /console/sign-in/link as the console's sign-in page sends it. */
export function redeemLink(app: RunningApp, token: string, headers: Record<string, string> = { origin: appOrigin(app) }): Promise<Response> {
  return fetch(new URL('/console/sign-in/link', app.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ token }),
  });
}

/** Signs in through a one-time link for the user the CLI options name (`--email`, `--admin`, ...). */
export async function signInByLink(app: RunningApp, env: Record<string, string>, ...args: string[]): Promise<ConsoleSignIn> {
  const response = await redeemLink(app, await linkToken(app, env, ...args));
  expect(response.status).toBe(204);
  const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
  const session = await fetch(new URL('/api/console/session', app.url), { headers: { cookie } });
  expect(session.status).toBe(200);
  const { csrfToken } = (await session.json()) as { csrfToken: string };
  return { cookie, csrfToken, headers: { cookie, origin: appOrigin(app), 'x-csrf-token': csrfToken } };
}
