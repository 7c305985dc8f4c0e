import ts from 'typescript';
import { readToolTypes } from './read-tool-types.js';
import { TOOL_TYPES_FACTORY } from './tool-types.js';

/**
 * Reads the tool types of TypeScript files as a program (the checker resolves what a file
 * imports), and gives each file the statements that attach them to its classes. Lib and imported
 * declaration files are parsed once and shared by every file it reads after.
 */
export class ToolTypesSource {
  private readonly options: ts.CompilerOptions;
  private readonly host: ts.CompilerHost;
  private readonly parsed = new Map<string, ts.SourceFile | undefined>();
  private program?: ts.Program;

  constructor(options: ts.CompilerOptions = {}) {
    this.options = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      experimentalDecorators: true,
      // `T | null` and `x?: T` mean what they say only with strict null checks.
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
      lib: ['lib.es2023.d.ts'],
      ...options,
    };
    this.host = ts.createCompilerHost(this.options, true);
    const read = this.host.getSourceFile.bind(this.host);
    this.host.getSourceFile = (fileName, language, onError, fresh) => {
      // Declaration files do not change while the process runs; sources may (a test writes them).
      if (!fileName.endsWith('.d.ts')) return read(fileName, language, onError, fresh);
      if (!this.parsed.has(fileName)) this.parsed.set(fileName, read(fileName, language, onError, fresh));
      return this.parsed.get(fileName);
    };
  }

  /** The tool types of the classes of `fileName`. */
  read(fileName: string): ReturnType<typeof readToolTypes> {
    this.program = ts.createProgram({ rootNames: [fileName], options: this.options, host: this.host, oldProgram: this.program });
    const sourceFile = this.program.getSourceFile(fileName);
    return sourceFile ? readToolTypes(this.program.getTypeChecker(), sourceFile) : new Map();
  }

  /** JavaScript statements that attach the tool types of `fileName`'s top-level classes to them, or '' when it has none. */
  statementsFor(fileName: string): string {
    return attachStatements(this.read(fileName));
  }
}

/** `Object.defineProperty(Class, factory, …)` for each named top-level class (the only ones the module scope can name). */
export function attachStatements(classes: ReturnType<typeof readToolTypes>): string {
  const statements: string[] = [];
  for (const [declaration, types] of classes) {
    if (!declaration.name || !ts.isSourceFile(declaration.parent)) continue;
    statements.push(
      `Object.defineProperty(${declaration.name.text}, ${JSON.stringify(TOOL_TYPES_FACTORY)}, { value: () => (${JSON.stringify(types)}), configurable: true });`,
    );
  }
  return statements.length ? `\n// Tool types read from the TypeScript declarations (mirobody's types plugin).\n${statements.join('\n')}\n` : '';
}
