import type { ToolAnnotations } from '@modelcontextprotocol/server';

/** A JSON Schema object, as written by hand or produced by the schema builder. */
export type JsonSchema = Record<string, unknown>;

/** What an argument's `type` or `items` option may name: a constructor, an input class, or a JSON Schema type word. */
export type SchemaTypeRef =
  | StringConstructor
  | NumberConstructor
  | BooleanConstructor
  | ObjectConstructor
  | (abstract new (...args: never[]) => unknown)
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'object';

/** Options shared by tool arguments and input-class properties. */
export interface SchemaValueOptions {
  description?: string;
  /** Overrides the reflected type: `'integer'` for whole numbers, `'object'` (or `Object`) for a free-form record. */
  type?: SchemaTypeRef;
  /** Element type of an array; required whenever the value is an array. */
  items?: SchemaTypeRef | JsonSchema;
  /** Allowed values: a list or a TypeScript enum object. */
  enum?: readonly (string | number)[] | Record<string, string | number>;
  /** Value applied when the argument is omitted; makes it optional. `undefined`/`null` are not written into the schema. */
  default?: unknown;
  /** Makes the argument optional without a default. */
  optional?: boolean;
  /** Extra JSON Schema keywords merged into the generated schema (`minimum`, `maxLength`, `format`, ...). */
  schema?: JsonSchema;
}

/**
 * Who must allow a call before the method runs. `caller`: the calling user confirms the exact
 * arguments (an elicitation form, or an input request). `approver`: a person allowed to decide (an
 * admin, or a holder of `APPROVALS_APPROVER_ROLE`), never the caller, approves it; the call waits
 * as a task, or is answered with the approval request's id.
 */
export type ApprovalPolicy = 'caller' | 'approver';

export interface ToolOptions {
  /** Tool name; defaults to the method name in snake_case. */
  name?: string;
  description?: string;
  title?: string;
  /** A hand-written input schema, used verbatim instead of the generated one. */
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** Passed through as the tool's `_meta`. */
  meta?: Record<string, unknown>;
  /**
   * OAuth scopes a caller's token must carry, all of them, to see and call the tool (added to those
   * of the class's `@McpTools({ scopes })`). Callers whose credential carries no scopes (personal MCP
   * secrets; JWTs unless `JWT_SCOPES_CLAIM` is set) are not limited by them.
   */
  scopes?: readonly string[];
  /**
   * Lets a call outlast its request as a task (the MCP tasks extension, with `McpTasksModule`): a
   * call that takes longer than `MCP_TASK_ANSWER_WITHIN_MS`, or asks the client for input, is
   * answered with a task the client polls. `optional`: clients without the extension get the result
   * in the request, as from any tool; `required`: they are refused (-32021). Default: never a task.
   */
  task?: 'optional' | 'required';
  /**
   * Makes every call wait for a person (see `ApprovalPolicy`); a deployment may change it
   * (`APPROVALS_CALLER_TOOLS`, `APPROVALS_APPROVER_TOOLS`, `APPROVALS_EXEMPT_TOOLS`). Anonymous
   * calls are refused: someone must be answerable for the call.
   */
  approval?: ApprovalPolicy;
}

export type ToolParameterKind = 'arg' | 'caller' | 'context';

export interface ToolParameterMetadata {
  index: number;
  kind: ToolParameterKind;
  /** The argument's name in the schema; only for `arg` parameters. */
  name?: string;
  options: SchemaValueOptions;
}

export interface SchemaPropertyMetadata {
  key: string;
  options: SchemaValueOptions;
}

export interface ResourceOptions {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface ResourceTemplateOptions {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface PromptArgumentOptions {
  name: string;
  description?: string;
  required?: boolean;
}

export interface PromptOptions {
  name?: string;
  title?: string;
  description?: string;
  arguments?: PromptArgumentOptions[];
}

/** Names the prompt or resource template whose argument this method completes. */
export interface CompletionOptions {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: string;
}
