import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { Signer } from '@app/common';
import { MCP_SIGNER } from '../mcp.options.js';
import { McpRequestState } from './mcp-request-state.js';

/**
 * `McpRequestState` and the signer it shares with the session ids. A static module of its own, so
 * that a tool module of a deployment that mints request state imports it without configuring MCP.
 */
@Module({
  providers: [
    {
      provide: MCP_SIGNER,
      inject: [{ token: Signer, optional: true }],
      // Without the app's signer (a test module of the MCP lib alone) signatures hold for this process only.
      useFactory: (signer?: Signer) => signer ?? new Signer(randomBytes(32).toString('hex')),
    },
    McpRequestState,
  ],
  exports: [MCP_SIGNER, McpRequestState],
})
export class McpRequestStateModule {}
