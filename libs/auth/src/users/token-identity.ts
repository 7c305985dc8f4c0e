/** Who a verified token speaks for. */
export interface TokenIdentity {
  issuer: string;
  subject: string;
  email?: string;
  /** True only when the token says `email_verified: true` (the boolean); an unverified address grants no admin role. */
  emailVerified: boolean;
  name?: string;
  roles: string[];
  /** The scopes the token grants, when `JWT_SCOPES_CLAIM` is set; absent, the caller is not limited by scopes. */
  scopes?: string[];
  /** The `agent` claim: the agent this token was issued to, which decides the tools it sees. */
  agent?: string;
}
