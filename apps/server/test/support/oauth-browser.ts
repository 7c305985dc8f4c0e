import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's package; `.ci/run` installs it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where Chromium is missing, the browser tests are skipped saying why; in CI (`CI=true`), which installs it, they run. */
export function describeWithChromium(): typeof describe | typeof describe.skip {
  if (process.env.CI === 'true' || existsSync(CHROMIUM)) return describe;
  process.stderr.write(`Skipping the OAuth browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).\n`);
  return describe.skip;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

/** What a person does at each page of a sign-in; `consent` is the answer on this server's consent page. */
export interface SignInSteps {
  login: string;
  consent?: 'allow' | 'deny';
  /** Called on this server's consent page before it is answered. */
  onConsentPage?: (page: Page) => Promise<void>;
}

/**
 * Follows an authorization URL in a browser as a person would: signs in at the identity provider
 * (its login form, then its consent), answers this server's consent page, and returns the URL the
 * browser was finally sent to: the client's redirect URI with the code (or error), which nothing serves.
 */
export async function signInWithBrowser(context: BrowserContext, authorizationUrl: URL | string, redirectUri: string, steps: SignInSteps): Promise<URL> {
  const page = await context.newPage();
  let reached: URL | undefined;
  // Seen as a request: a redirect's target is not routed by playwright, and nothing listens there.
  page.on('request', (request) => {
    if (!reached && request.url().startsWith(redirectUri)) reached = new URL(request.url());
  });
  try {
    await page.goto(String(authorizationUrl));
    for (let step = 0; step < 6 && !reached; step++) {
      if (await page.locator('input[name=login]').count()) {
        await page.fill('input[name=login]', steps.login);
        await page.fill('input[name=password]', 'any password');
        await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
      } else if (await page.locator('input[name=consent_token]').count()) {
        await steps.onConsentPage?.(page);
        await Promise.all([page.waitForLoadState(), page.click(`button[value=${steps.consent ?? 'allow'}]`)]);
      } else if (await page.locator('input[name=prompt][value=consent]').count()) {
        await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
      } else {
        break;
      }
      await page.waitForLoadState('load');
    }
    if (!reached) throw new Error(`The sign-in stopped at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`);
    return reached;
  } finally {
    await page.close();
  }
}
