import type { PurposeSigner } from '@app/common';

/** A sign-in sent to the identity provider, kept in the browser until it comes back (signed: it cannot be altered there). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The console page to open once signed in. */
  returnTo: string;
}

/** How long a sign-in may take at the provider. */
export const PENDING_SIGN_IN_SECONDS = 600;

const SECURE_NAME = '__Host-mirobody-console-sign-in';
const LOOPBACK_NAME = 'mirobody-console-sign-in';

export const pendingCookieName = (secure: boolean) => (secure ? SECURE_NAME : LOOPBACK_NAME);

/** The `Set-Cookie` of a pending sign-in (an empty value and `maxAgeSeconds` 0 clear it). */
export function pendingCookie(secure: boolean, value: string, maxAgeSeconds: number): string {
  // Lax: the provider sends the browser back with a top-level GET, which carries it.
  return `${pendingCookieName(secure)}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function sealPending(signer: PurposeSigner, pending: PendingSignIn): string {
  return signer.sign(JSON.stringify(pending), new Date(Date.now() + PENDING_SIGN_IN_SECONDS * 1000));
}

/** The pending sign-in of this browser, if its cookie is there, this server's and not past its time. */
export function openPending(signer: PurposeSigner, cookieHeader: string | undefined, secure: boolean): PendingSignIn | undefined {
  const name = pendingCookieName(secure);
  for (const pair of (cookieHeader ?? '').split(';')) {
    const separator = pair.indexOf('=');
    if (separator > 0 && pair.slice(0, separator).trim() === name) {
      const payload = signer.verify(pair.slice(separator + 1).trim());
      return payload === null ? undefined : (JSON.parse(payload) as PendingSignIn);
    }
  }
  return undefined;
}

/** Where a sign-in may send the browser back to: a page of the console, never another site. */
export function consolePage(returnTo: unknown): string {
  return typeof returnTo === 'string' && /^\/console(\/[^\\]*)?$/.test(returnTo) && !returnTo.startsWith('//') ? returnTo : '/console/';
}
