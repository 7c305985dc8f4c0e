import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopback } from '@app/common';

/**
 * The console's cookie. On https it is `__Host-` prefixed (Secure, Path=/, no Domain: no other
 * host nor path may set or shadow it); browsers refuse `Secure` and so that prefix over plain
 * http, where only a loopback address is allowed, under a name of its own.
 */
const SECURE_NAME = '__Host-mirobody-console';
const LOOPBACK_NAME = 'mirobody-console';

/** The cookie's name at this address; undefined where no browser should keep it (plain http to another host). */
export function sessionCookieName(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  if (url.protocol === 'https:') return SECURE_NAME;
  return isLoopback(url.hostname.replace(/^\[|\]$/g, '')) ? LOOPBACK_NAME : undefined;
}

/** The `Set-Cookie` value that keeps a session's token for `maxAgeSeconds` (0 clears it). */
export function sessionCookie(baseUrl: string, token: string, maxAgeSeconds: number): string {
  const name = sessionCookieName(baseUrl);
  if (!name) throw new Error(`No session cookie can be set at ${baseUrl}`);
  const secure = name === SECURE_NAME ? '; Secure' : '';
  // Lax: the cookie goes along when a link elsewhere opens the console, never with a cross-site form post.
  return `${name}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/**
 * The session token in a `Cookie` header, read without percent-decoding (the token is base64url,
 * and a malformed cookie of another name must not break the request).
 */
export function sessionTokenIn(cookieHeader: string | undefined, baseUrl: string): string | undefined {
  const name = sessionCookieName(baseUrl);
  return name ? cookieValue(cookieHeader, name) : undefined;
}

/** A session token under either of the cookie's names, for counting requests against its budget before the address is known. */
export function anySessionTokenIn(cookieHeader: string | undefined): string | undefined {
  return cookieValue(cookieHeader, SECURE_NAME) ?? cookieValue(cookieHeader, LOOPBACK_NAME);
}

function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const pair of cookieHeader.split(';')) {
    const separator = pair.indexOf('=');
    if (separator > 0 && pair.slice(0, separator).trim() === name) {
      const value = pair.slice(separator + 1).trim();
      return /^[\w-]{16,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * The session's CSRF token, derived from its secret token: another site can neither read it nor
 * compute it, and the server keeps nothing more to check it.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`mirobody-console-csrf\0${sessionToken}`).digest('base64url');
}

export function isCsrfTokenOf(sessionToken: string, given: string): boolean {
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
