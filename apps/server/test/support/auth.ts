import { expect } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { SignJWT, type JWTPayload } from 'jose';
import { runCli } from '../../src/cli.js';
import { connectClient, type Era, type RunningApp } from './test-app.js';

/** An HS256 secret for apps under test, long enough for the config check. */
export const TEST_JWT_SECRET = 'a-test-jwt-secret-of-at-least-32-characters';

/** A token from the operators' CLI, for an app started with `env`. */
export function cliToken(app: RunningApp, env: Record<string, string>, ...args: string[]): Promise<string> {
  return runCli(['token', ...args], { ...env, DATA_DIR: app.dataDir });
}

/** A hand-made HS256 token, for the cases the CLI would never produce. */
export function signHs256(secret: string, claims: JWTPayload, header: { alg?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 600, ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...header })
    .sign(new TextEncoder().encode(secret));
}

/** An unsigned token (`alg: none`), as an attacker would send it. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ iat: now, exp: now + 600, ...claims })}.`;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Connects, runs `work`, and closes the client whatever happens. */
export async function withClient<T>(url: URL, era: Era, headers: Record<string, string>, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectClient(url, era, headers);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** A tool call's error text, failing the test when the call succeeds. */
export async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  return (result.content as { text: string }[])[0]!.text;
}

/** A tool call's structured result, failing the test on a tool error. */
export async function structured(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}
