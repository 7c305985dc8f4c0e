import { acceptedContent, inputRequired, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/server';
import { Arg, Injectable, InvalidInputError, McpTool, McpToolContext, ToolContext } from 'mirobody';
import { formSchema, NO_ARGUMENTS, pause } from './_fixture-data.js';

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * The tasks extension's fixtures (SEP-2663, scenarios `tasks-*` of revision 2026-07-28). A task
 * tool's call that takes longer than MCP_TASK_ANSWER_WITHIN_MS (500 ms), or asks for input, is
 * answered with a task; the one-second pauses below make sure of the first.
 */
@Injectable()
export class ConformanceTasksService {
  @McpTool({ name: 'greet', description: 'Greets by name; never a task' })
  greet(@Arg('name', { description: 'Who to greet' }) name: string): CallToolResult {
    return text(`Hello, ${name}!`);
  }

  @McpTool({ name: 'slow_compute', description: 'Takes `seconds` seconds, then answers; 0 answers at once', task: 'optional' })
  async slowCompute(
    @Arg('seconds', { type: 'integer', schema: { minimum: 0, maximum: 600 } }) seconds: number,
    @Arg('label', { optional: true }) label: string | undefined,
    @ToolContext() context: McpToolContext,
  ): Promise<CallToolResult> {
    await pause(seconds * 1000, context.signal);
    return text(`Computed ${label ?? 'result'} in ${seconds}s`);
  }

  @McpTool({ name: 'failing_job', description: 'Ends with a tool error after a second', task: 'required', inputSchema: NO_ARGUMENTS })
  async failingJob(@ToolContext() context: McpToolContext): Promise<CallToolResult> {
    await pause(1000, context.signal);
    throw new InvalidInputError('The job failed, as this fixture always does');
  }

  @McpTool({ name: 'protocol_error_job', description: 'Fails inside the server after a second', task: 'optional', inputSchema: NO_ARGUMENTS })
  async protocolErrorJob(@ToolContext() context: McpToolContext): Promise<CallToolResult> {
    await pause(1000, context.signal);
    throw new Error('Simulated crash of the job');
  }

  @McpTool({ name: 'confirm_delete', description: 'Asks the user to confirm, then answers', task: 'optional' })
  async confirmDelete(@Arg('filename') filename: string, @ToolContext() context: McpToolContext): Promise<CallToolResult> {
    const answer = await context.elicit({ message: `Delete ${filename}?`, requestedSchema: formSchema('confirm', 'boolean') });
    return text(answer.action === 'accept' && answer.content?.['confirm'] === true ? `Deleted ${filename}` : `Kept ${filename}`);
  }

  @McpTool({ name: 'multi_input', description: 'Asks two questions at once', task: 'optional', inputSchema: NO_ARGUMENTS })
  async multiInput(@ToolContext() context: McpToolContext): Promise<CallToolResult> {
    const [name, confirmation] = await Promise.all([
      context.elicit({ message: 'Your name?', requestedSchema: formSchema('name', 'string') }),
      context.elicit({ message: 'Proceed?', requestedSchema: formSchema('confirm', 'boolean') }),
    ]);
    return text(`${String(name.content?.['name'] ?? 'someone')} answered; proceed: ${String(confirmation.content?.['confirm'] ?? false)}`);
  }

  /** Gathers a name in the request (a multi-round-trip round), then works on as a task. */
  @McpTool({ name: 'test_tool_with_task', description: 'Asks for a name, then becomes a task', task: 'required', inputSchema: NO_ARGUMENTS })
  async toolWithTask(@ToolContext() context: McpToolContext): Promise<CallToolResult | InputRequiredResult> {
    const name = acceptedContent<{ name: string }>(context.inputResponses, 'user_name')?.name;
    if (typeof name !== 'string') {
      return inputRequired({
        inputRequests: { user_name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: formSchema('name', 'string') }) },
      });
    }
    await pause(1000, context.signal);
    return text(`Hello, ${name}! (from a task)`);
  }
}
