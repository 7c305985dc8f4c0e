import { describe, expect, it } from '@jest/globals';
import { mcpApprovalsConfig } from './approvals.config.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';

describe('the approvals configuration', () => {
  it('reads the policies, the approver role, the timeout and the webhook', () => {
    const options = mcpApprovalsConfig.load({
      APPROVALS_CALLER_TOOLS: 'send_money, share_records',
      APPROVALS_APPROVER_ROLE: 'approver',
      APPROVALS_TIMEOUT: '15m',
      APPROVALS_WEBHOOK_URL: 'https://hooks.example.com/approvals',
      APPROVALS_WEBHOOK_SECRET: SECRET,
    });
    expect(options).toMatchObject({
      policies: { caller: ['send_money', 'share_records'], approver: [], exempt: [] },
      approverRole: 'approver',
      timeoutMs: 900_000,
      webhook: { url: 'https://hooks.example.com/approvals', secret: SECRET },
    });
  });

  it.each([
    [{ APPROVALS_WEBHOOK_URL: 'http://hooks.example.com/approvals', APPROVALS_WEBHOOK_SECRET: SECRET }, /APPROVALS_WEBHOOK_URL.*expected an https URL/],
    [{ APPROVALS_WEBHOOK_URL: 'https://hooks.example.com/approvals' }, /APPROVALS_WEBHOOK_SECRET.*required with APPROVALS_WEBHOOK_URL/],
    [{ APPROVALS_WEBHOOK_SECRET: SECRET }, /APPROVALS_WEBHOOK_SECRET.*nothing would be sent/],
    [{ APPROVALS_WEBHOOK_URL: 'https://hooks.example.com/approvals', APPROVALS_WEBHOOK_SECRET: 'short' }, /APPROVALS_WEBHOOK_SECRET/],
    [{ APPROVALS_APPROVER_ROLE: 'two roles' }, /APPROVALS_APPROVER_ROLE/],
    [{ APPROVALS_TIMEOUT: '0' }, /APPROVALS_TIMEOUT/],
  ])('refuses %j, naming the key', (env, problem) => {
    expect(() => mcpApprovalsConfig.load(env)).toThrow(problem);
  });

  it('takes plain http to a loopback receiver', () => {
    expect(mcpApprovalsConfig.load({ APPROVALS_WEBHOOK_URL: 'http://127.0.0.1:8080/hook', APPROVALS_WEBHOOK_SECRET: SECRET }).webhook?.url).toBe(
      'http://127.0.0.1:8080/hook',
    );
  });
});
