import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { AuthModuleOptions } from '@app/auth';

/** A configuration value that cannot be used; start-up stops with this message. */
export class ConfigError extends Error {
  constructor(key: string, problem: string) {
    super(`Invalid configuration ${key}: ${problem}`);
    this.name = 'ConfigError';
  }
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `auto`: coloured, readable lines when stdout is a terminal, JSON lines otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The auth keys (JWT, JWKS, admins, rate limits) are declared with the auth module that reads them. */
export interface AppConfig extends AuthModuleOptions {
  version: string;
  PORT: number;
  HOST: string;
  /** The address clients reach the server at, without a trailing slash. */
  PUBLIC_BASE_URL: string;
  /** False when PUBLIC_BASE_URL is the default: answers that name the server's address then use the address the client used. */
  PUBLIC_BASE_URL_CONFIGURED: boolean;
  /** Absolute path of the directory for the server's own files (the embedded database lives in `pg/` there). */
  DATA_DIR: string;
  /** A PostgreSQL server; without it the embedded database is used. */
  DATABASE_URL?: string;
  LOG_LEVEL: LogLevel;
  LOG_FORMAT: LogFormat;
  /** Browser origins allowed to call the server (CORS); unset: none. */
  CORS_ORIGINS?: string[];
  /** How long in-flight requests may run on after SIGTERM before their connections are cut. */
  SHUTDOWN_GRACE_SECONDS: number;
  MCP_CONFORMANCE_FIXTURES: boolean;
  MCP_SESSION_IDLE_SECONDS: number;
  MCP_MAX_SESSIONS: number;
  MCP_SESSION_SECRET?: string;
  /** Host names accepted in Host/Origin; defaults to the loopback names when HOST is a loopback address, else unchecked. */
  MCP_ALLOWED_HOSTS?: string[];
}

/** Every key a config file or the environment may set. */
export const CONFIG_KEYS = [
  'PORT',
  'HOST',
  'PUBLIC_BASE_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'CORS_ORIGINS',
  'SHUTDOWN_GRACE_SECONDS',
  'MCP_CONFORMANCE_FIXTURES',
  'MCP_SESSION_IDLE_SECONDS',
  'MCP_MAX_SESSIONS',
  'MCP_SESSION_SECRET',
  'MCP_ALLOWED_HOSTS',
  'JWT_SECRET',
  'JWKS_URL',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWT_ROLES_CLAIM',
  'ADMIN_EMAILS',
  'OAUTH_ISSUER',
  'REDIS_URL',
  'RATE_LIMIT_REQUESTS',
  'RATE_LIMIT_ANONYMOUS_REQUESTS',
  'RATE_LIMIT_WINDOW_SECONDS',
] as const;
type ConfigKey = (typeof CONFIG_KEYS)[number];

type Env = Record<string, string | undefined>;

export interface LoadOptions {
  /**
   * The directory holding `config.yaml` and `config.{ENV}.yaml`, both optional layers beneath the
   * environment. Without it only the environment is read.
   */
  configDir?: string;
}

function integer(env: Env, key: ConfigKey, fallback: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(key, `expected a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}

function boolean(env: Env, key: ConfigKey, fallback: boolean): boolean {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(key, `expected true or false, got "${raw}"`);
}

function list(env: Env, key: ConfigKey): string[] | undefined {
  const raw = env[key];
  return raw ? raw.split(',').map((item) => item.trim()).filter(Boolean) : undefined;
}

function oneOf<T extends string>(env: Env, key: ConfigKey, allowed: readonly T[], fallback: T): T {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw as T)) throw new ConfigError(key, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** `URL.parse` arrives only in Node 22. */
function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function publicBaseUrl(env: Env, host: string, port: number): string {
  const raw = env.PUBLIC_BASE_URL;
  if (!raw) {
    // The host itself (127.0.0.1 by default, as the README and the start-up line give it); a wildcard bind is reached as localhost.
    const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
    const reachable = name.includes(':') ? `[${name}]` : name;
    return `http://${reachable}:${port}`;
  }
  const url = parseUrl(raw);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new ConfigError('PUBLIC_BASE_URL', `expected an http(s) URL without query or fragment, got "${raw}"`);
  }
  return url.href.replace(/\/+$/, '');
}

