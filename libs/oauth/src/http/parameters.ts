import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../authorization/oauth-error.js';
import type { OAuthParameters } from '../authorization/authorization.service.js';

/**
 * A request's OAuth parameters (the query of `/authorize`, the form of `/token`): RFC 6749 §3.1
 * says none may be sent twice, so a repeated one is refused rather than one of them picked.
 */
export function oauthParameters(source: unknown): OAuthParameters {
  if (source === undefined || source === null) return {};
  if (typeof source !== 'object') throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded');
  const parameters: OAuthParameters = {};
  for (const [name, value] of Object.entries(source)) {
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} is given more than once`);
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be text`);
    // Stored or compared as they come: PostgreSQL text holds no NUL, and half a surrogate pair is no character.
    if (value.includes('\u0000') || !value.isWellFormed()) throw new OAuthError('invalid_request', `${name} holds a NUL character or half a surrogate pair`);
    // RFC 6749 §3.1: an empty parameter is treated as absent.
    if (value !== '') parameters[name] = value;
  }
  return parameters;
}

/**
 * The cookies of a request, by name, as they were sent. Only this lib's sign-in cookies are read,
 * whose values are base64url and never escaped; so nothing is decoded, and another site's cookie
 * for this host (`theme=100%`) cannot stop a sign-in.
 */
export function requestCookies(request: FastifyRequest): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0) cookies[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return cookies;
}

/** RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined for HTTP Basic. */
function formDecoded(text: string, what: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new OAuthError('invalid_client', `The Basic credentials' ${what} is not form-encoded (a % not followed by two hexadecimal digits)`, 401);
  }
}

/** The client credentials of a `/token` or `/revoke` request: HTTP Basic (RFC 6749 §2.3.1) or the form. */
export function clientCredentials(request: FastifyRequest, form: OAuthParameters) {
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'The Basic credentials are not client_id:client_secret', 401);
    if (form.client_secret) throw new OAuthError('invalid_request', 'Send the client secret one way only: Basic or client_secret', 400);
    const clientId = formDecoded(decoded.slice(0, colon), 'client id');
    const secret = formDecoded(decoded.slice(colon + 1), 'secret');
    if (form.client_id && form.client_id !== clientId) throw new OAuthError('invalid_request', 'client_id differs from the Basic credentials');
    return { clientId, secret, method: 'client_secret_basic' as const };
  }
  if (form.client_secret) return { clientId: form.client_id, secret: form.client_secret, method: 'client_secret_post' as const };
  return { clientId: form.client_id, method: 'none' as const };
}
