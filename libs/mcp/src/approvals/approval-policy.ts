import leven from 'leven';
import { ConfigError } from '@app/common';
import type { ApprovalPolicy } from '../decorators/metadata.types.js';
import type { DiscoveredCapabilities, DisabledToolDescriptor, ToolDescriptor } from '../explorer/descriptors.js';

/** Where `tools/list` (and the catalog) publishes a tool's policy: `_meta["mirobody/approval"]` is `caller` or `approver`. */
export const APPROVAL_META_KEY = 'mirobody/approval';

/** A deployment's approval policies by tool name, over what the tools declare (the `APPROVALS_*_TOOLS` keys). */
export interface ApprovalPolicyOverrides {
  caller: readonly string[];
  approver: readonly string[];
  /** Tools whose declared policy this deployment lifts: they run at once. */
  exempt: readonly string[];
}

export const NO_POLICY_OVERRIDES: ApprovalPolicyOverrides = { caller: [], approver: [], exempt: [] };

const LIST_KEYS: Record<keyof ApprovalPolicyOverrides, string> = {
  caller: 'APPROVALS_CALLER_TOOLS',
  approver: 'APPROVALS_APPROVER_TOOLS',
  exempt: 'APPROVALS_EXEMPT_TOOLS',
};

/** Each listed name's policy (null: exempt), and the key that listed it. A name in two lists is refused: which one was meant is unknown. */
function listedPolicies(overrides: ApprovalPolicyOverrides): Map<string, { policy: ApprovalPolicy | null; key: string }> {
  const listed = new Map<string, { policy: ApprovalPolicy | null; key: string }>();
  for (const list of Object.keys(LIST_KEYS) as (keyof ApprovalPolicyOverrides)[]) {
    for (const name of overrides[list]) {
      const earlier = listed.get(name);
      if (earlier && earlier.key !== LIST_KEYS[list]) throw new ConfigError(LIST_KEYS[list], `"${name}" is also in ${earlier.key}: name each tool in one list`);
      listed.set(name, { policy: list === 'exempt' ? null : list, key: LIST_KEYS[list] });
    }
  }
  return listed;
}

/**
 * The tools with the policies this deployment gives them. A listed name that is no tool stops
 * start-up (naming the closest tool): misspelt, it would leave the tool it meant without its
 * approval. Tools of disabled classes count as tools, so that a deployment's list need not follow
 * which integrations are configured.
 */
export function withApprovalPolicies(found: DiscoveredCapabilities, overrides: ApprovalPolicyOverrides): DiscoveredCapabilities {
  const listed = listedPolicies(overrides);
  if (listed.size === 0) return found;
  const disabled = found.disabledTools ?? [];
  const known = [...found.tools, ...disabled].map((tool) => tool.name);
  for (const [name, { key }] of listed) {
    if (known.includes(name)) continue;
    const closest = known.find((candidate) => leven(name, candidate) <= 2);
    throw new ConfigError(key, `"${name}" is no tool of this server${closest ? ` (did you mean "${closest}"?)` : ''}`);
  }
  const chosen = (name: string, declared: ApprovalPolicy | undefined) => {
    const entry = listed.get(name);
    return entry === undefined ? declared : (entry.policy ?? undefined);
  };
  return {
    ...found,
    tools: found.tools.map((tool) => withPolicy(tool, chosen(tool.name, tool.approval))),
    disabledTools: disabled.map((tool) => withDisabledPolicy(tool, chosen(tool.name, tool.approval))),
  };
}

function withPolicy(tool: ToolDescriptor, approval: ApprovalPolicy | undefined): ToolDescriptor {
  if (approval === tool.approval) return tool;
  const { approval: _declared, ...rest } = tool;
  const takesCaller = tool.scopes.length > 0 || tool.parameters.some((parameter) => parameter.kind === 'caller');
  return { ...rest, ...(approval ? { approval } : {}), requiresCaller: takesCaller || approval !== undefined };
}

function withDisabledPolicy(tool: DisabledToolDescriptor, approval: ApprovalPolicy | undefined): DisabledToolDescriptor {
  if (approval === tool.approval) return tool;
  const { approval: _declared, ...rest } = tool;
  return { ...rest, ...(approval ? { approval, actsForUser: true } : {}) };
}
