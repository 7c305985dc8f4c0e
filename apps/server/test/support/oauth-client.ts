import { createHash, randomBytes } from 'node:crypto';
import { signInHeadless, type HeadlessSignInSteps } from './headless-browser.js';
import type { TestIdentityProvider } from './identity-provider.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './test-app.js';

/** A loopback redirect URI nobody listens on: the browser's arrival there is caught, never loaded. */
export const REDIRECT = 'http://127.0.0.1:43117/callback';

/** The app in builtin mode, signing users in at `idp` (which learns the app's callback). */
export async function startBuiltinApp(idp: TestIdentityProvider, env: Record<string, string> = {}): Promise<RunningApp> {
  const running = await startApp({ OAUTH_MODE: 'builtin', OAUTH_ALLOW_INSECURE_DEV: 'true', ...idp.env, ...env });
  idp.admit(`${running.url.origin}/oauth/callback`);
  return running;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  json(): any;
}

export async function send(running: RunningApp, path: string, init: RequestInit = {}): Promise<HttpAnswer> {
  const response = await fetch(new URL(path, running.url), { redirect: 'manual', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}

export const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
});

export const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

/** Registers a client (RFC 7591); public unless the metadata says otherwise. */
export async function register(running: RunningApp, metadata: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret?: string }> {
  const answer = await send(running, '/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
  });
  if (answer.status !== 201) throw new Error(`Registration refused: ${answer.status} ${answer.text}`);
  return answer.json();
}

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export function authorizeUrl(running: RunningApp, clientId: string, challenge: string, extra: Record<string, string> = {}): URL {
  const url = new URL('/authorize', running.url);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st4te',
    resource: `${running.url.origin}/mcp`,
    ...extra,
  }).toString();
  return url;
}

/** A code for `clientId`, signed in (headless) at `idp` as `steps.login`, with its PKCE verifier. */
export async function freshCode(
  running: RunningApp,
  idp: TestIdentityProvider,
  clientId: string,
  steps: HeadlessSignInSteps,
): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const callback = await signInHeadless(idp, authorizeUrl(running, clientId, challenge), REDIRECT, steps);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`No code: ${callback.href}`);
  return { code, verifier };
}

export const redeem = (running: RunningApp, clientId: string, code: string, verifier: string) =>
  send(running, '/token', form({ grant_type: 'authorization_code', client_id: clientId, redirect_uri: REDIRECT, code, code_verifier: verifier }));

export const refresh = (running: RunningApp, clientId: string, refreshToken: string) =>
  send(running, '/token', form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken }));

/** Signs `login` in through the whole flow: the tokens a public client gets. */
export async function connectedTokens(running: RunningApp, idp: TestIdentityProvider, clientId: string, login: string) {
  const { code, verifier } = await freshCode(running, idp, clientId, { login });
  const answer = await redeem(running, clientId, code, verifier);
  if (answer.status !== 200) throw new Error(`The code was refused: ${answer.text}`);
  return answer.json() as { access_token: string; refresh_token: string; scope: string };
}

/** A tool call over raw HTTP with `accessToken`: its HTTP status and, when it answered, its structured result. */
export async function callTool(running: RunningApp, accessToken: string, name: string, args: Record<string, unknown> = {}) {
  const answer = await postRaw(running.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }), {
    ...JSON_HEADERS,
    authorization: `Bearer ${accessToken}`,
  });
  return { status: answer.status, result: answer.status === 200 ? (answer.json().result?.structuredContent as Record<string, unknown>) : undefined };
}

/** The roles the server gives the caller of `accessToken` (the probe tool `my_roles`). */
export async function rolesOf(running: RunningApp, accessToken: string): Promise<string[]> {
  const { status, result } = await callTool(running, accessToken, 'my_roles');
  if (status !== 200) throw new Error(`my_roles answered ${status}`);
  return result!.roles as string[];
}

/** The user id an access token of this server stands for (its `sub`). */
export const userIdOf = (accessToken: string): string => JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).sub;
