import { Injectable } from '@nestjs/common';
import type { UserInfo } from '@app/common';
import type { CallerStanding, Standing } from '@app/mcp';
import { AccountStatus } from '../users/account-status.js';
import { ConnectionsService } from './connections/connections.service.js';
import { McpSecretsService } from './secrets/mcp-secrets.service.js';

/**
 * How a caller stands now, for a call an approver allowed some time after it was made: their
 * account must still be enabled, and the grant their credential stood for (an MCP secret, a
 * connection) still live; a connection's scopes are read again. A JWT's claims are its own until
 * it expires, so a JWT caller stands as they called.
 */
@Injectable()
export class CallerStandings implements CallerStanding {
  constructor(
    private readonly accounts: AccountStatus,
    private readonly secrets: McpSecretsService,
    private readonly connections: ConnectionsService,
  ) {}

  async recheck(caller: UserInfo): Promise<Standing> {
    if (await this.accounts.isDisabledNow(caller.userId)) return { refused: 'your account is disabled' };
    const { grant } = caller;
    if (grant?.kind === 'mcp-secret' && !(await this.secrets.isLive(grant.id))) return { refused: 'the MCP secret you called with was revoked or expired' };
    if (grant?.kind === 'connection') {
      const scopes = await this.connections.liveScopes(grant.id);
      if (!scopes) return { refused: 'the connection you called through was revoked' };
      return { caller: { ...caller, scopes } };
    }
    return { caller };
  }
}
