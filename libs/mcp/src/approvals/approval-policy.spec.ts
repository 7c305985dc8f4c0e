import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@app/common';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpTools } from '../decorators/mcp-tools.decorator.js';
import { Arg } from '../decorators/tool-parameter.decorators.js';
import { describeProvider } from '../explorer/describe-provider.js';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import { NO_POLICY_OVERRIDES, withApprovalPolicies } from './approval-policy.js';

@McpTools({ approval: 'approver' })
class RecordsService {
  @McpTool({ description: 'Deletes a record' })
  deleteRecord(@Arg('id') id: string) {
    return id;
  }

  @McpTool({ description: 'Sends money', approval: 'caller' })
  sendMoney(@Arg('to') to: string) {
    return to;
  }
}

class OpenService {
  @McpTool({ description: 'Reads the time' })
  now() {
    return Date.now();
  }
}

class TypoService {
  @McpTool({ description: 'Misdeclared', approval: 'approvers' as never })
  misdeclared() {}
}

const found = () => {
  const records = describeProvider(new RecordsService(), 'RecordsService');
  const open = describeProvider(new OpenService(), 'OpenService');
  return { ...records, tools: [...records.tools, ...open.tools] };
};
const policies = (capabilities: ReturnType<typeof found>) =>
  Object.fromEntries(capabilities.tools.map((tool) => [tool.name, { approval: tool.approval ?? null, requiresCaller: tool.requiresCaller }]));

describe('approval policies', () => {
  it("takes a tool's own policy, else its class's; a tool with one refuses anonymous callers", () => {
    expect(policies(withApprovalPolicies(found(), NO_POLICY_OVERRIDES))).toEqual({
      delete_record: { approval: 'approver', requiresCaller: true },
      send_money: { approval: 'caller', requiresCaller: true },
      now: { approval: null, requiresCaller: false },
    });
  });

  it('lets a deployment set, change and lift policies by name', () => {
    const overridden = withApprovalPolicies(found(), { caller: ['now'], approver: ['send_money'], exempt: ['delete_record'] });
    expect(policies(overridden)).toEqual({
      delete_record: { approval: null, requiresCaller: false },
      send_money: { approval: 'approver', requiresCaller: true },
      now: { approval: 'caller', requiresCaller: true },
    });
  });

  it('stops start-up on a name that is no tool, naming the closest, and on a name in two lists', () => {
    expect(() => withApprovalPolicies(found(), { ...NO_POLICY_OVERRIDES, approver: ['delete_recrd'] })).toThrow(
      new ConfigError('APPROVALS_APPROVER_TOOLS', '"delete_recrd" is no tool of this server (did you mean "delete_record"?)'),
    );
    expect(() => withApprovalPolicies(found(), { caller: ['now'], approver: [], exempt: ['now'] })).toThrow(
      /APPROVALS_EXEMPT_TOOLS.*"now" is also in APPROVALS_CALLER_TOOLS/,
    );
  });

  it('refuses a declared policy that is none of the two', () => {
    expect(() => describeProvider(new TypoService(), 'TypoService')).toThrow(ToolDefinitionError);
  });
});
