import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The worked example the README describes, loaded as a third directory. */
export const EXAMPLES_DIR = resolve('examples/tools');

/**
 * Jest decides from the nearest package.json whether a `.js` file is an ES module; the compiled
 * server's module hooks treat every `.js` in a tool directory as one without it.
 */
const ESM_PACKAGE = JSON.stringify({ type: 'module' });

/** Listed first: overrides `echo`, and holds every kind of file the loader must handle. */
const FIRST: Record<string, string> = {
  '_helper.js': `
import { decorateToolClass, McpTool } from 'mirobody';
export const shout = (text) => text.toUpperCase() + '!';
// Would publish a tool if this file were loaded as one; the underscore keeps it a plain module.
export class HelperOnlyService { helperTool() { return 'never'; } }
decorateToolClass(HelperOnlyService, { methods: { helperTool: { decorators: [McpTool({ description: 'Never listed' })] } } });
`,
  // Plain JavaScript: no decorator syntax, no type metadata.
  'echo.js': `
import { Arg, ConfigService, decorateToolClass, McpTool, ok } from 'mirobody';
import { shout } from './_helper.js';
export class LoudEchoService {
  constructor(config) { this.config = config; }
  echo(text) { return ok({ echo: shout(text), maxSessions: this.config.get('mcp.maxSessions') }); }
}
decorateToolClass(LoudEchoService, {
  inject: [ConfigService],
  methods: { echo: { decorators: [McpTool({ description: 'Echo, loudly' })], params: [Arg('text', { type: 'string', description: 'Text to echo, e.g. "hi"' })] } },
});
`,
  // TypeScript, transpiled at load with decorator metadata: the caller's own users row through the DataSource.
  'account.ts': `
import { CurrentUser, DataSource, Injectable, Logger, McpTool, ok, type UserInfo } from 'mirobody';
@Injectable()
export class AccountService {
  constructor(private readonly dataSource: DataSource, private readonly logger: Logger) {}
  @McpTool({ description: "The caller's own account as stored" })
  async myAccount(@CurrentUser() user: UserInfo) {
    const rows: { email: string | null }[] = await this.dataSource.query('SELECT email FROM users WHERE id = $1', [user.userId]);
    return ok({ email: rows[0]?.email ?? null, agent: user.agent ?? null, injectedLogger: this.logger instanceof Logger });
  }
}
`,
  // The app's memory store, injected: the caller's own memories only.
  'memories.ts': `
import { Arg, CurrentUser, Injectable, McpTool, MemoryStore, ok, type UserInfo } from 'mirobody';
@Injectable()
export class MemoryDigestService {
  constructor(private readonly memories: MemoryStore) {}
  @McpTool({ description: "The caller's memories about a topic" })
  async memoryDigest(@CurrentUser() user: UserInfo, @Arg('topic', { description: 'What to look for, e.g. "allergy"' }) topic: string) {
    const found = await this.memories.recall(user.userId, topic, 5);
    return ok({ texts: found.map((memory) => memory.text) });
  }
}
`,
  // Marked with @McpTools(), so its name need not end in Service.
  'reports.ts': `
import { McpCompletion, McpPrompt, McpResource, McpTools } from 'mirobody';
@McpTools()
export class WeeklyReports {
  @McpPrompt({ name: 'weekly_summary', description: 'Summarise the week', arguments: [{ name: 'week', description: 'ISO week, e.g. 2026-W49' }] })
  weeklySummary() {
    return { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise my week.' } }] };
  }
  @McpCompletion({ ref: { type: 'ref/prompt', name: 'weekly_summary' }, argument: 'week' })
  weeks(value: string) {
    return ['2026-W48', '2026-W49'].filter((week) => week.startsWith(value));
  }
  @McpResource({ uri: 'mirobody://reports/latest', name: 'latest_report', mimeType: 'text/plain' })
  latest() {
    return 'All quiet.';
  }
}
`,
  'broken.js': 'export class BrokenService {\n  oops( {\n}\n',
  'throws.js': "throw new Error('no license key configured');\n",
  'disabled.mjs': `
import { decorateToolClass, McpTool } from 'mirobody';
export class OptionalIntegrationService {
  static enabled() { return false; }
  optionalTool() { return 'never'; }
}
decorateToolClass(OptionalIntegrationService, { methods: { optionalTool: { decorators: [McpTool({ description: 'Needs an API key' })] } } });
`,
  // An array without an element type: the whole file is skipped, its neighbour class too.
  'bad_schema.ts': `
import { Arg, Injectable, McpTool } from 'mirobody';
@Injectable()
export class TaggingService {
  @McpTool({ description: 'Tag things' })
  tag(@Arg('tags') tags: string[]) { return tags; }
}
@Injectable()
export class NeighbourService {
  @McpTool({ description: 'Lives next to a broken tool' })
  neighbourTool() { return 'never'; }
}
`,
  'notes.txt': 'not a tool',
  'package.json': ESM_PACKAGE,
};

/** Listed second: its `echo` loses to the first directory's. */
const SECOND: Record<string, string> = {
  'echo.mjs': `
import { Arg, decorateToolClass, McpTool, ok } from 'mirobody';
export class QuietEchoService { echo(text) { return ok({ echo: text.toLowerCase() }); } }
decorateToolClass(QuietEchoService, { methods: { echo: { decorators: [McpTool({ description: 'Echo, quietly' })], params: [Arg('text', { type: 'string' })] } } });
`,
};

export interface ToolDirectories {
  first: string;
  second: string;
  /** `MCP_TOOL_DIRS` as the environment gives it. */
  env: string;
  remove(): void;
}

export function writeToolDirectories(): ToolDirectories {
  const root = mkdtempSync(join(tmpdir(), 'mirobody-tools-'));
  const first = join(root, 'first');
  const second = join(root, 'second');
  for (const [directory, files] of [
    [first, FIRST],
    [second, SECOND],
  ] as const) {
    mkdirSync(directory);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(directory, name), content);
  }
  // Sub-directories are never entered.
  mkdirSync(join(first, 'nested'));
  writeFileSync(
    join(first, 'nested', 'inner.mjs'),
    "import { decorateToolClass, McpTool } from 'mirobody';\nexport class NestedService { nestedTool() {} }\ndecorateToolClass(NestedService, { methods: { nestedTool: { decorators: [McpTool({ description: 'Hidden by nesting' })] } } });\n",
  );
  return { first, second, env: [first, second, EXAMPLES_DIR].join(','), remove: () => rmSync(root, { recursive: true, force: true }) };
}
