import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The README and the pages of docs/ link to each other, to headings and to files of the
 * repository; a page renamed, a heading reworded or a file moved would leave a dead link. External
 * links are not fetched.
 */
const root = resolve(import.meta.dirname, '../../..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const text = (page: string) => readFileSync(join(root, page), 'utf8');

/** The text outside fenced code blocks and inline code, where a `[x](y)` is no link. */
const prose = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1$/gm, '').replace(/`[^`\n]*`/g, (code) => code.replace(/[[\]()]/g, ' '));

/** GitHub's anchor for a heading: its text as rendered, lower-case, punctuation dropped, spaces to '-'. */
function githubSlug(heading: string): string {
  const rendered = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]{1,2}([^`*_]+)[`*_]{1,2}/g, '$1');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor of a page; a repeated heading gets -1, -2, ... as on GitHub. */
function anchorsOf(page: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text(page)
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1$/gm, '')
    .matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = githubSlug(heading!);
    const count = seen.get(slug) ?? 0;
    anchors.add(count ? `${slug}-${count}` : slug);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** The relative links of a page, as `target#anchor` strings; external ones are left out. */
const linksOf = (page: string) =>
  [...prose(text(page)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!).filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href));

/** What is wrong with one link of `page`, or undefined. */
function deadLink(page: string, href: string): string | undefined {
  const [path, anchor] = href.split('#') as [string, string | undefined];
  const target = path ? relative(root, resolve(dirname(join(root, page)), decodeURIComponent(path))) : page;
  if (!existsSync(join(root, target))) return `${page}: ${href} (no file ${target})`;
  if (anchor === undefined) return undefined;
  if (!target.endsWith('.md') || statSync(join(root, target)).isDirectory()) return `${page}: ${href} (an anchor into a file that is no page)`;
  return anchorsOf(target).has(anchor) ? undefined : `${page}: ${href} (no heading #${anchor} in ${target})`;
}

describe('README.md and docs/', () => {
  it('link only to files that exist and to headings those pages have', () => {
    const links = pages.flatMap((page) => linksOf(page).map((href) => [page, href] as const));
    expect(links.length).toBeGreaterThan(40);
    expect(links.map(([page, href]) => deadLink(page, href)).filter(Boolean)).toEqual([]);
  });

  it('link every page of docs/ from the README', () => {
    const linked = new Set(linksOf('README.md').map((href) => href.split('#')[0]));
    expect(pages.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it('find a dead file, a dead anchor and a live one as GitHub would', () => {
    expect(githubSlug('Adding a lib: tables, config, errors')).toBe('adding-a-lib-tables-config-errors');
    expect(githubSlug('The `/mcp` endpoint (`@app/mcp`)')).toBe('the-mcp-endpoint-appmcp');
    expect(githubSlug('JWTs from your identity provider (JWKS, RS256/ES256)')).toBe('jwts-from-your-identity-provider-jwks-rs256es256');
    expect(deadLink('README.md', 'docs/architecture.md#how-a-call-travels')).toBeUndefined();
    expect(deadLink('docs/tools.md', '../README.md#add-a-tool')).toBeUndefined();
    expect(deadLink('docs/tools.md', 'README.md')).toMatch(/no file docs\/README.md/);
    expect(deadLink('README.md', '#no-such-heading')).toMatch(/no heading #no-such-heading in README.md/);
  });
});

describe('the README’s code', () => {
  const readme = text('README.md');
  const codeBlocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);

  it('shows the examples the type check compiles, as they are', () => {
    for (const example of ['examples/add-a-tool/goal-tools.module.ts', 'examples/connect-a-client/call-whoami.ts']) {
      expect([example, codeBlocks.includes(text(example))]).toEqual([example, true]);
    }
  });
});
