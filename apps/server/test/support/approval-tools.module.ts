import { Injectable, Module } from '@nestjs/common';
import { Arg, CurrentUser, McpTool, type UserInfo } from '@app/mcp';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** Tools that wait for a person, for the approvals' tests; each run is counted, so that a test can tell a call ran once, or never. */
@Injectable()
export class ApprovalProbeService {
  readonly runs: { tool: string; userId: string; args: Record<string, unknown> }[] = [];

  @McpTool({ description: 'Sends `amount` cents to `to`, once the caller confirms.', approval: 'caller' })
  sendMoney(@Arg('amount', { type: 'integer', schema: { minimum: 1 } }) amount: number, @Arg('to') to: string, @CurrentUser() caller: UserInfo) {
    this.runs.push({ tool: 'send_money', userId: caller.userId, args: { amount, to } });
    return text(`sent ${amount} to ${to} for ${caller.userId}`);
  }

  @McpTool({ description: 'Sends `amount` cents to `to` as a task, once the caller confirms.', approval: 'caller', task: 'optional' })
  sendMoneyLater(@Arg('amount', { type: 'integer', schema: { minimum: 1 } }) amount: number, @Arg('to') to: string, @CurrentUser() caller: UserInfo) {
    this.runs.push({ tool: 'send_money_later', userId: caller.userId, args: { amount, to } });
    return text(`sent ${amount} to ${to} for ${caller.userId}`);
  }

  @McpTool({ description: 'Deletes the record `id`, once an approver allows it.', approval: 'approver' })
  deleteRecord(@Arg('id') id: string, @CurrentUser() caller: UserInfo) {
    this.runs.push({ tool: 'delete_record', userId: caller.userId, args: { id } });
    return text(`deleted ${id} for ${caller.userId}`);
  }

  @McpTool({
    description: 'Purges the record `id` for good, once an approver allows it; needs the records:write scope.',
    approval: 'approver',
    scopes: ['records:write'],
  })
  purgeRecord(@Arg('id') id: string, @CurrentUser() caller: UserInfo) {
    this.runs.push({ tool: 'purge_record', userId: caller.userId, args: { id } });
    return text(`purged ${id} for ${caller.userId}`);
  }

  runsOf(tool: string, id: string): number {
    return this.runs.filter((run) => run.tool === tool && run.args['id'] === id).length;
  }
}

@Module({ providers: [ApprovalProbeService] })
export class ApprovalToolsModule {}
