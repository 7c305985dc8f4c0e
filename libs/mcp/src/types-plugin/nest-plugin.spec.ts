import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import ts from 'typescript';
import { unwrap } from './doc-comment.js';
import { before, ReadonlyVisitor } from './nest-plugin.js';
import { loadToolTypes, recordedToolTypes, TOOL_TYPES_FACTORY, type PluginMetadata } from './tool-types.js';

const directory = mkdtempSync(join(tmpdir(), 'nest-plugin-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const DECLARATIONS = 'declare function McpTool(options?: object): MethodDecorator;\n';

const TOOLS = `${DECLARATIONS}
/** Converts temperatures. */
export class KelvinService {
  /** Convert a temperature to kelvin. */
  @McpTool()
  toKelvin(/** The temperature */ value: number, unit: 'celsius' | 'fahrenheit' = 'celsius') {
    return value + (unit === 'celsius' ? 273.15 : 0);
  }
}

class HiddenService {
  @McpTool()
  hidden(text: string) {
    return text;
  }
}
export { HiddenService as Renamed };
`;

const KELVIN_TYPES = {
  toKelvin: {
    description: 'Convert a temperature to kelvin.',
    parameters: [
      { name: 'value', description: 'The temperature', optional: false, schema: { type: 'number' } },
      { name: 'unit', optional: true, default: 'celsius', schema: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    ],
  },
};

function programOf(files: Record<string, string>): ts.Program {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text);
  return ts.createProgram({
    rootNames: Object.keys(files).map((name) => join(directory, name)),
    options: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, experimentalDecorators: true, strict: true, noEmit: true, types: [] },
  });
}

describe('the types plugin for SWC builds: ReadonlyVisitor and metadata.ts', () => {
  it("writes, through Nest CLI's PluginMetadataGenerator, a metadata file that loadToolTypes attaches to the exported classes", async () => {
    const program = programOf({
      'kelvin.service.ts': TOOLS,
      // An entry file: importing it from metadata.ts while it awaits the app would never settle.
      'entry.ts': `${DECLARATIONS}export class EntryService { @McpTool() ping(text: string) { return text; } }\nawait Promise.resolve();\n`,
    });
    const visitor = new ReadonlyVisitor({ pathToSource: directory });
    new PluginMetadataGenerator().generate({ visitors: [visitor], outputDir: directory, tsProgramRef: program });
    const printed = readFileSync(join(directory, 'metadata.ts'), 'utf8');
    expect(printed).toContain('import("./kelvin.service.js")');
    expect(printed).not.toContain('entry.js');
    // Only the exported class under its own name can be reached from the metadata file.
    expect(printed).not.toContain('HiddenService');

    class KelvinService {}
    const metadata: PluginMetadata = async () => {
      const [, classes] = (visitor.collect().mcpToolTypes as unknown as [unknown, Record<string, ts.ObjectLiteralExpression>][])[0]!;
      const types = JSON.parse(
        ts.createPrinter().printNode(ts.EmitHint.Expression, classes.KelvinService!, ts.createSourceFile('x.ts', '', ts.ScriptTarget.ES2022)),
      );
      return { 'some-key': { mcpToolTypes: [[Promise.resolve({ KelvinService }), { KelvinService: types }]] }, '@nestjs/swagger': { models: [] } };
    };
    expect(await loadToolTypes(metadata)).toBe(1);
    expect(recordedToolTypes(KelvinService, 'toKelvin')).toEqual(KELVIN_TYPES.toKelvin);
  });

  it('refuses metadata naming a class its module does not export, telling to build again', async () => {
    const metadata: PluginMetadata = async () => ({ key: { mcpToolTypes: [[Promise.resolve({}), { GoneService: {} }]] } });
    await expect(loadToolTypes(metadata)).rejects.toThrow(
      'The tool types name the class GoneService, which its module does not export: build again (npm run build)',
    );
  });
});

describe('the types plugin for tsc builds: the before transformer', () => {
  it('gives each tool class, exported or not, a static factory of its tool types', async () => {
    const program = programOf({ 'kelvin.service.ts': TOOLS });
    const sourceFile = program.getSourceFile(join(directory, 'kelvin.service.ts'))!;
    const { transformed } = ts.transform(sourceFile, [before({}, program)], program.getCompilerOptions());
    const output = ts.createPrinter().printFile(transformed[0]!);
    expect(output).toContain(`static ${TOOL_TYPES_FACTORY}()`);
    const javascript = ts.transpileModule(`${output}\nexport { HiddenService };`, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, experimentalDecorators: true },
    }).outputText;
    const file = join(directory, 'transformed.mjs');
    writeFileSync(file, `const McpTool = () => () => undefined;\n${javascript}`);
    const compiled = (await import(pathToFileURL(file).href)) as Record<string, Function>;
    expect(recordedToolTypes(compiled.KelvinService!, 'toKelvin')).toEqual(KELVIN_TYPES.toKelvin);
    expect(recordedToolTypes(compiled.HiddenService!, 'hidden')).toEqual({ parameters: [{ name: 'text', optional: false, schema: { type: 'string' } }] });
  });

  it('leaves a file without tools as it is', () => {
    const program = programOf({ 'plain.ts': 'export const answer = 42;\n' });
    const sourceFile = program.getSourceFile(join(directory, 'plain.ts'))!;
    expect(ts.transform(sourceFile, [before({}, program)]).transformed[0]).toBe(sourceFile);
  });
});

describe('doc comments as descriptions', () => {
  it('join the lines the source wrapped, and keep paragraphs', () => {
    expect(unwrap('  Count readings\nat or above a goal.\n\nDays are calendar days.  ')).toBe('Count readings at or above a goal.\n\nDays are calendar days.');
  });
});
