import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';

/** Why a client metadata document could not be had; the message is shown to the user. */
export class ClientMetadataFetchError extends Error {}

export interface FetchLimits {
  /** http, loopback and private addresses allowed (`OAUTH_ALLOW_INSECURE_DEV`). */
  allowInsecureDev: boolean;
  maxBytes: number;
  timeoutMs: number;
  /** Extra CA certificates (PEM) trusted besides Node's. */
  ca?: string;
}

export interface FetchedDocument {
  body: unknown;
  /** How long the document may be reused, from its `Cache-Control`. */
  maxAgeSeconds: number;
}

/** Without `Cache-Control`, a document is reused this long; with one, never longer than a day. */
const DEFAULT_MAX_AGE = 300;
const LONGEST_MAX_AGE = 86_400;

/** An address on the public internet: not loopback, private, link-local (cloud metadata services), multicast or reserved. */
export function isPublicAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Resolves a name as the connection will use it and refuses it if any of its addresses is not
 * public, so the check and the connection see the same address (no DNS rebinding in between).
 */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const internal = addresses.find((candidate) => !isPublicAddress(candidate.address));
    if (internal) return callback(new ClientMetadataFetchError(`${hostname} resolves to ${internal.address}, which is not a public address`), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

function maxAge(cacheControl: string | undefined): number {
  if (!cacheControl) return DEFAULT_MAX_AGE;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return 0;
  const seconds = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl)?.[1];
  return seconds === undefined ? DEFAULT_MAX_AGE : Math.min(Number(seconds), LONGEST_MAX_AGE);
}

/**
 * Fetches a client metadata document with the guards a server-side fetch of a URL anyone can type
 * needs (SSRF): https only, public addresses only (checked on the resolved address the connection
 * uses), no redirects, a byte limit and a deadline for the whole exchange.
 */
export function fetchClientMetadataDocument(url: URL, limits: FetchLimits): Promise<FetchedDocument> {
  if (url.protocol !== 'https:' && !(limits.allowInsecureDev && url.protocol === 'http:'))
    return Promise.reject(new ClientMetadataFetchError(`${url.href} is not an https URL`));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address literal is connected to without a lookup, so it is checked here.
  if (isIP(host) && !limits.allowInsecureDev && !isPublicAddress(host)) return Promise.reject(new ClientMetadataFetchError(`${host} is not a public address`));
  return new Promise((resolve, reject) => {
    const get = url.protocol === 'https:' ? httpsGet : httpGet;
    const request = get(
      url,
      {
        headers: { accept: 'application/json' },
        agent: false,
        ...(limits.allowInsecureDev ? {} : { lookup: publicOnlyLookup }),
        ...(limits.ca ? { ca: [...rootCertificates, limits.ca] } : {}),
      },
      (response) => read(response),
    );
    const deadline = setTimeout(() => fail(new ClientMetadataFetchError(`no answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    let settled = false;
    // The first outcome counts: a response cut short still ends, with what arrived before the cut.
    function fail(error: Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      reject(error instanceof ClientMetadataFetchError ? error : new ClientMetadataFetchError(error.message));
    }
    request.on('error', fail);

    function read(response: IncomingMessage): void {
      const tooLarge = () => fail(new ClientMetadataFetchError(`it is larger than ${limits.maxBytes} bytes`));
      if (response.statusCode !== 200) {
        const redirect = response.statusCode! >= 300 && response.statusCode! < 400;
        return fail(
          new ClientMetadataFetchError(
            redirect ? 'the server answered with a redirect, which is not followed' : `the server answered HTTP ${response.statusCode}`,
          ),
        );
      }
      if (Number(response.headers['content-length'] ?? 0) > limits.maxBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) tooLarge();
        else chunks.push(chunk);
      });
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        try {
          resolve({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')), maxAgeSeconds: maxAge(response.headers['cache-control']) });
        } catch {
          reject(new ClientMetadataFetchError('it is not JSON'));
        }
      });
      response.on('error', fail);
    }
  });
}
