import { ConfigError, defineConfigSection, duration, isLoopback, list, optionalStr, parseUrl } from '@app/common';
import type { ApprovalPolicyOverrides } from './approval-policy.js';

export const MCP_APPROVALS_OPTIONS = Symbol('MCP_APPROVALS_OPTIONS');
/** The app configuration's section `McpApprovalsModule` reads. */
export const MCP_APPROVALS_CONFIG_SECTION = 'approvals';

export interface ApprovalWebhookOptions {
  url: string;
  /** The HMAC-SHA256 key of the signature header. */
  secret: string;
}

export interface McpApprovalsOptions {
  policies: ApprovalPolicyOverrides;
  /** The role (from the credential's roles claim) that lets a caller decide approval requests, besides admins. */
  approverRole?: string;
  /** How long a request waits for a decision; then it is declined as expired. */
  timeoutMs: number;
  /** The secret the arguments' encryption key is derived from; undefined: a key derived from `SIGNING_SECRET` is used. */
  argumentsKey?: string;
  webhook?: ApprovalWebhookOptions;
  /** `PUBLIC_BASE_URL`, for the links a webhook's body carries (the app fills it in). */
  publicBaseUrl?: string;
  /** How often an instance expires requests, delivers webhooks and looks for decisions it missed. */
  sweepIntervalMs: number;
  /** The waits before each retry of a webhook delivery that failed (the first attempt is at once). */
  webhookRetryDelaysMs: readonly number[];
}

const LONG_SECRET = { pattern: /^.{32,}$/s, expected: 'at least 32 characters', secret: true };

/** An http(s) URL; plain http only to a loopback address (the request may carry what approvers decide on). */
function webhookUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const url = parseUrl(raw);
  const loopback = url !== undefined && isLoopback(url.hostname.replace(/^\[|\]$/g, ''));
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
    throw new ConfigError('APPROVALS_WEBHOOK_URL', `expected an https URL (http only to a loopback address), got "${raw}"`);
  }
  return url.href;
}

/** Approval policies per deployment, who decides, how long a request waits, the arguments' key, the webhook. */
export const mcpApprovalsConfig = defineConfigSection({
  keys: {
    APPROVALS_CALLER_TOOLS: list(),
    APPROVALS_APPROVER_TOOLS: list(),
    APPROVALS_EXEMPT_TOOLS: list(),
    APPROVALS_APPROVER_ROLE: optionalStr({ pattern: /^[^\s,]{1,200}$/, expected: 'one role, without spaces or commas' }),
    APPROVALS_TIMEOUT: duration(3600, { minSeconds: 1, maxSeconds: 7 * 86400 }),
    APPROVALS_ARGUMENTS_KEY: optionalStr(LONG_SECRET),
    APPROVALS_WEBHOOK_URL: optionalStr(),
    APPROVALS_WEBHOOK_SECRET: optionalStr(LONG_SECRET),
  },
  validate: (values) => {
    webhookUrl(values.APPROVALS_WEBHOOK_URL);
    if (values.APPROVALS_WEBHOOK_URL && !values.APPROVALS_WEBHOOK_SECRET)
      throw new ConfigError('APPROVALS_WEBHOOK_SECRET', 'required with APPROVALS_WEBHOOK_URL: the receiver checks each request by it');
    if (values.APPROVALS_WEBHOOK_SECRET && !values.APPROVALS_WEBHOOK_URL)
      throw new ConfigError('APPROVALS_WEBHOOK_SECRET', 'is set, but APPROVALS_WEBHOOK_URL is not: nothing would be sent');
  },
  toOptions: (values): McpApprovalsOptions => {
    const url = webhookUrl(values.APPROVALS_WEBHOOK_URL);
    return {
      policies: { caller: values.APPROVALS_CALLER_TOOLS, approver: values.APPROVALS_APPROVER_TOOLS, exempt: values.APPROVALS_EXEMPT_TOOLS },
      ...(values.APPROVALS_APPROVER_ROLE ? { approverRole: values.APPROVALS_APPROVER_ROLE } : {}),
      timeoutMs: values.APPROVALS_TIMEOUT * 1000,
      ...(values.APPROVALS_ARGUMENTS_KEY ? { argumentsKey: values.APPROVALS_ARGUMENTS_KEY } : {}),
      ...(url && values.APPROVALS_WEBHOOK_SECRET ? { webhook: { url, secret: values.APPROVALS_WEBHOOK_SECRET } } : {}),
      sweepIntervalMs: 1000,
      webhookRetryDelaysMs: [2_000, 10_000, 60_000, 300_000, 1_800_000],
    };
  },
});
