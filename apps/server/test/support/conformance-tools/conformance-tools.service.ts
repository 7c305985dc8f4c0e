import { inputRequired, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/server';
import { Arg, Injectable, McpTool, McpToolContext, ToolContext } from 'mirobody';
import { NO_ARGUMENTS, sleep, TEST_AUDIO_BASE64, TEST_IMAGE_BASE64 } from './_fixture-data.js';

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * The tools the conformance scenarios call by name: one per content type, logging, progress,
 * errors, server-initiated sampling and elicitation (2025 sessions), and the diagnostics of the
 * stateless 2026-07-28 scenarios. Names and payloads are fixed by the suite.
 */
@Injectable()
export class ConformanceToolsService {
  @McpTool({ name: 'test_simple_text', description: 'Tests simple text content response', inputSchema: NO_ARGUMENTS })
  simpleText(): CallToolResult {
    return text('This is a simple text response for testing.');
  }

  @McpTool({ name: 'test_image_content', description: 'Tests image content response', inputSchema: NO_ARGUMENTS })
  imageContent(): CallToolResult {
    return { content: [{ type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' }] };
  }

  @McpTool({ name: 'test_audio_content', description: 'Tests audio content response', inputSchema: NO_ARGUMENTS })
  audioContent(): CallToolResult {
    return { content: [{ type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' }] };
  }

  @McpTool({ name: 'test_embedded_resource', description: 'Tests embedded resource content response', inputSchema: NO_ARGUMENTS })
  embeddedResource(): CallToolResult {
    return {
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    };
  }

  @McpTool({
    name: 'test_multiple_content_types',
    description: 'Tests response with multiple content types (text, image, resource)',
    inputSchema: NO_ARGUMENTS,
  })
  multipleContentTypes(): CallToolResult {
    return {
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
        },
      ],
    };
  }

  /** Sends the log notifications unconditionally: the scenario sets no log level and expects all three. */
  @McpTool({ name: 'test_tool_with_logging', description: 'Tests tool that emits log messages during execution', inputSchema: NO_ARGUMENTS })
  async toolWithLogging(@ToolContext() context: McpToolContext): Promise<CallToolResult> {
    const steps = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
    for (const [index, data] of steps.entries()) {
      await context.raw.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data } });
      if (index < steps.length - 1) await sleep(50);
    }
    return text('Tool with logging executed successfully');
  }

  /** Reports 0, 50 and 100 of 100; `progress()` stays silent when the client sent no progress token, as the spec requires. */
  @McpTool({ name: 'test_tool_with_progress', description: 'Tests tool that reports progress notifications', inputSchema: NO_ARGUMENTS })
  async toolWithProgress(@ToolContext() context: McpToolContext): Promise<CallToolResult> {
    for (const progress of [0, 50, 100]) {
      await context.progress(progress, 100, `Completed step ${progress} of 100`);
      if (progress < 100) await sleep(50);
    }
    return text(String(context.raw.mcpReq._meta?.progressToken ?? 'no-progress-token'));
  }

  /** A thrown error becomes an `isError` result, which is what the scenario checks. */
  @McpTool({ name: 'test_error_handling', description: 'Tests error response handling', inputSchema: NO_ARGUMENTS })
  errorHandling(): never {
    throw new Error('This tool intentionally returns an error for testing');
  }

  @McpTool({ name: 'test_sampling', description: 'Tests server-initiated sampling (LLM completion request)' })
  async sampling(
    @Arg('prompt', { description: 'The prompt to send to the LLM' }) prompt: string,
    @ToolContext() context: McpToolContext,
  ): Promise<CallToolResult> {
    const result = await context.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
    const content = Array.isArray(result.content) ? result.content[0] : result.content;
    return text(`LLM response: ${content?.type === 'text' ? content.text : 'No response'}`);
  }

  @McpTool({ name: 'test_elicitation', description: 'Tests server-initiated elicitation (user input request)' })
  async elicitation(
    @Arg('message', { description: 'The message to show the user' }) message: string,
    @ToolContext() context: McpToolContext,
  ): Promise<CallToolResult> {
    const result = await context.elicit({
      message,
      requestedSchema: { type: 'object', properties: { response: { type: 'string', description: "User's response" } }, required: ['response'] },
    });
    return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  }

  /** SEP-1034: a default value for every primitive type of an elicitation form. */
  @McpTool({ name: 'test_elicitation_sep1034_defaults', description: 'Tests elicitation with default values per SEP-1034', inputSchema: NO_ARGUMENTS })
  async elicitationDefaults(@ToolContext() context: McpToolContext): Promise<CallToolResult> {
    const result = await context.elicit({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
    return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  }

  /** SEP-1330: the five enum shapes (untitled/titled single, legacy enumNames, untitled/titled multi). */
  @McpTool({ name: 'test_elicitation_sep1330_enums', description: 'Tests elicitation with enum schema improvements per SEP-1330', inputSchema: NO_ARGUMENTS })
  async elicitationEnums(@ToolContext() context: McpToolContext): Promise<CallToolResult> {
    const titled = (prefix: string, label: string) =>
      ['First', 'Second', 'Third'].map((ordinal, index) => ({ const: `${prefix}${index + 1}`, title: `${ordinal} ${label}` }));
    const result = await context.elicit({
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: titled('value', 'Option') },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: { anyOf: titled('value', 'Choice') },
          },
        },
        required: [],
      },
    });
    return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  }

  // --- Diagnostics the stateless (2026-07-28) scenario looks up by name; without them its checks are "untestable" failures.

  /** Asks for sampling in-band; called without the sampling capability, the SDK answers -32021 over HTTP 400. */
  @McpTool({ name: 'test_missing_capability', description: 'Requires the sampling client capability (SEP-2575 -32021 check)', inputSchema: NO_ARGUMENTS })
  missingCapability(@ToolContext() context: McpToolContext): CallToolResult | InputRequiredResult {
    if (context.inputResponses?.['llm_answer'] !== undefined) return text('sampling round-trip complete');
    return inputRequired({
      inputRequests: {
        llm_answer: inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Reply with the single word: pong' } }],
          maxTokens: 16,
        }),
      },
    });
  }

  /** Must not elicit: the check only asserts that the response stream carries no server-to-client request. */
  @McpTool({
    name: 'test_streaming_elicitation',
    description: 'Answers on a stream that carries no independent JSON-RPC requests (SEP-2575)',
    inputSchema: NO_ARGUMENTS,
  })
  streamingElicitation(): CallToolResult {
    return text('stream observed: result frames only, no top-level requests');
  }

  /** Logs through the request-scoped channel, which stays silent unless the request set `_meta` logLevel. */
  @McpTool({ name: 'test_logging_tool', description: 'Logs only when the request asked for a log level (SEP-2575)', inputSchema: NO_ARGUMENTS })
  async loggingTool(@ToolContext() context: McpToolContext): Promise<CallToolResult> {
    await context.log('info', 'test_logging_tool ran (delivered only when the request set _meta.logLevel)');
    return text('logged through the request-scoped, logLevel-gated channel');
  }
}
