import { randomUUID } from 'node:crypto';
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  type CallToolResult,
  type ClientCapabilities,
  type GetPromptResult,
  type InputRequests,
  type InputRequiredResult,
} from '@modelcontextprotocol/server';
import { Injectable, InvalidInputError, McpPrompt, McpRequestState, McpTool, McpToolContext, ToolContext } from 'mirobody';
import { formSchema, NO_ARGUMENTS } from './_fixture-data.js';

type Outcome = Promise<CallToolResult | InputRequiredResult>;

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

const askName = () => inputRequired.elicit({ message: 'What is your name?', requestedSchema: formSchema('name', 'string') });
const askConfirmation = () => inputRequired.elicit({ message: 'Please confirm', requestedSchema: formSchema('ok', 'boolean') });
const askModel = (question: string, maxTokens: number) =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens });

/**
 * Multi-round-trip fixtures (SEP-2322, revision 2026-07-28). Every handler is written
 * write-once: it answers `inputRequired(...)` until the retried request carries the responses it
 * needs. Nothing is kept between rounds (each 2026 request may land on a fresh server); what a
 * flow must remember travels in `requestState`, signed by `McpRequestState` and checked by the
 * server before the handler runs, so a tampered state is refused with -32602.
 */
@Injectable()
export class ConformanceInputRequiredService {
  constructor(private readonly requestState: McpRequestState) {}

  @McpTool({
    name: 'test_input_required_result_elicitation',
    description: 'Asks for the caller name via an in-band elicitation request',
    inputSchema: NO_ARGUMENTS,
  })
  async elicitation(@ToolContext() context: McpToolContext): Outcome {
    const name = acceptedContent<{ name: string }>(context.inputResponses, 'user_name')?.name;
    if (typeof name !== 'string') return inputRequired({ inputRequests: { user_name: askName() } });
    return text(`Hello, ${name}!`);
  }

  @McpTool({
    name: 'test_input_required_result_sampling',
    description: 'Asks for an LLM completion via an in-band sampling request',
    inputSchema: NO_ARGUMENTS,
  })
  async sampling(@ToolContext() context: McpToolContext): Outcome {
    const answer = context.inputResponses?.['capital_question'] as { content?: { text?: unknown } } | undefined;
    if (answer === undefined) return inputRequired({ inputRequests: { capital_question: askModel('What is the capital of France?', 100) } });
    return text(`Sampling response: ${typeof answer.content?.text === 'string' ? answer.content.text : JSON.stringify(answer)}`);
  }

  @McpTool({
    name: 'test_input_required_result_list_roots',
    description: 'Asks for the client roots via an in-band roots/list request',
    inputSchema: NO_ARGUMENTS,
  })
  async listRoots(@ToolContext() context: McpToolContext): Outcome {
    const roots = (context.inputResponses?.['client_roots'] as { roots?: { uri?: string }[] } | undefined)?.roots;
    if (!Array.isArray(roots)) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    return text(`Client exposed ${roots.length} root(s): ${roots.map((root) => root.uri).join(', ')}`);
  }

  /** The retry must echo the signed state; by then the server has verified and decoded it. */
  @McpTool({
    name: 'test_input_required_result_request_state',
    description: 'Round-trips signed requestState alongside an elicitation request',
    inputSchema: NO_ARGUMENTS,
  })
  async requestStateRoundTrip(@ToolContext() context: McpToolContext): Outcome {
    if (acceptedContent(context.inputResponses, 'confirm') === undefined) {
      return inputRequired({ inputRequests: { confirm: askConfirmation() }, requestState: await this.mint(context, 'request_state') });
    }
    if (context.raw.mcpReq.requestState() === undefined) throw new InvalidInputError('Invalid requestState: missing or failed integrity verification');
    return text('state-ok: requestState verified and confirmation received');
  }

