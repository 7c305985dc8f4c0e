import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PluginsLoader } from '@nestjs/cli/lib/compiler/plugins/plugins-loader.js';

const project = join(import.meta.dirname, '../../..');

describe('nest-cli.json', () => {
  it('lists every lib as a library project', () => {
    const { projects } = JSON.parse(readFileSync(join(project, 'nest-cli.json'), 'utf8')) as { projects: Record<string, { type: string; sourceRoot: string }> };
    const libraries = Object.entries(projects).filter(([, entry]) => entry.type === 'library');
    const libs = readdirSync(join(project, 'libs'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(libraries.map(([name]) => name).sort()).toEqual(libs.map((entry) => entry.name).sort());
    for (const [name, entry] of libraries) expect(entry.sourceRoot).toBe(`libs/${name}/src`);
  });

  it('names the types plugin, which the Nest CLI loads with both its forms (tsc builds and SWC type-checked builds)', () => {
    const { compilerOptions } = JSON.parse(readFileSync(join(project, 'nest-cli.json'), 'utf8')) as { compilerOptions: { plugins: string[] } };
    const loaded = new PluginsLoader().load(compilerOptions.plugins, { pathToSource: project });
    expect(loaded.beforeHooks).toHaveLength(1);
    expect(loaded.readonlyVisitors.map((visitor) => visitor.key)).toEqual(['../libs/mcp/plugin.cjs']);
  });
});
