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
  grantTypes: string[];
}

const AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];
/** Schemes a redirect must never use: they run code or read files in the browser rather than hand the code to an app. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ws:', 'wss:', 'ftp:']);
const MAX_REDIRECT_URIS = 10;
/** What browsers and servers reliably carry in a URL; a redirect URI is sent back with a code and `state` appended. */
export const MAX_URI_LENGTH = 2048;
const MAX_TEXT = 200;
/** RFC 7523's grant, for an identity provider's grant (ID-JAG): only a client with a secret may use it. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const GRANT_TYPES = ['authorization_code', 'refresh_token', JWT_BEARER_GRANT];

/**
 * Characters a name shown to people must not hold: control characters (a line break could fake
 * lines on the consent page), format characters such as the bidirectional overrides and isolates
 * (U+202E shows "\u202Eedualc" as "claude") and zero-width ones (U+200B), line and paragraph
 * separators, private-use characters, and fillers that show as nothing (U+3164): anything that
 * reads as something else or as nothing.
 */
const DECEPTIVE_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Default_Ignorable_Code_Point}]/u;

const codePointOf = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first character of `text` that could make it read as something else, as `U+XXXX`; undefined when there is none. */
export function deceptiveCharacter(text: string): string | undefined {
  const found = DECEPTIVE_CHARACTER.exec(text)?.[0];
  return found === undefined ? undefined : codePointOf(found);
}

/** `text` with each such character written out (`[U+202E]`), for a page that shows a name stored before it was refused. */
export function withDeceptiveCharactersShown(text: string): string {
  return text.replace(new RegExp(DECEPTIVE_CHARACTER.source, 'gu'), (character) => `[${codePointOf(character)}]`);
}

const loopbackHost = (url: URL) => isLoopback(url.hostname.replace(/^\[|\]$/g, ''));

/**
 * A redirect URI a client may register (OAuth 2.1 §2.3, RFC 8252): absolute, without a fragment;
 * https anywhere, http only to this machine (a native app's loopback listener), or an app's own
 * scheme (`cursor://`), never one that runs code or reads files.
 */
export function checkRedirectUri(raw: unknown): string {
  if (typeof raw !== 'string' || !raw) throw new ClientMetadataError('invalid_redirect_uri', 'each redirect URI must be a non-empty string');
  if (raw.length > MAX_URI_LENGTH)
    throw new ClientMetadataError('invalid_redirect_uri', `a redirect URI may be at most ${MAX_URI_LENGTH} characters, this one has ${raw.length}`);
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
  if (typeof value !== 'string' || value.length > MAX_TEXT || !value.isWellFormed())
    throw new ClientMetadataError('invalid_client_metadata', `${field} must be text of at most ${MAX_TEXT} characters`);
  const deceptive = deceptiveCharacter(value);
  if (deceptive)
    throw new ClientMetadataError(
      'invalid_client_metadata',
      `${field} holds ${deceptive}, a control, invisible or direction-changing character, which could make it read as another name`,
    );
  return value;
}

/**
 * The code flow (with refresh), and the JWT-bearer grant of an identity provider's assertion for a
 * client with a secret: a client that asks for other grants or responses is told so rather than
 * half-served. The grants it may use, for `/register`'s answer.
 */
function checkFlows(document: Record<string, unknown>, authMethod: ClientAuthMethod): string[] {
  const grants = document.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grants) || grants.some((grant) => !GRANT_TYPES.includes(grant as string)))
    throw new ClientMetadataError('invalid_client_metadata', `grant_types may hold only ${GRANT_TYPES.join(', ')}`);
  if (grants.includes(JWT_BEARER_GRANT) && authMethod === 'none')
    throw new ClientMetadataError('invalid_client_metadata', `${JWT_BEARER_GRANT} is for clients with a secret: use client_secret_basic or client_secret_post`);
  const responses = document.response_types ?? ['code'];
  if (!Array.isArray(responses) || responses.some((type) => type !== 'code'))
    throw new ClientMetadataError('invalid_client_metadata', 'response_types may hold only code');
  return grants as string[];
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
  const authMethod = (document.token_endpoint_auth_method ?? 'client_secret_basic') as ClientAuthMethod;
  if (!AUTH_METHODS.includes(authMethod))
    throw new ClientMetadataError('invalid_client_metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  const grantTypes = checkFlows(document, authMethod);
  const clientUri = optionalText(document, 'client_uri');
  if (clientUri !== undefined && parseUrl(clientUri)?.protocol !== 'https:')
    throw new ClientMetadataError('invalid_client_metadata', 'client_uri must be an https URL');
  return { clientName: optionalText(document, 'client_name') ?? 'Unnamed client', clientUri: clientUri ?? null, redirectUris: uris, authMethod, grantTypes };
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
  checkFlows(document, 'none');
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
  if (clientId.length > MAX_URI_LENGTH) return false;
  const url = parseUrl(clientId);
  if (!url || (url.protocol !== 'https:' && !(allowInsecureDev && url.protocol === 'http:'))) return false;
  return url.pathname !== '/' && !url.hash && !url.username && !url.password;
}
