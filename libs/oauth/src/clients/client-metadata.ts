import { isLoopback, parseUrl } from '@app/common';
import type { ClientAuthMethod } from './registered-client.entity.js';

/** An RFC 7591 error: `invalid_redirect_uri` or `invalid_client_metadata`, with what was wrong. */
export class ClientMetadataError extends Error {
  constructor(
    readonly code: 'invalid_redirect_uri' | 'invalid_client_metadata',
    message: string,
  ) {
    super(message);
  }
}

/** A client as `/authorize` and `/token` see it, registered (DCR) or described by its own document (CIMD). */
export interface OAuthClient {
  id: string;
  name: string;
  /** True for a CIMD client: its id is an https URL its owner serves, so its name comes with its host name. */
  verified: boolean;
  redirectUris: string[];
  authMethod: ClientAuthMethod;
  /** The hash of a confidential DCR client's secret. */
  secretHash?: string;
}

/** What a client may ask for when it registers: the rest of RFC 7591's fields are not used and are ignored. */
export interface ClientRegistration {
  clientName: string;
  clientUri: string | null;
  redirectUris: string[];
  authMethod: ClientAuthMethod;
}

const AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];
/** Schemes a redirect must never use: they run code or read files in the browser rather than hand the code to an app. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ws:', 'wss:', 'ftp:']);
const MAX_REDIRECT_URIS = 10;
const MAX_TEXT = 200;

/** A name with a line break or other control character could fake lines on the consent page. */
const hasControlCharacter = (text: string) => [...text].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f);

const loopbackHost = (url: URL) => isLoopback(url.hostname.replace(/^\[|\]$/g, ''));

/**
 * A redirect URI a client may register (OAuth 2.1 §2.3, RFC 8252): absolute, without a fragment;
 * https anywhere, http only to this machine (a native app's loopback listener), or an app's own
 * scheme (`cursor://`), never one that runs code or reads files.
 */
export function checkRedirectUri(raw: unknown): string {
  if (typeof raw !== 'string' || !raw) throw new ClientMetadataError('invalid_redirect_uri', 'each redirect URI must be a non-empty string');
  const url = parseUrl(raw);
  if (!url) throw new ClientMetadataError('invalid_redirect_uri', `"${raw}" is not an absolute URL`);
  if (url.hash || raw.includes('#')) throw new ClientMetadataError('invalid_redirect_uri', `"${raw}" has a fragment, which a redirect URI must not`);
  if (FORBIDDEN_SCHEMES.has(url.protocol)) throw new ClientMetadataError('invalid_redirect_uri', `"${raw}" uses ${url.protocol}, which is not allowed`);
  if (url.protocol === 'http:' && !loopbackHost(url))
    throw new ClientMetadataError(
      'invalid_redirect_uri',
      `"${raw}" is plain http to another machine: use https, or http only to 127.0.0.1, [::1] or localhost`,
    );
  return raw;
}

/**
 * Exact string match (OAuth 2.1 §4.1.3), with the one exception OAuth 2.1 §8.4.2 and RFC 8252 §7.3
 * require: a loopback http redirect may name any port, since a native app gets its port when it starts.
 */
export function redirectUriAllowed(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const asked = parseUrl(requested);
  if (!asked || asked.protocol !== 'http:' || !loopbackHost(asked)) return false;
  return registered.some((candidate) => {
    const known = parseUrl(candidate);
    if (!known || known.protocol !== 'http:' || !loopbackHost(known)) return false;
    const portless = (url: URL) => `${url.protocol}//${url.hostname}${url.pathname}${url.search}`;
    return portless(known) === portless(asked) && !asked.hash;
  });
}

function redirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new ClientMetadataError('invalid_redirect_uri', 'redirect_uris must be a non-empty list');
  if (value.length > MAX_REDIRECT_URIS) throw new ClientMetadataError('invalid_redirect_uri', `redirect_uris may hold at most ${MAX_REDIRECT_URIS} URIs`);
  return value.map(checkRedirectUri);
}

function optionalText(document: Record<string, unknown>, field: string): string | undefined {
  const value = document[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > MAX_TEXT || hasControlCharacter(value))
    throw new ClientMetadataError('invalid_client_metadata', `${field} must be text of at most ${MAX_TEXT} characters without control characters`);
  return value;
}

/** Only the authorization code flow is offered: a client that asks for other grants or responses is told so rather than half-served. */
function checkFlows(document: Record<string, unknown>): void {
  const grants = document.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grants) || grants.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token'))
    throw new ClientMetadataError('invalid_client_metadata', 'grant_types may hold only authorization_code and refresh_token');
  const responses = document.response_types ?? ['code'];
  if (!Array.isArray(responses) || responses.some((type) => type !== 'code'))
    throw new ClientMetadataError('invalid_client_metadata', 'response_types may hold only code');
}

function asObject(document: unknown, what: string): Record<string, unknown> {
  if (!document || typeof document !== 'object' || Array.isArray(document))
    throw new ClientMetadataError('invalid_client_metadata', `${what} must be a JSON object`);
  return document as Record<string, unknown>;
}

/** Reads an RFC 7591 registration request. */
export function parseRegistration(body: unknown): ClientRegistration {
  const document = asObject(body, 'the registration');
  const uris = redirectUris(document.redirect_uris);
  checkFlows(document);
  const authMethod = (document.token_endpoint_auth_method ?? 'client_secret_basic') as ClientAuthMethod;
  if (!AUTH_METHODS.includes(authMethod))
    throw new ClientMetadataError('invalid_client_metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  const clientUri = optionalText(document, 'client_uri');
  if (clientUri !== undefined && parseUrl(clientUri)?.protocol !== 'https:')
    throw new ClientMetadataError('invalid_client_metadata', 'client_uri must be an https URL');
  return { clientName: optionalText(document, 'client_name') ?? 'Unnamed client', clientUri: clientUri ?? null, redirectUris: uris, authMethod };
}

/**
 * A client from its metadata document (draft-ietf-oauth-client-id-metadata-document): the document
 * must name its own URL as `client_id` and be a public client, since a secret in a public document
 * would be no secret.
 */
export function clientFromMetadataDocument(clientId: string, body: unknown): OAuthClient {
  const document = asObject(body, 'the client metadata document');
  if (document.client_id !== clientId)
    throw new ClientMetadataError('invalid_client_metadata', `the client metadata document's client_id must be its own URL, ${clientId}`);
  if ('client_secret' in document || 'client_secret_expires_at' in document)
    throw new ClientMetadataError('invalid_client_metadata', 'a client metadata document must not hold a client secret');
  const method = document.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw new ClientMetadataError(
      'invalid_client_metadata',
      `token_endpoint_auth_method "${String(method)}" is not offered to metadata-document clients: use none (PKCE)`,
    );
  checkFlows(document);
  const host = new URL(clientId).host;
  return {
    id: clientId,
    name: optionalText(document, 'client_name') ?? host,
    verified: true,
    redirectUris: redirectUris(document.redirect_uris),
    authMethod: 'none',
  };
}

/** True when a client id is a metadata document's URL (https, with a path) rather than an id this server gave. */
export function isMetadataDocumentUrl(clientId: string, allowInsecureDev: boolean): boolean {
  const url = parseUrl(clientId);
  if (!url || (url.protocol !== 'https:' && !(allowInsecureDev && url.protocol === 'http:'))) return false;
  return url.pathname !== '/' && !url.hash && !url.username && !url.password;
}
