import { Inject, Injectable } from '@nestjs/common';
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { callerFromAuthInfo } from '../caller.js';
import type { McpToolContext } from '../context/mcp-tool-context.js';
import { Signer } from '@app/common';
import { MCP_SIGNER } from '../mcp.options.js';

/**
 * Seals and checks the `requestState` of multi-round-trip calls (2026-07-28). The state travels
 * through the client and comes back as untrusted input, so it is HMAC-signed and bound to the
 * method and the caller: state minted for one user is refused when another echoes it. The key is
 * the signer's `mcp-request-state` key, so every instance sharing the signing secret accepts the
 * state another instance minted, as it does for session ids.
 */
@Injectable()
export class McpRequestState {
  private readonly codec: RequestStateCodec;

  constructor(@Inject(MCP_SIGNER) signer: Signer) {
    this.codec = createRequestStateCodec({
      key: signer.keyFor('mcp-request-state'),
      bind: (ctx) => `${ctx.mcpReq.method}\0${callerFromAuthInfo(ctx.http?.authInfo)?.userId ?? ''}`,
    });
  }

  /** Seals `payload` for `inputRequired({ requestState })`; the next round reads it with `context.raw.mcpReq.requestState<T>()`. */
  mint<T>(payload: T, context: McpToolContext): Promise<string> {
    return this.codec.mint(payload, context.raw);
  }

  /** The server's `requestState.verify` hook: tampered, expired or foreign state is refused (-32602) before the handler runs. */
  readonly verify = (state: string, ctx: ServerContext): Promise<unknown> => this.codec.verify(state, ctx);
}
