import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const project = join(import.meta.dirname, '../../..');
const eslint = join(project, 'node_modules/.bin/eslint');

/** Lints `source` as if it were the file at `filePath`, with the project's own config, and returns its messages in one string. */
function lint(filePath: string, source: string): string {
  const run = spawnSync(eslint, ['--stdin', '--stdin-filename', filePath, '--format', 'json'], { cwd: project, input: source, encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`eslint failed: ${run.stderr}`);
  const [result] = JSON.parse(run.stdout) as { messages: { message: string }[] }[];
  return result!.messages.map((entry) => entry.message).join('\n');
}

const importOf = (specifier: string) => `import * as lib from '${specifier}';\nexport const used = lib;\n`;

describe('the lib graph (npm run lint)', () => {
  it.each([
    ['libs/common/src/probe.ts', '@app/database', 'libs/common may import no other lib'],
    ['libs/database/src/probe.ts', '@app/mcp', 'libs/database may import common'],
    ['libs/mcp/src/probe.ts', '@app/auth', 'libs/mcp may import common, database'],
    ['libs/auth/src/probe.ts', '@app/memory', 'libs/auth may import common, database, mcp'],
    ['libs/files/src/probe.ts', '@app/memory', 'libs/files may import common, database, mcp, auth'],
    ['libs/health/src/probe.ts', '@app/tools', 'libs/health may import common, database, mcp, auth'],
  ])('refuses a wrong-way import: %s importing %s', (filePath, specifier, message) => {
    expect(lint(filePath, importOf(specifier))).toContain(message);
  });

  it.each([
    ['libs/database/src/probe.ts', '@app/common'],
    ['libs/auth/src/probe.ts', '@app/mcp'],
    ['libs/memory/src/probe.ts', '@app/auth'],
    ['libs/tools/src/probe.ts', '@app/memory'],
    ['apps/server/src/probe.ts', '@app/tools'],
  ])('lets %s import %s', (filePath, specifier) => {
    expect(lint(filePath, importOf(specifier))).toBe('');
  });

  it.each([
    ['libs/auth/src/users/probe.ts', '../identity/jwt/jwt-verifier.js', 'libs/auth/src/users may import no other folder of libs/auth'],
    ['libs/auth/src/identity/probe.ts', '../user-data/user-data.service.js', 'libs/auth/src/identity may import users, rate-limit'],
    ['libs/auth/src/identity/rest/probe.ts', '../../admin/admin-users.service.js', 'libs/auth/src/identity may import users, rate-limit'],
    ['libs/auth/src/user-data/probe.ts', '../admin/admin-users.service.js', 'libs/auth/src/user-data may import users, rate-limit, identity, access-log'],
  ])("refuses a wrong-way import between libs/auth's folders: %s importing %s", (filePath, specifier, message) => {
    expect(lint(filePath, importOf(specifier))).toContain(message);
  });

  it.each([
    ['libs/auth/src/identity/probe.ts', '../users/users.service.js'],
    ['libs/auth/src/admin/probe.ts', '../user-data/user-data.service.js'],
    ['libs/auth/src/users/probe.ts', '../auth.options.js'],
  ])('lets %s import %s', (filePath, specifier) => {
    expect(lint(filePath, importOf(specifier))).toBe('');
  });

  const injectsDataSource = "import { InjectDataSource } from '@nestjs/typeorm';\nexport const used = InjectDataSource;\n";
  const takesDataSource = "import { DataSource } from 'typeorm';\nexport const used = DataSource;\n";

  it.each([
    ['libs/health/src/probe.ts', injectsDataSource],
    ['libs/memory/src/probe.ts', takesDataSource],
    ['libs/auth/src/identity/probe.ts', injectsDataSource],
  ])('refuses a lib reaching its tables around its repositories: %s', (filePath, source) => {
    expect(lint(filePath, source)).toContain('Persistence');
  });

  it.each([
    ['libs/database/src/probe.ts', takesDataSource],
    ['libs/memory/src/testing/probe.ts', takesDataSource],
  ])('lets %s hold the DataSource itself', (filePath, source) => {
    expect(lint(filePath, source)).toBe('');
  });

  it("refuses reaching into another lib's files by path", () => {
    expect(lint('libs/tools/src/probe.ts', importOf('../../memory/src/memory.store.js'))).toContain('through its index');
  });
});
