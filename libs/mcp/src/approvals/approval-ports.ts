import type { UserInfo } from '@app/common';

/**
 * Writes what happened to approval requests (asked, decided, run, expired) on the audit trail;
 * the app provides it over `@app/auth`'s trail (`admin_audit`). The actor is who acted: the
 * caller for a request, a confirmation and a run, the approver for a decision, and the caller
 * again for a request that expired or was withdrawn (the request's own clock, on their behalf).
 */
export interface ApprovalAuditTrail {
  record(actor: UserInfo, action: string, targetUserId: string, detail: Record<string, unknown>): Promise<void>;
}

export const MCP_AUDIT_TRAIL = Symbol('MCP_AUDIT_TRAIL');

/** How a caller stands now: as they are now, or why they may no longer act. */
export type Standing = { caller: UserInfo } | { refused: string };

/**
 * Whether a caller may still act as they did when they called; the app provides it over
 * `@app/auth`. Asked before an approved call runs: their account may have been disabled, and the
 * credential they called with (an MCP secret, a connection) revoked, meanwhile.
 */
export interface CallerStanding {
  /** The caller as they stand now (their scopes read again where their credential's grant holds them), or why they may no longer act. */
  recheck(caller: UserInfo): Promise<Standing>;
}

export const MCP_CALLER_STANDING = Symbol('MCP_CALLER_STANDING');