/** Browser origins, exactly as a browser sends them in `Origin`: scheme, host and port, or `*`. */
function corsOrigins(env: Env): string[] | undefined {
  const origins = list(env, 'CORS_ORIGINS');
  for (const origin of origins ?? []) {
    if (origin === '*') continue;
    const url = parseUrl(origin);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      throw new ConfigError('CORS_ORIGINS', `expected origins such as https://app.example.com (scheme, host and port, no path or trailing slash) or *, got "${origin}"`);
    }
  }
  return origins;
}

/** Never echoes the value: the URL may carry a password. */
function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (!raw) return undefined;
  const url = parseUrl(raw);
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || !url.hostname) {
    throw new ConfigError('DATABASE_URL', 'expected postgres://user:password@host:port/database');
  }
  return raw;
}

function httpUrl(env: Env, key: ConfigKey): string | undefined {
  const raw = env[key];
  if (!raw) return undefined;
  const url = parseUrl(raw);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new ConfigError(key, `expected an http(s) URL, got "${raw}"`);
  return raw;
}

type AuthConfig = Pick<
  AppConfig,
  | 'JWT_SECRET'
  | 'JWKS_URL'
  | 'JWT_ISSUER'
  | 'JWT_AUDIENCE'
  | 'JWT_ROLES_CLAIM'
  | 'ADMIN_EMAILS'
  | 'OAUTH_ISSUER'
  | 'REDIS_URL'
  | 'RATE_LIMIT_REQUESTS'
  | 'RATE_LIMIT_ANONYMOUS_REQUESTS'
  | 'RATE_LIMIT_WINDOW_SECONDS'
>;

/** Token checking, admins and rate limits; `production` (NODE_ENV) demands a configured token key. */
function authConfig(env: Env, production: boolean): AuthConfig {
  const secret = env.JWT_SECRET || undefined;
  if (secret !== undefined && secret.length < 32) throw new ConfigError('JWT_SECRET', 'use at least 32 characters');
  const jwksUrl = httpUrl(env, 'JWKS_URL');
  // Keys travel over this: plain http only to the machine itself (tests, a local identity provider).
  if (jwksUrl && new URL(jwksUrl).protocol === 'http:' && !isLoopback(new URL(jwksUrl).hostname.replace(/^\[|\]$/g, ''))) {
    throw new ConfigError('JWKS_URL', `expected an https URL (http only for a loopback address), got "${jwksUrl}"`);
  }
  if (secret && jwksUrl) throw new ConfigError('JWKS_URL', 'set either JWT_SECRET (HS256) or JWKS_URL (RS256/ES256), not both');
  if (production && !secret && !jwksUrl) throw new ConfigError('JWT_SECRET', 'required when NODE_ENV=production (or set JWKS_URL)');
  const adminEmails = (list(env, 'ADMIN_EMAILS') ?? []).map((email) => email.toLowerCase());
  const notAnEmail = adminEmails.find((email) => !/^[^@\s]+@[^@\s]+$/.test(email));
  if (notAnEmail) throw new ConfigError('ADMIN_EMAILS', `expected e-mail addresses, got "${notAnEmail}"`);
  const rolesClaim = env.JWT_ROLES_CLAIM || 'roles';
  if (/\s/.test(rolesClaim)) throw new ConfigError('JWT_ROLES_CLAIM', `expected a claim name, got "${rolesClaim}"`);
  const redisUrl = env.REDIS_URL || undefined;
  // Never echoed: the URL may carry a password.
  if (redisUrl && !/^rediss?:$/.test(parseUrl(redisUrl)?.protocol ?? '')) throw new ConfigError('REDIS_URL', 'expected redis://[:password@]host:port[/db] or rediss://...');
  const issuer = env.JWT_ISSUER || undefined;
  return {
    JWT_SECRET: secret,
    JWKS_URL: jwksUrl,
    JWT_ISSUER: issuer,
    JWT_AUDIENCE: list(env, 'JWT_AUDIENCE'),
    JWT_ROLES_CLAIM: rolesClaim,
    ADMIN_EMAILS: adminEmails,
    OAUTH_ISSUER: httpUrl(env, 'OAUTH_ISSUER') ?? issuer,
    REDIS_URL: redisUrl,
    RATE_LIMIT_REQUESTS: integer(env, 'RATE_LIMIT_REQUESTS', 600, 0, 1_000_000),
    RATE_LIMIT_ANONYMOUS_REQUESTS: integer(env, 'RATE_LIMIT_ANONYMOUS_REQUESTS', 300, 0, 1_000_000),
    RATE_LIMIT_WINDOW_SECONDS: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 24 * 3600),
  };
}

