/** A client's checked redirect URI, with what goes back on it besides the answer. */
export interface RedirectTarget {
  redirectUri: string;
  state: string | null;
  /** This server's issuer identifier (RFC 9207). */
  issuer: string;
}

/** The redirect URI with the answer's parameters, `state` as it came, and `iss` (RFC 9207). */
export function redirectWith(target: RedirectTarget, answer: Record<string, string>): string {
  const url = new URL(target.redirectUri);
  for (const [name, value] of Object.entries(answer)) url.searchParams.set(name, value);
  if (target.state !== null) url.searchParams.set('state', target.state);
  url.searchParams.set('iss', target.issuer);
  return url.href;
}

/**
 * An OAuth error (RFC 6749 §4.1.2.1, §5.2; RFC 8707; RFC 7009): its code, and a description that
 * says what was wrong. `status` is the HTTP status where it is answered directly.
 */
export class OAuthError extends Error {
  /** Where `/authorize` sends this error: the client's checked redirect URI. */
  redirect?: RedirectTarget;

  constructor(
    readonly code: string,
    description: string,
    readonly status = 400,
  ) {
    super(description);
  }

  sentTo(target: RedirectTarget): this {
    this.redirect = target;
    return this;
  }

  toJSON() {
    return { error: this.code, error_description: this.message };
  }
}

/**
 * An error `/authorize` cannot send back to the client, because the client or its redirect URI is
 * not trusted (RFC 6749 §4.1.2.1), or a step of the sign-in the user must hear of: shown as a page.
 */
export class SignInPageError extends Error {
  constructor(
    readonly title: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}
