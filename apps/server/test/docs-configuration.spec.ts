import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIG_KEYS, CONFIG_SECTIONS } from '../src/config.js';

/**
 * docs/configuration.md is the reference of every key. The code knows the keys, their sections and
 * their defaults (`defineConfigSection`); this holds the page to it, so that a key added, renamed or
 * given another default cannot leave the reference behind.
 */
const page = readFileSync(resolve(import.meta.dirname, '../../../docs/configuration.md'), 'utf8');

/** A documented key: the `## ` section it is under, and its Default cell. */
interface DocumentedKey {
  key: string;
  heading: string;
  defaultCell: string;
}

function documentedKeys(markdown: string): DocumentedKey[] {
  let heading = '';
  const keys: DocumentedKey[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) heading = line.slice(3);
    const row = /^\| ([^|]+) \| ([^|]*) \|/.exec(line);
    if (!row) continue;
    for (const [, key] of row[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) keys.push({ key: key!, heading, defaultCell: row[2]! });
  }
  return keys;
}

const documented = documentedKeys(page);

describe('docs/configuration.md', () => {
  it('documents every key the config sections declare, once, and no other', () => {
    const names = documented.map((entry) => entry.key);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    expect([...names].sort()).toEqual([...CONFIG_KEYS].sort());
  });

  it("documents each section's keys together, under one heading of their own", () => {
    const headingOf = (key: string) => documented.find((entry) => entry.key === key)?.heading;
    const headings = CONFIG_SECTIONS.map((section) => [...new Set(section.keys.map(headingOf))]);
    for (const [index, section] of CONFIG_SECTIONS.entries()) expect([section.keys, headings[index]!.length]).toEqual([section.keys, 1]);
    const sectionHeadings = headings.map(([heading]) => heading);
    expect(new Set(sectionHeadings).size).toBe(CONFIG_SECTIONS.length);
  });

  it('gives, as the first value of a Default cell, the default the section applies', () => {
    const mismatches = CONFIG_SECTIONS.flatMap((section) =>
      Object.entries(section.specs).flatMap(([key, spec]) => {
        const { fallback } = spec;
        // Unset, empty and computed defaults (PUBLIC_BASE_URL, MCP_ALLOWED_HOSTS) are described in words.
        if (fallback === undefined || fallback === '' || (Array.isArray(fallback) && fallback.length === 0)) return [];
        const cell = documented.find((entry) => entry.key === key)?.defaultCell ?? '';
        const value = /`([^`]+)`/.exec(cell)?.[1];
        const read = value === undefined ? undefined : spec.parse(value, key);
        return read === fallback ? [] : [`${key}: documented ${cell.trim()}, applies ${String(fallback)}`];
      }),
    );
    expect(mismatches).toEqual([]);
  });
});
