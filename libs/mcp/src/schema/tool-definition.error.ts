/** A tool, resource or prompt whose declaration cannot be turned into a contract; stops start-up. */
export class ToolDefinitionError extends Error {
  constructor(owner: string, problem: string, fix: string) {
    super(`${owner}: ${problem}. Fix: ${fix}`);
    this.name = 'ToolDefinitionError';
  }
}