  @McpTool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks for elicitation, sampling and roots input in a single round',
    inputSchema: NO_ARGUMENTS,
  })
  async multipleInputs(@ToolContext() context: McpToolContext): Outcome {
    const responses = context.inputResponses;
    const name = acceptedContent<{ name: string }>(responses, 'user_name')?.name;
    const greeting = (responses?.['greeting'] as { content?: { text?: unknown } } | undefined)?.content?.text;
    const roots = (responses?.['client_roots'] as { roots?: unknown[] } | undefined)?.roots;
    if (typeof name !== 'string' || typeof greeting !== 'string' || !Array.isArray(roots)) {
      return inputRequired({
        inputRequests: { user_name: askName(), greeting: askModel('Generate a greeting', 50), client_roots: inputRequired.listRoots() },
        requestState: await this.mint(context, 'multiple_inputs'),
      });
    }
    return text(`${greeting} ${name} — ${roots.length} root(s) visible`);
  }

  /** Two elicitation rounds; the round number and the first answer live in the state, which changes between rounds. */
  @McpTool({
    name: 'test_input_required_result_multi_round',
    description: 'Two elicitation rounds with evolving requestState before completing',
    inputSchema: NO_ARGUMENTS,
  })
  async multiRound(@ToolContext() context: McpToolContext): Outcome {
    const state = context.raw.mcpReq.requestState<{ tool?: string; round?: number; name?: string }>();
    const round = state?.tool === 'multi_round' && typeof state.round === 'number' ? state.round : 0;
    if (round === 0) {
      return inputRequired({
        inputRequests: { step1: inputRequired.elicit({ message: 'Step 1: What is your name?', requestedSchema: formSchema('name', 'string') }) },
        requestState: await this.mint(context, 'multi_round', { round: 1 }),
      });
    }
    if (round === 1) {
      const name = acceptedContent<{ name: string }>(context.inputResponses, 'step1')?.name ?? 'unknown';
      return inputRequired({
        inputRequests: { step2: inputRequired.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: formSchema('color', 'string') }) },
        requestState: await this.mint(context, 'multi_round', { round: 2, name }),
      });
    }
    const color = acceptedContent<{ color: string }>(context.inputResponses, 'step2')?.color ?? 'unknown';
    return text(`Multi-round complete: ${state?.name ?? 'unknown'} likes ${color}`);
  }

  /** Completes only with verified state; a tampered state never reaches this handler. */
  @McpTool({
    name: 'test_input_required_result_tampered_state',
    description: 'Rejects retries whose requestState fails integrity verification',
    inputSchema: NO_ARGUMENTS,
  })
  async tamperedState(@ToolContext() context: McpToolContext): Outcome {
    if (context.raw.mcpReq.requestState() !== undefined && acceptedContent(context.inputResponses, 'confirm') !== undefined) {
      return text('integrity-ok: requestState verified');
    }
    return inputRequired({ inputRequests: { confirm: askConfirmation() }, requestState: await this.mint(context, 'tampered_state') });
  }

  /** Requests only the input kinds the client declared in the request's capabilities envelope. */
  @McpTool({
    name: 'test_input_required_result_capabilities',
    description: 'Only requests input kinds the declared client capabilities cover',
    inputSchema: NO_ARGUMENTS,
  })
  async capabilities(@ToolContext() context: McpToolContext): Outcome {
    if (context.inputResponses !== undefined) return text('Capability-aware input requests fulfilled');
    // The SDK's published type of the envelope is empty; the capabilities sit under their reserved key.
    const envelope = context.raw.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined;
    const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
    const inputRequests: InputRequests = {};
    if (declared?.elicitation !== undefined) inputRequests.user_name = askName();
    if (declared?.sampling !== undefined) inputRequests.greeting = askModel('Generate a short greeting', 50);
    if (declared?.roots !== undefined) inputRequests.client_roots = inputRequired.listRoots();
    if (Object.keys(inputRequests).length === 0) return text('No declared client capability supports an in-band input request');
    return inputRequired({ inputRequests });
  }

  /** prompts/get may answer `input_required` too (the non-tool-request scenario). */
  @McpPrompt({ name: 'test_input_required_result_prompt', title: 'MRTR Prompt', description: 'Prompt that requires elicitation input before rendering' })
  inputRequiredPrompt(_args: Record<string, string>, context: McpToolContext): GetPromptResult | InputRequiredResult {
    const userContext = acceptedContent<{ context: string }>(context.inputResponses, 'user_context')?.context;
    if (typeof userContext !== 'string') {
      return inputRequired({
        inputRequests: {
          user_context: inputRequired.elicit({ message: 'What context should the prompt use?', requestedSchema: formSchema('context', 'string') }),
        },
      });
    }
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use the following context: ${userContext}` } }] };
  }

  /** A nonce makes every minted state distinct, so the scenarios can tell a fresh state from an echoed one. */
  private mint(context: McpToolContext, tool: string, extra: Record<string, unknown> = {}): Promise<string> {
    return this.requestState.mint({ tool, ...extra, nonce: randomUUID() }, context);
  }
}