/** A config file's keys, as the environment would give them; absent files add nothing. */
function readConfigFile(path: string): Env {
  if (!existsSync(path)) return {};
  const name = path.split(/[\\/]/).pop()!;
  let content: unknown;
  try {
    content = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(name, `not valid YAML: ${(error as Error).message}`);
  }
  if (content === null || content === undefined) return {};
  if (typeof content !== 'object' || Array.isArray(content)) throw new ConfigError(name, 'expected KEY: value lines');
  const values: Env = {};
  for (const [key, value] of Object.entries(content)) {
    // A misspelt key would otherwise be ignored without a word.
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) throw new ConfigError(key, `unknown key in ${name}`);
    if (value === null) continue;
    if (Array.isArray(value)) values[key] = value.join(',');
    else if (typeof value === 'object') throw new ConfigError(key, `expected a single value or a list in ${name}`);
    else values[key] = String(value);
  }
  return values;
}

/**
 * `.env` in the working directory, the lowest layer, as NestJS users expect. Only the server's
 * keys are taken: the same file commonly holds others (docker compose reads POSTGRES_PASSWORD from it).
 */
function readDotEnv(path: string): Env {
  if (!existsSync(path)) return {};
  const values = parseEnv(readFileSync(path, 'utf8'));
  return Object.fromEntries(CONFIG_KEYS.filter((key) => values[key] !== undefined && values[key] !== '').map((key) => [key, values[key]]));
}

/** The layers, later wins: .env, config.yaml, config.{ENV}.yaml, then the environment (empty variables count as unset). */
function layered(env: Env, configDir: string | undefined): Env {
  if (configDir === undefined) return env;
  const overlay = env.ENV;
  if (overlay !== undefined && overlay !== '' && !/^[A-Za-z0-9_-]+$/.test(overlay)) {
    throw new ConfigError('ENV', `expected a name of letters, digits, - and _, got "${overlay}"`);
  }
  const overlayFile = overlay ? join(configDir, `config.${overlay}.yaml`) : undefined;
  if (overlayFile && !existsSync(overlayFile)) throw new ConfigError('ENV', `${overlayFile} does not exist`);
  const fromEnv = Object.fromEntries(CONFIG_KEYS.filter((key) => env[key] !== undefined && env[key] !== '').map((key) => [key, env[key]]));
  return { ...readDotEnv(join(configDir, '.env')), ...readConfigFile(join(configDir, 'config.yaml')), ...(overlayFile ? readConfigFile(overlayFile) : {}), ...fromEnv };
}

const packageVersion = (): string => JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url.replace('/dist/', '/')), 'utf8')).version;

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** Reads and checks the configuration; a bad value names its key, and never shows a secret. */
export function loadAppConfig(environment: Env, options: LoadOptions = {}): AppConfig {
  const env = layered(environment, options.configDir);
  const host = env.HOST || '127.0.0.1';
  const port = integer(env, 'PORT', 18080, 0, 65535);
  const secret = env.MCP_SESSION_SECRET;
  if (secret !== undefined && secret !== '' && secret.length < 32) throw new ConfigError('MCP_SESSION_SECRET', 'use at least 32 characters');
  return {
    version: packageVersion(),
    PORT: port,
    HOST: host,
    PUBLIC_BASE_URL: publicBaseUrl(env, host, port),
    PUBLIC_BASE_URL_CONFIGURED: !!env.PUBLIC_BASE_URL,
    DATA_DIR: resolve(env.DATA_DIR || './data'),
    DATABASE_URL: databaseUrl(env),
    LOG_LEVEL: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    LOG_FORMAT: oneOf(env, 'LOG_FORMAT', LOG_FORMATS, 'auto'),
    CORS_ORIGINS: corsOrigins(env),
    SHUTDOWN_GRACE_SECONDS: integer(env, 'SHUTDOWN_GRACE_SECONDS', 10, 0, 600),
    MCP_CONFORMANCE_FIXTURES: boolean(env, 'MCP_CONFORMANCE_FIXTURES', false),
    MCP_SESSION_IDLE_SECONDS: integer(env, 'MCP_SESSION_IDLE_SECONDS', 1800, 1, 7 * 24 * 3600),
    MCP_MAX_SESSIONS: integer(env, 'MCP_MAX_SESSIONS', 10_000, 1, 1_000_000),
    MCP_SESSION_SECRET: secret || undefined,
    MCP_ALLOWED_HOSTS: list(env, 'MCP_ALLOWED_HOSTS') ?? (isLoopback(host) ? undefined : []),
    ...authConfig(env, environment.NODE_ENV === 'production'),
  };
}
