import { relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { readToolTypes } from './read-tool-types.js';
import { TOOL_TYPES_FACTORY, TOOL_TYPES_SECTION, type ClassToolTypes } from './tool-types.js';

/**
 * The types plugin as the Nest CLI runs compiler plugins (`compilerOptions.plugins` in
 * nest-cli.json; the entry is `libs/mcp/plugin.cjs`), in its two forms:
 * - `before`: a transformer for builds that compile with tsc (`nest build -b tsc`), which gives
 *   each tool class a static `_MCP_TOOL_TYPES_FACTORY` method, as `@nestjs/swagger/plugin` gives
 *   DTOs `_OPENAPI_METADATA_FACTORY`;
 * - `ReadonlyVisitor`: for builds that compile with SWC, which cannot run transformers. Nest CLI's
 *   `PluginMetadataGenerator` calls it for each file of one program and prints what it collects
 *   into `metadata.ts`, which the app hands to `loadToolTypes` before Nest explores its providers.
 */
export interface ToolTypesPluginOptions {
  /** Set by the Nest CLI: the folder `metadata.ts` is written to, from which its imports are relative. */
  pathToSource?: string;
}

/** The transformer the Nest CLI runs before TypeScript's own when it compiles with tsc. */
export function before(_options: ToolTypesPluginOptions, program: ts.Program): ts.TransformerFactory<ts.SourceFile> {
  return (context) => (sourceFile) => {
    const classes = readToolTypes(program.getTypeChecker(), sourceFile);
    if (classes.size === 0) return sourceFile;
    const visit = (node: ts.Node): ts.Node => {
      const types = ts.isClassDeclaration(node) ? classes.get(ts.getOriginalNode(node) as ts.ClassDeclaration) : undefined;
      if (types) {
        const declaration = node as ts.ClassDeclaration;
        return ts.factory.updateClassDeclaration(
          declaration,
          declaration.modifiers,
          declaration.name,
          declaration.typeParameters,
          declaration.heritageClauses,
          [...declaration.members, factoryMethod(types)],
        );
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitEachChild(sourceFile, visit, context);
  };
}

/** `static _MCP_TOOL_TYPES_FACTORY() { return { … }; }` */
function factoryMethod(types: ClassToolTypes): ts.MethodDeclaration {
  const { factory } = ts;
  return factory.createMethodDeclaration(
    [factory.createModifier(ts.SyntaxKind.StaticKeyword)],
    undefined,
    TOOL_TYPES_FACTORY,
    undefined,
    undefined,
    [],
    undefined,
    factory.createBlock([factory.createReturnStatement(objectExpression(types))]),
  );
}

/**
 * Collects the tool types of a program's exported classes for `metadata.ts` (a class the module
 * does not export cannot be reached from there). A module with top-level `await` is left out: it
 * is an entry file, and the app importing it from `metadata.ts` while it awaits the app would wait
 * forever.
 */
export class ReadonlyVisitor {
  /** Set by the Nest CLI to the plugin's name in nest-cli.json; the metadata file's key for these sections. */
  key = '@app/mcp/plugin';
  /** Types `metadata.ts` would import for other plugins' references; tool types are plain data and need none. */
  readonly typeImports: Record<string, string> = {};
  private readonly outputDirectory: string;
  private readonly found: [ts.CallExpression, Record<string, ts.ObjectLiteralExpression>][] = [];

  constructor(options: ToolTypesPluginOptions = {}) {
    this.outputDirectory = resolve(options.pathToSource ?? '.');
  }

  visit(program: ts.Program, sourceFile: ts.SourceFile): void {
    if (hasTopLevelAwait(sourceFile)) return;
    const classes: Record<string, ts.ObjectLiteralExpression> = {};
    for (const [declaration, types] of readToolTypes(program.getTypeChecker(), sourceFile)) {
      if (declaration.name && ts.isSourceFile(declaration.parent) && isExported(declaration)) classes[declaration.name.text] = objectExpression(types);
    }
    if (Object.keys(classes).length) this.found.push([importExpression(this.specifierOf(sourceFile.fileName)), classes]);
  }

  collect(): Record<string, [ts.CallExpression, Record<string, ts.ObjectLiteralExpression>][]> {
    return { [TOOL_TYPES_SECTION]: this.found };
  }

  /** `./libs/tools/src/echo.service.js`: the compiled module, relative to `metadata.ts`. */
  private specifierOf(fileName: string): string {
    const path = relative(this.outputDirectory, fileName)
      .split(sep)
      .join('/')
      .replace(/\.(m|c)?tsx?$/, '.$1js');
    return path.startsWith('.') ? path : `./${path}`;
  }
}

function hasTopLevelAwait(sourceFile: ts.SourceFile): boolean {
  const awaits = (node: ts.Node): boolean => {
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)) return true;
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return false;
    return ts.forEachChild(node, awaits) ?? false;
  };
  return sourceFile.statements.some(awaits);
}

const isExported = (declaration: ts.ClassDeclaration) => (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Export) !== 0;

/** `import("./path.js")` */
function importExpression(specifier: string): ts.CallExpression {
  return ts.factory.createCallExpression(ts.factory.createToken(ts.SyntaxKind.ImportKeyword) as ts.Expression, undefined, [
    ts.factory.createStringLiteral(specifier),
  ]);
}

/** A JSON object as an expression, for the printer and the transformer. */
function objectExpression(value: object): ts.ObjectLiteralExpression {
  return ts.factory.createObjectLiteralExpression(
    Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .map(([name, field]) => ts.factory.createPropertyAssignment(ts.factory.createStringLiteral(name), jsonExpression(field))),
  );
}

function jsonExpression(value: unknown): ts.Expression {
  const { factory } = ts;
  if (value === null) return factory.createNull();
  if (typeof value === 'string') return factory.createStringLiteral(value);
  if (typeof value === 'boolean') return value ? factory.createTrue() : factory.createFalse();
  if (typeof value === 'number') {
    const literal = factory.createNumericLiteral(Math.abs(value));
    return value < 0 || Object.is(value, -0) ? factory.createPrefixUnaryExpression(ts.SyntaxKind.MinusToken, literal) : literal;
  }
  if (Array.isArray(value)) return factory.createArrayLiteralExpression(value.map(jsonExpression));
  return objectExpression(value as object);
}
