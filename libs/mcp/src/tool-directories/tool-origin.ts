import { MCP_TOOL_ORIGIN_METADATA } from '../decorators/constants.js';

/** Where a tool class came from: built into the server, or a file in one of the `MCP_TOOL_DIRS`. */
export type ToolOrigin = { kind: 'packaged' } | { kind: 'directory'; directory: string; file: string; rank: number };

export const PACKAGED: ToolOrigin = Object.freeze({ kind: 'packaged' });

/** Recorded by the directory loader on each class it imports; classes without it are packaged. */
export function markOrigin(toolClass: Function, origin: ToolOrigin): void {
  Reflect.defineMetadata(MCP_TOOL_ORIGIN_METADATA, origin, toolClass);
}

export function originOf(toolClass: Function): ToolOrigin {
  return Reflect.getOwnMetadata(MCP_TOOL_ORIGIN_METADATA, toolClass) ?? PACKAGED;
}

/** Directory tools come first, in the order of `MCP_TOOL_DIRS` and then of file names; packaged ones last. */
export function precedence(origin: ToolOrigin): number {
  return origin.kind === 'directory' ? origin.rank : Number.POSITIVE_INFINITY;
}

/** `packaged`, or the file's path: how logs and the catalog name an origin. */
export function describeOrigin(origin: ToolOrigin): string {
  return origin.kind === 'packaged' ? 'packaged' : origin.file;
}
