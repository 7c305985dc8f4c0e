import { McpTool } from 'mirobody';

export class WhenService {
  /** Say what day it was. */
  @McpTool()
  dayOf(when: string | number): string {
    return String(when);
  }
}
