import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findToolFiles, ToolDirectoryError } from './find-tool-files.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mirobody-find-'));
  for (const directory of ['a', 'b']) mkdirSync(join(root, directory));
  for (const name of ['zeta.ts', 'alpha.js', 'beta.mjs', '_helper.js', '.hidden.js', 'types.d.ts', 'notes.md', 'data.json', 'gamma.cjs']) {
    writeFileSync(join(root, 'a', name), '');
  }
  mkdirSync(join(root, 'a', 'nested'));
  writeFileSync(join(root, 'a', 'nested', 'inner.js'), '');
  // A directory whose name looks like a tool file is still not a file.
  mkdirSync(join(root, 'a', 'folder.js'));
  writeFileSync(join(root, 'b', 'alpha.js'), '');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('findToolFiles', () => {
  it('lists top-level .js/.mjs/.ts files by name, directories in their configured order, ranked across all', () => {
    expect(findToolFiles(['b', 'a'], root)).toEqual([
      { directory: join(root, 'b'), file: join(root, 'b', 'alpha.js'), rank: 0 },
      { directory: join(root, 'a'), file: join(root, 'a', 'alpha.js'), rank: 1 },
      { directory: join(root, 'a'), file: join(root, 'a', 'beta.mjs'), rank: 2 },
      { directory: join(root, 'a'), file: join(root, 'a', 'zeta.ts'), rank: 3 },
    ]);
  });

  it.each([
    ['a missing directory', 'missing', /MCP_TOOL_DIRS: .*missing cannot be read \(ENOENT\)/],
    ['a file', 'a/alpha.js', /MCP_TOOL_DIRS: .*alpha\.js is not a directory/],
  ])('stops start-up for %s, naming it', (_case, directory, message) => {
    expect(() => findToolFiles([directory], root)).toThrow(ToolDirectoryError);
    expect(() => findToolFiles([directory], root)).toThrow(message);
  });
});
