import { signHs256, TEST_JWT_SECRET } from './auth.js';
import { rawRequest } from './raw-http.js';
import type { RunningApp } from './test-app.js';

/** The settings of an app whose every route is walked: no rate limit cuts the walk short. */
export const WALK_ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };

export interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
}

/** A JSON schema as the document gives it, `$ref`s resolved. */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  $ref?: string;
}

/** One operation of `/openapi.json`. */
export interface Operation {
  method: string;
  /** As documented: `/api/files/{key}`. */
  path: string;
  parameters: Parameter[];
  /** The media types of its request body (none for a route without one). */
  bodyTypes: string[];
  /** The schema of its JSON body, if it takes one. */
  jsonBody?: Schema;
  /** Whether it takes a credential (`security`): without one, nothing past the guard runs. */
  secured: boolean;
}

/** Every operation of the app's OpenAPI document. */
export async function readOperations(running: RunningApp): Promise<Operation[]> {
  const document = (await (await fetch(new URL('/openapi.json', running.url))).json()) as {
    paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema?: Schema }> }; security?: unknown[] }>>;
    components?: { schemas?: Record<string, Schema> };
  };
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? document.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')] : schema;
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => {
      const content = operation.requestBody?.content ?? {};
      const jsonBody = resolve(content['application/json']?.schema);
      return {
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []).map(({ in: where, name }) => ({ in: where, name })),
        bodyTypes: Object.keys(content),
        ...(jsonBody ? { jsonBody } : {}),
        secured: (operation.security ?? []).length > 0,
      };
    }),
  );
}

/**
 * The request target of `operation` with each path parameter and the query as given, already
 * percent-encoded (so that a hostile spelling goes out exactly as written).
 */
export function targetOf(operation: Operation, pathValues: (name: string) => string, query: [string, string][] = []): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => pathValues(name));
  return query.length ? `${path}?${query.map(([name, value]) => `${name}=${value}`).join('&')}` : path;
}

/** A caller of the walk: a name to report and the credential headers it sends. */
export interface Caller {
  name: string;
  headers: Record<string, string>;
}

/** A user with a verified address (invitations need one), an admin, and an anonymous caller. */
export async function walkCallers(): Promise<{ user: Caller; admin: Caller; anonymous: Caller }> {
  const token = (sub: string, extra: Record<string, unknown> = {}) =>
    signHs256(TEST_JWT_SECRET, { sub, email: `${sub}@example.com`, email_verified: true, ...extra });
  return {
    user: { name: 'user', headers: { authorization: `Bearer ${await token('walker')}` } },
    admin: { name: 'admin', headers: { authorization: `Bearer ${await token('walker-admin', { roles: ['admin'] })}` } },
    anonymous: { name: 'anonymous', headers: {} },
  };
}

/** The id of `caller`'s account, made by its first request. */
export async function userIdOf(running: RunningApp, caller: Caller, admin: Caller): Promise<string> {
  const sub = JSON.parse(Buffer.from(caller.headers.authorization!.split('.')[1]!, 'base64url').toString()).sub as string;
  await rawRequest(running.url, '/api/mcp-secrets', { method: 'GET', headers: caller.headers });
  const found = await rawRequest(running.url, `/admin/users?q=${encodeURIComponent(sub)}`, { method: 'GET', headers: admin.headers });
  return (JSON.parse(found.text).items as { id: string; subject: string }[]).find((user) => user.subject === sub)!.id;
}

/** Runs `work` on every item, `concurrency` at a time, in order of start. */
export async function eachConcurrently<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
