import { BadRequestException, Logger, ServiceUnavailableException, UnauthorizedException } from '@nestjs/common';
import { createVerifier, TokenError } from 'fast-jwt';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { LONE_SURROGATE_PROBLEM } from '@app/common';
import { LOCAL_ISSUER, type AuthModuleOptions } from '../../auth.options.js';
import { claimAt, claimValues } from '../../users/claims.js';
import type { TokenIdentity } from '../../users/token-identity.js';
import type { JwtKeySource } from './jwt-secret.js';

/** Tolerated difference between our clock and the issuer's, for `exp` and `nbf`. */
export const CLOCK_SKEW_SECONDS = 60;

type VerifierOptions = Pick<AuthModuleOptions, 'jwtIssuer' | 'jwtAudience' | 'jwtRolesClaim'> &
  Partial<Pick<AuthModuleOptions, 'jwtMaxAgeSeconds' | 'jwtScopesClaim'>>;

/** A token's verified claims: signature, `exp` and `nbf` (with clock skew), `iss`/`aud` when configured. */
type SignatureCheck = (token: string) => JWTPayload | Promise<JWTPayload>;

/**
 * How long a token's verdict is kept, at most (its `exp` and the maximum age end it sooner). A key
 * the identity provider withdraws is dropped from jose's key set cache within 10 minutes anyway.
 */
const VERIFIED_TTL_MS = 60_000;
/** Enough tokens in use at once for any one instance; beyond it the oldest is forgotten (and checked again). */
const VERIFIED_LIMIT = 10_000;

/**
 * Checks bearer JWTs. The accepted algorithms are fixed per mode, so a token cannot pick its own
 * (`alg: none`, or HS256 signed with a public key, is refused). A shared secret (HS256) is
 * checked with `fast-jwt`, synchronously through `node:crypto`: WebCrypto, which `jose` uses,
 * sends every HMAC to the thread pool and cost 32 µs per token against 9 µs, on every
 * authenticated call. An identity provider's key set (JWKS) is fetched and checked with `jose`.
 */
export class JwtVerifier {
  private readonly logger = new Logger('JwtVerifier');
  private readonly check: SignatureCheck;
  /**
   * Tokens that passed, until when. A client sends the same token with every call: decoding it and
   * checking its signature again cost an authenticated `tools/call` about 28k of its instructions
   * (issue 53), and the verdict cannot change before `exp` (nor `nbf` undo itself).
   */
  private readonly verified = new Map<string, { identity: TokenIdentity; until: number }>();

  constructor(
    source: JwtKeySource,
    private readonly options: VerifierOptions,
  ) {
    this.check = source.mode === 'hs256' ? sharedSecretCheck(source.secret, options) : keySetCheck(source.url, options);
  }

  /** The identity of a token that passed a moment ago, without looking at it again; undefined for any other. */
  verifiedBefore(token: string): TokenIdentity | undefined {
    const known = this.verified.get(token);
    if (known === undefined) return undefined;
    if (known.until > Date.now()) return known.identity;
    this.verified.delete(token);
    return undefined;
  }

  async verify(token: string): Promise<TokenIdentity> {
    const known = this.verifiedBefore(token);
    if (known) return known;
    const { identity, payload } = await this.checked(token);
    this.remember(token, identity, payload);
    return identity;
  }

