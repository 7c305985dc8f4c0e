import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const project = join(import.meta.dirname, '../../..');
const readJson = (name: string) => JSON.parse(readFileSync(join(project, name), 'utf8'));

/**
 * The MCP packages are pinned: the fast lane and the HTTP layer mirror the SDK's behaviour, so an
 * upgrade is a deliberate change that must pass the differential corpus, never a side effect of `npm install`.
 */
describe('the MCP SDK packages', () => {
  const manifest = readJson('package.json');
  const lock = readJson('package-lock.json');
  const pinned = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }).filter(([name]) => name.startsWith('@modelcontextprotocol/'));

  it('are all named', () => {
    expect(pinned.map(([name]) => name)).toEqual(
      expect.arrayContaining(['@modelcontextprotocol/server', '@modelcontextprotocol/node', '@modelcontextprotocol/client']),
    );
  });

  it.each(pinned)('%s is pinned to the exact version the lockfile installs', (name, range) => {
    expect(range).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$/);
    expect(lock.packages[`node_modules/${name}`].version).toBe(range);
  });
});
