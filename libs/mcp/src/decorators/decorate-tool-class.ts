import { Injectable } from '@nestjs/common';

export interface MethodDecorations {
  /** `McpTool(...)`, `McpResource(...)`, `McpPrompt(...)`, `UseGuards(...)`, ... */
  decorators?: MethodDecorator[];
  /** The parameters' decorators by position: `Arg(...)` (with its `type`), `CurrentUser()`, `ToolContext()`. */
  params?: ParameterDecorator[];
}

export interface ToolClassDecorations {
  /** Constructor dependencies by position, as TypeScript would reflect them (`DataSource`, `ConfigService`, ...). */
  inject?: readonly unknown[];
  methods?: Record<string, MethodDecorations>;
}

/**
 * Decorator syntax for plain JavaScript, which has none: applies the same decorators a TypeScript
 * class would carry and makes the class injectable. JavaScript emits no type metadata, so every
 * `Arg` names its `type`.
 */
export function decorateToolClass(target: abstract new (...args: never[]) => unknown, decorations: ToolClassDecorations): void {
  Injectable()(target);
  if (decorations.inject) Reflect.defineMetadata('design:paramtypes', [...decorations.inject], target);
  const prototype = target.prototype as object;
  for (const [method, { decorators = [], params = [] }] of Object.entries(decorations.methods ?? {})) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, method);
    if (typeof descriptor?.value !== 'function') throw new TypeError(`${target.name} has no method "${method}" to decorate`);
    params.forEach((decorator, index) => decorator(prototype, method, index));
    for (const decorator of decorators) decorator(prototype, method, descriptor);
  }
}
