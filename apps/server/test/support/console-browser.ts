import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { linkToken } from './console.js';
import type { RunningApp } from './test-app.js';

const root = resolve(import.meta.dirname, '../../../..');

/** axe-core's script, run in a page through the DevTools protocol (which the page's CSP does not govern). */
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The serious and critical accessibility violations axe-core finds on the page as it stands (WCAG 2.1 A and AA). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const axe = readFileSync(AXE_SOURCE, 'utf8');
  await page.evaluate(`${axe}\n;undefined`);
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((result) => result.violations)`,
  )) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Where the screenshots go: docs/console/ with UPDATE_CONSOLE_SCREENSHOTS=1 (what the README shows), else a directory of the run's. */
export function screenshotDirectory(fallback: string): string {
  const directory = process.env.UPDATE_CONSOLE_SCREENSHOTS === '1' ? join(root, 'docs/console') : fallback;
  mkdirSync(directory, { recursive: true });
  return directory;
}

/** What the page's Content Security Policy refused (a violation is a bug: the console must need nothing it forbids). */
export function watchCspViolations(page: Page): string[] {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to (load|execute|apply|connect)/.test(message.text())) refused.push(message.text());
  });
  return refused;
}

/** Opens the console in a new page, signed in through a one-time link for the user the CLI options name. */
export async function openConsole(context: BrowserContext, app: RunningApp, env: Record<string, string>, ...cliArgs: string[]): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.url.origin}/console/sign-in/link#${await linkToken(app, env, ...cliArgs)}`);
  try {
    await page.waitForURL((url) => !url.pathname.startsWith('/console/sign-in'), { timeout: 15_000 });
    await page.locator('header.top-bar').waitFor({ timeout: 15_000 });
  } catch (error) {
    throw new Error(`Signing in to the console stopped at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`, { cause: error });
  }
  return page;
}

/** Opens a console page by its navigation link and waits for its heading. */
export async function openPage(page: Page, link: string, heading = link): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Clicks a button that asks first (in `scope`), then the dialog's confirming button, typing `typed` first where it asks for it. */
export async function confirm(page: Page, scope: Page | Locator, label: string, confirmLabel = label, typed?: string): Promise<void> {
  await scope.getByRole('button', { name: label, exact: true }).click();
  const dialog = page.getByRole('dialog');
  if (typed !== undefined) await dialog.getByRole('textbox').fill(typed);
  await dialog.getByRole('button', { name: confirmLabel, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}
