import { createHmac } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { describeError } from '@app/common';
import type { McpApprovalEntity } from './approval.entity.js';
import { MCP_APPROVALS_OPTIONS, type McpApprovalsOptions } from './approvals.config.js';

/** The header that carries the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'x-mirobody-signature';
/** The request's id, the same in every retry of one announcement, for a receiver to drop repeats. */
export const DELIVERY_HEADER = 'x-mirobody-delivery';
const DELIVERY_TIMEOUT_MS = 5_000;

/** How one attempt went: taken (2xx), to try again (no answer, 5xx, 408, 429), or refused for good (another 4xx). */
export type DeliveryOutcome = 'delivered' | 'retry' | 'refused';

/** What a receiver needs to route the request to approvers; never the arguments (they stay in the server, read by approvers there). */
export function announcement(request: McpApprovalEntity, publicBaseUrl: string | undefined) {
  const base = publicBaseUrl ?? '';
  return {
    type: 'approval.requested',
    id: request.id,
    tool: request.tool,
    requestedBy: { userId: request.userId, email: request.caller.email ?? null, name: request.caller.name ?? null },
    requestedAt: request.requestedAt.toISOString(),
    expiresAt: request.expiresAt.toISOString(),
    argumentsDigest: request.argumentsDigest,
    links: { console: `${base}/console/approvals`, api: `${base}/admin/approvals/${request.id}` },
  };
}

/** The signature header's value for `body` at `timestamp` (unix seconds): what a receiver computes again with the shared secret. */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Announces each new approval request to `APPROVALS_WEBHOOK_URL` (a chat channel's bot, a ticketing system), signed. */
@Injectable()
export class ApprovalWebhook {
  private readonly logger = new Logger('ApprovalWebhook');

  constructor(@Inject(MCP_APPROVALS_OPTIONS) private readonly options: McpApprovalsOptions) {}

  get configured(): boolean {
    return this.options.webhook !== undefined;
  }

  /** The wait before the next attempt once `attempts` failed; null when they are spent. */
  retryDelayMs(attempts: number): number | null {
    return this.options.webhookRetryDelaysMs[attempts - 1] ?? null;
  }

  async deliver(request: McpApprovalEntity): Promise<DeliveryOutcome> {
    const { url, secret } = this.options.webhook!;
    const body = JSON.stringify(announcement(request, this.options.publicBaseUrl));
    try {
      const response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'mirobody-approvals',
          [SIGNATURE_HEADER]: signatureOf(secret, Math.floor(Date.now() / 1000), body),
          [DELIVERY_HEADER]: request.id,
        },
        body,
      });
      await response.body?.cancel();
      if (response.ok) return 'delivered';
      const retry = response.status >= 500 || response.status === 408 || response.status === 429;
      this.logger.warn(`The approvals webhook answered ${response.status} for request ${request.id}${retry ? '' : ': not sent again'}`);
      return retry ? 'retry' : 'refused';
    } catch (error) {
      this.logger.warn(`The approvals webhook could not be reached for request ${request.id}: ${describeError(error)}`);
      return 'retry';
    }
  }
}
