import { Injectable } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  SdkError,
  SdkErrorCode,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type ElicitResult,
  type InputRequiredResult,
} from '@modelcontextprotocol/server';
import { InvalidInputError, type UserInfo } from '@app/common';
import { Arg, CurrentUser, fail, McpRequestState, McpTool, McpToolContext, ok, ToolContext, type ToolResult } from '@app/mcp';
import { MAX_IDS_PER_CALL, MAX_RECALL_QUERY_CHARS, MEMORY_DISABLED_MESSAGE, MemoryStore, type RecalledMemory } from '@app/memory';
import { forModel, mentionForModel, type MemoryForModel, type MentionForModel } from './memory-tool-views.js';

interface Forgotten {
  /** What this call forgot. */
  forgotten: MentionForModel[];
  /** A query's matches, none forgotten yet: call forget_memory again with the ids of those the user wants forgotten. */
  matches?: MemoryForModel[];
  /** Why nothing was forgotten, when nothing was. */
  note?: string;
}

/** The key of the confirmation form among a call's input requests. */
const CONFIRM = 'confirm';
/** What the signed request state of a 2026-07-28 confirmation round carries: the matches the user was shown. */
interface ShownMatches {
  tool: 'forget_memory';
  ids: string[];
}

/**
 * `forget_memory`: the user's delete of memories (soft, as the REST delete: kept, marked, never
 * recalled, purged after MEMORY_DELETED_RETENTION), by id, or by a query whose matches the user
 * confirms first: in a form, on clients that support elicitation (pushed in a 2025 session,
 * `input_required` on 2026-07-28); elsewhere the matches come back and the model calls again with ids.
 */
@Injectable()
export class ForgetMemoryService {
  constructor(
    private readonly store: MemoryStore,
    private readonly requestState: McpRequestState,
  ) {}

  /**
   * Forget memories the user wants gone. With ids (from recall_memory), they are forgotten at once.
   * With a query, its matches (older versions included) are shown to the user to confirm when the
   * client can ask them; otherwise they are returned and nothing is forgotten: call again with the
   * ids the user confirmed. A forgotten memory is never recalled again.
   */
  @McpTool({
    scopes: ['memory:write'],
    annotations: { title: 'Forget memory', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  })
  async forgetMemory(
    @CurrentUser() user: UserInfo,
    @Arg('ids', {
      description: 'Ids of the memories to forget, e.g. from recall_memory',
      type: Array,
      items: String,
      optional: true,
      schema: { minItems: 1, maxItems: MAX_IDS_PER_CALL },
    })
    ids: string[] | undefined,
    @Arg('query', {
      description: 'What to forget, e.g. "my old address": its matches are confirmed by the user before anything is forgotten',
      optional: true,
      schema: { minLength: 1, maxLength: MAX_RECALL_QUERY_CHARS },
    })
    query: string | undefined,
    @ToolContext() context: McpToolContext,
  ): Promise<ToolResult<Forgotten> | InputRequiredResult> {
    if (!this.store.enabled) return fail(MEMORY_DISABLED_MESSAGE);
    if ((ids === undefined) === (query === undefined)) return fail('forget_memory takes either ids or a query');
    if (ids) return ok({ forgotten: (await this.store.forget(user.userId, ids)).map(mentionForModel) });
    // A 2026-07-28 client answering the form: the ids are those it was shown, signed into the state, not what the query finds now.
    // (A call made in-process has no request state to read.)
    const shown = context.raw.mcpReq.requestState?.<ShownMatches>();
    const answer = context.inputResponses?.[CONFIRM] as ElicitResult | undefined;
    if (shown?.tool === 'forget_memory' && answer) return this.asAnswered(user, shown.ids, answer);

    const matches = await this.store.recall(user.userId, query!, this.store.defaultTopK, undefined, 'history');
    if (matches.length === 0) return ok({ forgotten: [], note: 'Nothing matched the query: nothing was forgotten' });
    const form = confirmationForm(matches);
    const modern = context.raw.mcpReq.envelope !== undefined;
    if (modern) {
      if (!asksInForms(context)) return ok(unconfirmed(matches));
      const requestState = await this.requestState.mint<ShownMatches>({ tool: 'forget_memory', ids: matches.map((memory) => memory.id) }, context);
      return inputRequired({ inputRequests: { [CONFIRM]: inputRequired.elicit(form) }, requestState });
    }
    let reply: ElicitResult;
    try {
      reply = await context.elicit(form);
    } catch (error) {
      if (cannotAsk(error)) return ok(unconfirmed(matches));
      throw error;
    }
    return this.asAnswered(
      user,
      matches.map((memory) => memory.id),
      reply,
    );
  }

  /** Forgets what the user ticked among the matches they were shown; a declined or empty form forgets nothing. */
  private async asAnswered(user: UserInfo, shown: readonly string[], answer: ElicitResult): Promise<ToolResult<Forgotten>> {
    if (answer.action !== 'accept') return ok({ forgotten: [], note: `The user did not confirm (${answer.action}): nothing was forgotten` });
    const ticked = answer.content?.['forget'];
    // The answer comes from the client: only ids it was shown count.
    const chosen = Array.isArray(ticked) ? shown.filter((id) => ticked.includes(id)) : [];
    if (chosen.length === 0) return ok({ forgotten: [], note: 'The user chose none of the matches: nothing was forgotten' });
    return ok({ forgotten: (await this.store.forget(user.userId, chosen)).map(mentionForModel) });
  }
}

/** The form the user confirms: the matches, each ticked, to untick those to keep. */
function confirmationForm(matches: readonly RecalledMemory[]): ElicitRequestFormParams {
  const ids = matches.map((memory) => memory.id);
  return {
    mode: 'form',
    message: `Forget ${matches.length === 1 ? 'this memory' : `these ${matches.length} memories`}? A forgotten memory is never recalled again.`,
    requestedSchema: {
      type: 'object',
      properties: {
        forget: {
          type: 'array',
          title: 'Memories to forget',
          items: { anyOf: matches.map((memory) => ({ const: memory.id, title: memory.validTo ? `${memory.text} (no longer current)` : memory.text })) },
          default: ids,
        },
      },
      required: ['forget'],
    },
  };
}

function unconfirmed(matches: readonly RecalledMemory[]): Forgotten {
  return {
    forgotten: [],
    matches: matches.map(forModel),
    note: 'Nothing was forgotten yet: ask the user which of these to forget, then call forget_memory with their ids',
  };
}

/** Whether a 2026-07-28 request's client declared form elicitation (a bare `elicitation: {}` counts, as the SDK reads it). */
function asksInForms(context: McpToolContext): boolean {
  const envelope = context.raw.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined;
  const elicitation = envelope?.[CLIENT_CAPABILITIES_META_KEY]?.elicitation;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/**
 * A 2025 client that cannot be asked: one that did not declare elicitation, a request without a
 * session (nothing can reach its client), or a call made in-process, which has no client at all.
 */
function cannotAsk(error: unknown): boolean {
  return (error instanceof SdkError && error.code === SdkErrorCode.CapabilityNotSupported) || error instanceof InvalidInputError;
}
