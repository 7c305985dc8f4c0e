import type { TestIdentityProvider } from './identity-provider.js';

/**
 * A browser without a page: follows redirects one by one, keeps each origin's cookies as a browser
 * would (sent back to the host that set them), and posts forms. Enough for a sign-in at a headless
 * test identity provider and this server's consent page, without Chromium.
 */
export class HeadlessBrowser {
  private readonly cookies = new Map<string, Map<string, string>>();

  async fetch(url: URL | string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const jar = this.cookies.get(target.host);
    const cookie = jar?.size ? [...jar].map(([name, value]) => `${name}=${value}`).join('; ') : undefined;
    const response = await fetch(target, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) this.remember(target.host, line);
    return response;
  }

  /** Sets a cookie as another page of the same host could (`document.cookie`), whatever its value. */
  setCookie(host: string, name: string, value: string): void {
    const jar = this.cookies.get(host) ?? new Map<string, string>();
    this.cookies.set(host, jar.set(name, value));
  }

  /** The cookies this browser holds for `host`, by name. */
  cookiesOf(host: string): Record<string, string> {
    return Object.fromEntries(this.cookies.get(host) ?? []);
  }

  /**
   * Follows redirects from `url` until one leads where `stop` says (not fetched: nothing serves a
   * client's redirect URI), or a page answers. `url` is where it stopped; `page` the answer there.
   */
  async follow(url: URL | string, stop: (url: URL) => boolean, init: RequestInit = {}): Promise<{ url: URL; page?: Response }> {
    let current = new URL(url);
    let request = init;
    for (let hop = 0; hop < 20; hop++) {
      if (stop(current)) return { url: current };
      const response = await this.fetch(current, request);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url: current, page: response };
      await response.body?.cancel();
      current = new URL(location, current);
      request = {};
    }
    throw new Error(`More than 20 redirects from ${String(url)}`);
  }

  private remember(host: string, line: string): void {
    const [pair, ...attributes] = line.split(';');
    const at = pair!.indexOf('=');
    if (at <= 0) return;
    const name = pair!.slice(0, at).trim();
    const jar = this.cookies.get(host) ?? new Map<string, string>();
    this.cookies.set(host, jar);
    const gone = attributes.some((attribute) => /^\s*max-age\s*=\s*0\s*$/i.test(attribute) || /^\s*expires\s*=.*19[0-6]\d/i.test(attribute));
    if (gone) jar.delete(name);
    else jar.set(name, pair!.slice(at + 1).trim());
  }
}

/** What a person does on this server's consent page, and what the test reads of it. */
export interface HeadlessSignInSteps {
  login: string;
  consent?: 'allow' | 'deny';
  /** Called with the consent page's HTML before it is answered. */
  onConsentPage?: (html: string) => void;
  /** Cookies another site on this server's host left in the browser (`theme=100%`). */
  cookies?: Record<string, string>;
}

/** A sign-in that ended on a page of this server (an error), not back at the client. */
export class SignInStopped extends Error {
  constructor(
    readonly status: number,
    readonly html: string,
    at: URL,
  ) {
    super(
      `The sign-in stopped at ${at.href} with ${status}: ${html
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .slice(0, 400)}`,
    );
  }
}

const hiddenInput = (html: string, name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html)?.[1];

/**
 * Follows an authorization URL of this server as a person would, at a headless identity provider
 * (`startIdentityProvider` with a profile, or `headless`): signs in as `login` there, answers the
 * consent page, and returns the URL the browser was finally sent to (the client's redirect URI
 * with the code or error). A page of this server on the way (an error) is a `SignInStopped`.
 */
export async function signInHeadless(idp: TestIdentityProvider, authorizationUrl: URL | string, redirectUri: string, steps: HeadlessSignInSteps): Promise<URL> {
  idp.signInAs(steps.login);
  const browser = new HeadlessBrowser();
  for (const [name, value] of Object.entries(steps.cookies ?? {})) browser.setCookie(new URL(authorizationUrl).host, name, value);
  const atClient = (url: URL) => url.href.startsWith(redirectUri);
  const reached = await browser.follow(authorizationUrl, atClient);
  if (!reached.page) return reached.url;
  const html = await reached.page.text();
  const request = hiddenInput(html, 'request');
  const consentToken = hiddenInput(html, 'consent_token');
  if (reached.page.status !== 200 || !request || !consentToken) throw new SignInStopped(reached.page.status, html, reached.url);
  steps.onConsentPage?.(html);
  const answered = await browser.follow(new URL('/oauth/consent', reached.url), atClient, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: reached.url.origin },
    body: new URLSearchParams({ request, consent_token: consentToken, decision: steps.consent ?? 'allow' }).toString(),
  });
  if (answered.page) throw new SignInStopped(answered.page.status, await answered.page.text(), answered.url);
  return answered.url;
}
