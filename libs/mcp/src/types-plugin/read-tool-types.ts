import ts from 'typescript';
import type { ClassToolTypes, ParameterTypes, ToolTypes } from './tool-types.js';
import { documentation, unwrap } from './doc-comment.js';
import { typeToSchema } from './type-to-schema.js';

/** Parameter decorators whose value the server fills: their parameters are not the model's. */
const INJECTED_DECORATORS = new Set(['CurrentUser', 'ToolContext']);
const TOOL_DECORATOR = 'McpTool';

function decoratorName(decorator: ts.Decorator): string | undefined {
  const expression = ts.isCallExpression(decorator.expression) ? decorator.expression.expression : decorator.expression;
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return undefined;
}

const decoratorNames = (node: ts.HasDecorators) => (ts.getDecorators(node) ?? []).map(decoratorName);

/** The classes of a source file with `@McpTool` methods, and the types of those methods. */
export function readToolTypes(checker: ts.TypeChecker, sourceFile: ts.SourceFile): Map<ts.ClassDeclaration, ClassToolTypes> {
  const found = new Map<ts.ClassDeclaration, ClassToolTypes>();
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node)) {
      const methods: ClassToolTypes = {};
      for (const member of node.members) {
        if (ts.isMethodDeclaration(member) && ts.isIdentifier(member.name) && decoratorNames(member).includes(TOOL_DECORATOR)) {
          methods[member.name.text] = readMethod(checker, member);
        }
      }
      if (Object.keys(methods).length) found.set(node, methods);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

function readMethod(checker: ts.TypeChecker, method: ts.MethodDeclaration): ToolTypes {
  const signature = checker.getSignatureFromDeclaration(method);
  const description = signature ? documentation(signature.getDocumentationComment(checker)) : '';
  const output = outputSchema(checker, method);
  return {
    ...(description ? { description } : {}),
    parameters: method.parameters.map((parameter) => readParameter(checker, parameter)),
    ...(output ? { output } : {}),
  };
}

function readParameter(checker: ts.TypeChecker, parameter: ts.ParameterDeclaration): ParameterTypes {
  const optional = parameter.questionToken !== undefined || parameter.initializer !== undefined;
  if (!ts.isIdentifier(parameter.name)) {
    return {
      name: parameter.name.getText(),
      optional,
      refused: { reason: 'it is destructured, so it has no name to publish', fix: 'take it as one named parameter' },
    };
  }
  const name = parameter.name.text;
  if (decoratorNames(parameter).some((decorator) => decorator && INJECTED_DECORATORS.has(decorator))) return { name, injected: true, optional };
  const description = parameterDescription(checker, parameter);
  const fallback = literalValue(parameter.initializer);
  const schema = typeToSchema(checker, checker.getTypeAtLocation(parameter), 'input');
  return {
    name,
    ...(description ? { description } : {}),
    optional,
    ...(fallback.literal ? { default: fallback.value } : {}),
    ...('schema' in schema ? { schema: schema.schema } : { refused: schema.refused }),
  };
}

/** `@param name text` in the method's JSDoc, else a `/** … *\/` comment in front of the parameter. */
function parameterDescription(checker: ts.TypeChecker, parameter: ts.ParameterDeclaration): string | undefined {
  const symbol = checker.getSymbolAtLocation(parameter.name);
  const tagged = symbol ? documentation(symbol.getDocumentationComment(checker)) : '';
  if (tagged) return tagged;
  const text = parameter.getSourceFile().getFullText();
  const comments = ts.getLeadingCommentRanges(text, parameter.getFullStart()) ?? [];
  const doc = comments.filter((range) => text.startsWith('/**', range.pos)).at(-1);
  if (!doc) return undefined;
  const body = text
    .slice(doc.pos + 3, doc.end - 2)
    .split('\n')
    .map((line) => line.replace(/^\s*\*?\s?/, ''))
    .join('\n');
  return unwrap(body) || undefined;
}

function literalValue(node: ts.Expression | undefined): { literal: true; value: string | number | boolean | null } | { literal: false } {
  if (!node) return { literal: false };
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return { literal: true, value: node.text };
  if (ts.isNumericLiteral(node)) return { literal: true, value: Number(node.text) };
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand))
    return { literal: true, value: -Number(node.operand.text) };
  if (node.kind === ts.SyntaxKind.TrueKeyword) return { literal: true, value: true };
  if (node.kind === ts.SyntaxKind.FalseKeyword) return { literal: true, value: false };
  if (node.kind === ts.SyntaxKind.NullKeyword) return { literal: true, value: null };
  return { literal: false };
}

/**
 * The `T` of a return type written `ToolResult<T>` or `Promise<ToolResult<T>>` (or `Promise<T>`),
 * read from the annotation, so that it works where the tool API's own types do not resolve (a
 * tool file outside the project); only an object `T` gives an output schema.
 */
function outputSchema(checker: ts.TypeChecker, method: ts.MethodDeclaration) {
  let node = method.type;
  for (const wrapper of ['Promise', 'ToolResult']) {
    if (node && ts.isTypeReferenceNode(node) && node.typeName.getText() === wrapper && node.typeArguments?.length === 1) node = node.typeArguments[0];
  }
  if (!node || node === method.type) return undefined;
  const type = checker.getTypeFromTypeNode(node);
  if (!(type.flags & ts.TypeFlags.Object) || checker.isArrayType(type) || type.getSymbol()?.getName() === 'Date' || isProtocolResult(checker, type))
    return undefined;
  const schema = typeToSchema(checker, type, 'output');
  return 'schema' in schema ? schema.schema : undefined;
}

/** A full MCP result the method builds itself (`CallToolResult`, an input request): published as it is, so its shape is no output schema. */
function isProtocolResult(checker: ts.TypeChecker, type: ts.Type): boolean {
  return ['content', 'inputRequests', 'resultType'].some((name) => checker.getPropertyOfType(type, name) !== undefined);
}
