import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { ServerContext } from '@modelcontextprotocol/server';
import { Signer, type UserInfo } from '@app/common';
import { toAuthInfo } from '../caller.js';
import { McpToolContext } from '../context/mcp-tool-context.js';
import { McpRequestState } from './mcp-request-state.js';

const ROOT = 'a-root-secret-of-at-least-32-characters!';
const alice: UserInfo = { userId: 'user-alice' };
const bob: UserInfo = { userId: 'user-bob' };

function context(caller: UserInfo | undefined, method = 'tools/call'): ServerContext {
  return {
    sessionId: undefined,
    mcpReq: { id: 1, method, signal: new AbortController().signal, _meta: {} },
    http: caller ? { authInfo: toAuthInfo(caller) } : undefined,
  } as unknown as ServerContext;
}

describe('requestState', () => {
  const state = new McpRequestState(new Signer(ROOT));

  it('comes back to the caller it was minted for', async () => {
    const sealed = await state.mint({ step: 2 }, new McpToolContext(context(alice)));
    await expect(state.verify(sealed, context(alice))).resolves.toEqual({ step: 2 });
  });

  it('is refused when another caller, an anonymous one, or another method echoes it', async () => {
    const sealed = await state.mint({ step: 2 }, new McpToolContext(context(alice)));
    await expect(state.verify(sealed, context(bob))).rejects.toThrow();
    await expect(state.verify(sealed, context(undefined))).rejects.toThrow();
    await expect(state.verify(sealed, context(alice, 'prompts/get'))).rejects.toThrow();
  });

  it('is accepted by another instance sharing the signing secret, and by no other', async () => {
    const sealed = await state.mint({ step: 3 }, new McpToolContext(context(alice)));
    await expect(new McpRequestState(new Signer(ROOT)).verify(sealed, context(alice))).resolves.toEqual({ step: 3 });
    await expect(new McpRequestState(new Signer(`${ROOT}-other`)).verify(sealed, context(alice))).rejects.toThrow();
  });

  it('is refused when tampered with', async () => {
    const sealed = await state.mint({ step: 2 }, new McpToolContext(context(alice)));
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    await expect(state.verify(tampered, context(alice))).rejects.toThrow();
  });
});
