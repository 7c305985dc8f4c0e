import { SignJWT } from 'jose';
import type { AuthModuleOptions } from '../../auth.options.js';
import { jwtKeySource } from './jwt-secret.js';

export interface TokenRequest {
  subject: string;
  email?: string;
  name?: string;
  admin?: boolean;
  /** Lifetime such as `90s`, `30m`, `1h`, `7d`. */
  ttl: string;
}

const TTL = /^[1-9]\d*[smhd]$/;

type SigningOptions = Pick<AuthModuleOptions, 'jwtSecret' | 'jwksUrl' | 'dataDir' | 'jwtIssuer' | 'jwtAudience' | 'jwtRolesClaim'> &
  Partial<Pick<AuthModuleOptions, 'jwtMaxAgeSeconds'>>;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/**
 * An HS256 token the server accepts, for operators and tests. In JWKS mode only the identity
 * provider holds the signing key, so there is nothing to sign with.
 */
export async function signToken(options: SigningOptions, request: TokenRequest): Promise<string> {
  const source = jwtKeySource(options);
  if (source.mode !== 'hs256') throw new Error('JWKS_URL is set: tokens come from the identity provider, this server cannot sign them');
  if (!request.subject) throw new Error('a subject is required');
  if (!TTL.test(request.ttl)) throw new Error(`ttl "${request.ttl}": expected a number followed by s, m, h or d, e.g. 1h`);
  const ttlSeconds = Number(request.ttl.slice(0, -1)) * UNIT_SECONDS[request.ttl.slice(-1) as keyof typeof UNIT_SECONDS];
  const maxAge = options.jwtMaxAgeSeconds;
  // The server would refuse the token before it expires: a longer ttl would only mislead.
  if (maxAge && ttlSeconds > maxAge) throw new Error(`ttl "${request.ttl}" exceeds JWT_MAX_AGE (${maxAge} s)`);
  const claims: Record<string, unknown> = {};
  // The operator who signs vouches for the address, as an identity provider that verified it would.
  if (request.email) Object.assign(claims, { email: request.email, email_verified: true });
  if (request.name) claims.name = request.name;
  if (request.admin) Object.assign(claims, nestedClaim(options.jwtRolesClaim, ['admin']));
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(request.subject).setIssuedAt().setExpirationTime(request.ttl);
  if (options.jwtIssuer) jwt.setIssuer(options.jwtIssuer);
  if (options.jwtAudience?.length) jwt.setAudience(options.jwtAudience[0]!);
  return jwt.sign(source.secret);
}

/** `{ realm_access: { roles: [...] } }` for the claim path `realm_access.roles`. */
function nestedClaim(path: string, value: unknown): Record<string, unknown> {
  return path.split('.').reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), value as Record<string, unknown>);
}