  private remember(token: string, identity: TokenIdentity, { exp, iat }: JWTPayload): void {
    if (typeof exp !== 'number') return;
    const skewMs = CLOCK_SKEW_SECONDS * 1000;
    const ends = [Date.now() + VERIFIED_TTL_MS, exp * 1000 + skewMs];
    // Without the skew: fast-jwt allows none on the maximum age (jose does); the stricter rule is kept.
    if (this.options.jwtMaxAgeSeconds && typeof iat === 'number') ends.push((iat + this.options.jwtMaxAgeSeconds) * 1000);
    if (this.verified.size >= VERIFIED_LIMIT) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { identity, until: Math.min(...ends) });
  }

  private async checked(token: string): Promise<{ identity: TokenIdentity; payload: JWTPayload }> {
    let payload: JWTPayload;
    try {
      payload = await this.check(token);
    } catch (error) {
      throw this.refusal(error);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new UnauthorizedException('Invalid token: "sub" must be a non-empty string');
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS)
      throw new UnauthorizedException('Invalid token: "iat" lies in the future');
    // Stored with the user: PostgreSQL text cannot hold NUL, and half a surrogate pair would be stored as U+FFFD.
    for (const claim of ['sub', 'email', 'name'] as const) {
      const value = payload[claim];
      if (typeof value !== 'string') continue;
      if (value.includes('\u0000')) throw new BadRequestException(`Invalid token: "${claim}" must not contain a NUL character`);
      if (!value.isWellFormed()) throw new BadRequestException(`Invalid token: "${claim}" ${LONE_SURROGATE_PROBLEM}`);
    }
    const identity: TokenIdentity = {
      issuer: payload.iss ?? LOCAL_ISSUER,
      subject: payload.sub,
      email: typeof payload.email === 'string' ? payload.email : undefined,
      emailVerified: payload.email_verified === true,
      name: typeof payload.name === 'string' ? payload.name : undefined,
      roles: claimValues(claimAt(payload, this.options.jwtRolesClaim)),
      ...(this.options.jwtScopesClaim ? { scopes: scopesFrom(claimAt(payload, this.options.jwtScopesClaim), this.options.jwtScopesClaim) } : {}),
      ...(typeof payload.agent === 'string' && payload.agent !== '' ? { agent: payload.agent } : {}),
    };
    return { identity, payload };
  }

  /** A bad token is the caller's problem (401); an unreachable or broken key set is ours (503). */
  private refusal(error: unknown): Error {
    if (error instanceof TokenError) return new UnauthorizedException(`Invalid token: ${error.message}`);
    const keySetUnavailable = error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError);
    if (!keySetUnavailable) return new UnauthorizedException(`Invalid token: ${(error as Error).message}`);
    this.logger.error(`Cannot check tokens against the JWKS: ${(error as Error).message}`);
    return new ServiceUnavailableException("The identity provider's keys cannot be fetched; try again later");
  }
}

function sharedSecretCheck(secret: Uint8Array, options: VerifierOptions): SignatureCheck {
  const maxAgeSeconds = options.jwtMaxAgeSeconds;
  return createVerifier({
    key: Buffer.from(secret),
    algorithms: ['HS256'],
    clockTolerance: CLOCK_SKEW_SECONDS * 1000,
    // A maximum age bounds a token's life however far ahead its `exp` lies, and so needs `iat`.
    requiredClaims: maxAgeSeconds ? ['sub', 'exp', 'iat'] : ['sub', 'exp'],
    ...(maxAgeSeconds ? { maxAge: maxAgeSeconds * 1000 } : {}),
    ...(options.jwtIssuer ? { allowedIss: options.jwtIssuer } : {}),
    ...(options.jwtAudience?.length ? { allowedAud: options.jwtAudience } : {}),
  }) as (token: string) => JWTPayload;
}

function keySetCheck(url: URL, options: VerifierOptions): SignatureCheck {
  // jose caches the key set, refetches it when a token names an unknown key id (key rotation),
  // and at most every 30 s, so a flood of forged key ids cannot hammer the identity provider.
  const keySet = createRemoteJWKSet(url, { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
  return async (token) => {
    const { payload } = await jwtVerify(token, keySet, {
      algorithms: ['RS256', 'ES256'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['sub', 'exp'],
      // Bounds a token's life however far ahead its `exp` lies; jose then requires `iat` and refuses one in the future.
      ...(options.jwtMaxAgeSeconds ? { maxTokenAge: options.jwtMaxAgeSeconds } : {}),
      ...(options.jwtIssuer ? { issuer: options.jwtIssuer } : {}),
      ...(options.jwtAudience?.length ? { audience: options.jwtAudience } : {}),
    });
    return payload;
  };
}

/**
 * A token's scopes: one space-separated string (RFC 9068's `scope`) or a list of strings (Entra
 * ID's `roles`, Okta's `scp`); none without the claim. Anything else is refused, never read as
 * "no scopes" or "every scope".
 */
function scopesFrom(value: unknown, claim: string): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  if (Array.isArray(value) && value.every((scope) => typeof scope === 'string')) return value as string[];
  throw new UnauthorizedException(`Invalid token: "${claim}" must be a space-separated string or a list of strings`);
}
