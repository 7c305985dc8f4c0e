import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const project = join(import.meta.dirname, '../../..');

describe('nest-cli.json', () => {
  it('lists every lib as a library project', () => {
    const { projects } = JSON.parse(readFileSync(join(project, 'nest-cli.json'), 'utf8')) as { projects: Record<string, { type: string; sourceRoot: string }> };
    const libraries = Object.entries(projects).filter(([, entry]) => entry.type === 'library');
    const libs = readdirSync(join(project, 'libs'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(libraries.map(([name]) => name).sort()).toEqual(libs.map((entry) => entry.name).sort());
    for (const [name, entry] of libraries) expect(entry.sourceRoot).toBe(`libs/${name}/src`);
  });
});
