import { Injectable, Module } from '@nestjs/common';
import { Arg, CurrentUser, McpTool, McpToolContext, ToolContext, type UserInfo } from '@app/mcp';
import { pause } from './conformance-tools/_fixture-data.js';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** Task tools for the tasks extension's tests: one that waits, one that asks, one that fails, one that answers too much. */
@Injectable()
export class TaskProbeService {
  /** How many `wait_for` calls ran to their end: a cancelled one must not. */
  waitsEnded = 0;

  @McpTool({ description: 'Waits `ms` milliseconds, reporting progress halfway, then says whose call it was.', task: 'optional' })
  async waitFor(
    @Arg('ms', { type: 'integer', schema: { minimum: 0, maximum: 600_000 } }) ms: number,
    @CurrentUser() caller: UserInfo,
    @ToolContext() context: McpToolContext,
  ) {
    await pause(ms / 2, context.signal);
    await context.progress(1, 2, 'halfway');
    await pause(ms / 2, context.signal);
    this.waitsEnded++;
    return text(`waited ${ms} ms for ${caller.userId ?? 'nobody'}`);
  }

  @McpTool({ description: 'Asks for a name, then greets.', task: 'optional' })
  async askName(@ToolContext() context: McpToolContext) {
    const answer = await context.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return text(answer.action === 'accept' ? `Hello, ${String(answer.content?.['name'])}` : `No name (${answer.action})`);
  }

  @McpTool({ description: 'Fails inside the server after `ms` milliseconds.', task: 'required' })
  async breakLater(@Arg('ms', { type: 'integer', schema: { minimum: 0 } }) ms: number, @ToolContext() context: McpToolContext) {
    await pause(ms, context.signal);
    throw new Error('a bug in the tool');
  }

  @McpTool({ description: 'Answers `bytes` bytes of text after a second.', task: 'optional' })
  async answerMuch(@Arg('bytes', { type: 'integer', schema: { minimum: 1 } }) bytes: number, @ToolContext() context: McpToolContext) {
    await pause(1000, context.signal);
    return text('x'.repeat(bytes));
  }
}

@Module({ providers: [TaskProbeService] })
export class TaskToolsModule {}
