import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** Methods that change nothing: every other one carries the session's CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

let csrfToken: string | null = null;

/** The session's CSRF token (from `GET /api/console/session`), sent with every request that may change something. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const sendCsrfToken: Middleware = {
  onRequest({ request }) {
    if (csrfToken && !SAFE_METHODS.has(request.method)) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
};

/** The REST API, typed from the server's own OpenAPI document (schema.ts): a route that changes shape fails the type check. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(sendCsrfToken);

/** A refused or failed request, with what the server said and the request id its logs know it by. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId: string | null,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's body, or an `ApiError` (thrown) naming the problem and the request id. */
export async function unwrap<T>(request: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.', null);
  }
  const { data, error, response } = answer;
  if (response.ok) return data as T;
  const body = (error ?? {}) as { message?: unknown; fields?: unknown };
  const message = typeof body.message === 'string' ? body.message : `${response.status} ${response.statusText}`;
  const fields = body.fields && typeof body.fields === 'object' ? (body.fields as Record<string, string>) : {};
  throw new ApiError(response.status, message, response.headers.get('x-request-id'), fields);
}

/** A download of a REST answer (a CSV, an export) under the name the server gives it. */
export async function download(path: string, fallbackName: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.', null);
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    throw new ApiError(response.status, body.message ?? response.statusText, response.headers.get('x-request-id'));
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}
