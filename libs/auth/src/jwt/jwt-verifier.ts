import { BadRequestException, Logger, ServiceUnavailableException, UnauthorizedException } from '@nestjs/common';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { LOCAL_ISSUER, type AuthModuleOptions } from '../auth.options.js';
import type { JwtKeySource } from './jwt-secret.js';

/** Tolerated difference between our clock and the issuer's, for `exp` and `nbf`. */
export const CLOCK_SKEW_SECONDS = 60;

/** Who a verified token speaks for. */
export interface TokenIdentity {
  issuer: string;
  subject: string;
  email?: string;
  /** True only when the token says `email_verified: true` (the boolean); an unverified address grants no admin role. */
  emailVerified: boolean;
  name?: string;
  roles: string[];
  /** The `agent` claim: the agent this token was issued to, which decides the tools it sees. */
  agent?: string;
}

type VerifierOptions = Pick<AuthModuleOptions, 'jwtIssuer' | 'jwtAudience' | 'jwtRolesClaim'> & Partial<Pick<AuthModuleOptions, 'jwtMaxAgeSeconds'>>;

/**
 * Checks bearer JWTs with `jose`: signature, `exp` and `nbf` (with clock skew), and `iss`/`aud`
 * when configured. The accepted algorithms are fixed per mode, so a token cannot pick its own
 * (`alg: none`, or HS256 signed with a public key, is refused).
 */
export class JwtVerifier {
  private readonly logger = new Logger('JwtVerifier');
  /** The HS256 secret imported once: given raw bytes, jose imports a key on every verification. */
  private readonly key: Promise<CryptoKey> | JWTVerifyGetKey;
  private readonly algorithms: string[];

  constructor(
    source: JwtKeySource,
    private readonly options: VerifierOptions,
  ) {
    if (source.mode === 'hs256') {
      this.key = crypto.subtle.importKey('raw', new Uint8Array(source.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
      this.algorithms = ['HS256'];
    } else {
      // jose caches the key set, refetches it when a token names an unknown key id (key rotation),
      // and at most every 30 s, so a flood of forged key ids cannot hammer the identity provider.
      this.key = createRemoteJWKSet(source.url, { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
      this.algorithms = ['RS256', 'ES256'];
    }
  }

  async verify(token: string): Promise<TokenIdentity> {
    let payload: JWTPayload;
    try {
      const key = typeof this.key === 'function' ? this.key : await this.key;
      ({ payload } = await jwtVerify(token, key as CryptoKey, {
        algorithms: this.algorithms,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['sub', 'exp'],
        // Bounds a token's life however far ahead its `exp` lies; jose then requires `iat` and refuses one in the future.
        ...(this.options.jwtMaxAgeSeconds ? { maxTokenAge: this.options.jwtMaxAgeSeconds } : {}),
        ...(this.options.jwtIssuer ? { issuer: this.options.jwtIssuer } : {}),
        ...(this.options.jwtAudience?.length ? { audience: this.options.jwtAudience } : {}),
      }));
    } catch (error) {
      throw this.refusal(error);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new UnauthorizedException('Invalid token: "sub" must be a non-empty string');
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS) throw new UnauthorizedException('Invalid token: "iat" lies in the future');
    // PostgreSQL text cannot hold NUL: refused here, by name, rather than failing in the database.
    const withNul = (['sub', 'email', 'name'] as const).find((claim) => typeof payload[claim] === 'string' && (payload[claim] as string).includes('\u0000'));
    if (withNul) throw new BadRequestException(`Invalid token: "${withNul}" must not contain a NUL character`);
    return {
      issuer: payload.iss ?? LOCAL_ISSUER,
      subject: payload.sub,
      email: typeof payload.email === 'string' ? payload.email : undefined,
      emailVerified: payload.email_verified === true,
      name: typeof payload.name === 'string' ? payload.name : undefined,
      roles: rolesFrom(claimAt(payload, this.options.jwtRolesClaim)),
      ...(typeof payload.agent === 'string' && payload.agent !== '' ? { agent: payload.agent } : {}),
    };
  }

  /** A bad token is the caller's problem (401); an unreachable or broken key set is ours (503). */
  private refusal(error: unknown): Error {
    const keySetUnavailable = error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError);
    if (!keySetUnavailable) return new UnauthorizedException(`Invalid token: ${(error as Error).message}`);
    this.logger.error(`Cannot check tokens against the JWKS: ${(error as Error).message}`);
    return new ServiceUnavailableException('The identity provider\'s keys cannot be fetched; try again later');
  }
}

/**
 * The claim named `path`, else the nested one it points to: `realm_access.roles` reads
 * `payload.realm_access.roles` as Keycloak nests them, while a namespaced claim such as
 * `https://example.com/roles` (Auth0) is found under its full name first.
 */
function claimAt(payload: JWTPayload, path: string): unknown {
  if (path in payload) return payload[path];
  return path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), payload);
}

/** A list of strings, or one space-separated string (the OAuth `scope` style some providers use). */
function rolesFrom(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  return Array.isArray(value) ? value.filter((role): role is string => typeof role === 'string') : [];
}
