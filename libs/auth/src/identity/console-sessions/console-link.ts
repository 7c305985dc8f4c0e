import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Signer, type PurposeSigner } from '@app/common';
import { LOCAL_ISSUER, type AuthModuleOptions } from '../../auth.options.js';
import type { TokenIdentity } from '../../users/token-identity.js';
import { publishOnce } from '../publish-once.js';

/** Where a one-time link sends the browser; the token follows `#`, so it reaches no server log nor `Referer`. */
export const CONSOLE_LINK_PATH = '/console/sign-in/link';
/** How long a link may wait to be opened. */
export const CONSOLE_LINK_TTL_MS = 10 * 60 * 1000;
/** The key a link is signed with when no `SIGNING_SECRET` is configured, generated once in `DATA_DIR`. */
export const GENERATED_LINK_KEY_FILE = 'console-link-key';

/** Who a link signs in, as the operator names them. */
export interface ConsoleLinkRequest {
  email: string;
  /** The user's subject; the e-mail when absent. */
  subject?: string;
  name?: string;
  admin?: boolean;
}

/** What a link carries: its own id (used once), and who it signs in. */
interface LinkClaims {
  id: string;
  sub: string;
  email: string;
  name?: string;
  admin?: boolean;
}

export type LinkKeyOptions = Pick<AuthModuleOptions, 'signingSecret' | 'dataDir'>;

/**
 * Links are signed by the operator's CLI and checked by the server, which share the configuration but
 * not a process: the key comes from `SIGNING_SECRET` (as every other signature of the server), else
 * from a file both read in `DATA_DIR`, generated once, as the JWT secret is.
 */
export function consoleLinkSigner(options: LinkKeyOptions): PurposeSigner {
  return new Signer(options.signingSecret ?? generatedKey(options.dataDir)).forPurpose('console-link');
}

function generatedKey(dataDir: string): string {
  const path = join(dataDir, GENERATED_LINK_KEY_FILE);
  if (!existsSync(path)) publishOnce(dataDir, path, randomBytes(48).toString('base64url'));
  return readFileSync(path, 'utf8').trim();
}

/** A link that signs the named user in to the console once, within `CONSOLE_LINK_TTL_MS`. */
export function createConsoleLink(options: LinkKeyOptions, baseUrl: string, request: ConsoleLinkRequest): { url: string; expiresAt: Date } {
  if (!/^[^@\s]+@[^@\s]+$/.test(request.email)) throw new Error(`"${request.email}" is not an e-mail address`);
  const claims: LinkClaims = {
    id: randomBytes(16).toString('base64url'),
    sub: request.subject || request.email,
    email: request.email,
    ...(request.name ? { name: request.name } : {}),
    ...(request.admin ? { admin: true } : {}),
  };
  const expiresAt = new Date(Date.now() + CONSOLE_LINK_TTL_MS);
  const token = consoleLinkSigner(options).sign(JSON.stringify(claims), expiresAt);
  return { url: `${baseUrl}${CONSOLE_LINK_PATH}#${token}`, expiresAt };
}

/** A link's id and the identity it signs in; null for a token this server did not sign, or one past its time. */
export function readConsoleLink(
  signer: PurposeSigner,
  options: Pick<AuthModuleOptions, 'jwtIssuer' | 'jwksUrl'>,
  token: string,
): { id: string; identity: TokenIdentity } | null {
  const payload = signer.verify(token);
  if (payload === null) return null;
  const claims = JSON.parse(payload) as LinkClaims;
  return {
    id: claims.id,
    identity: {
      // The issuer of the CLI's own tokens, so that `token --sub ops` and a link for ops are one user;
      // in JWKS mode the identity provider's issuer is not ours to speak for.
      issuer: (!options.jwksUrl && options.jwtIssuer) || LOCAL_ISSUER,
      subject: claims.sub,
      email: claims.email,
      // The operator who made the link vouches for the address, as for `token --email`.
      emailVerified: true,
      ...(claims.name ? { name: claims.name } : {}),
      roles: claims.admin ? ['admin'] : [],
    },
  };
}
