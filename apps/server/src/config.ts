import { readFileSync } from 'node:fs';

/** A configuration value that cannot be used; start-up stops with this message. */
export class ConfigError extends Error {
  constructor(key: string, problem: string) {
    super(`Invalid configuration ${key}: ${problem}`);
    this.name = 'ConfigError';
  }
}

export interface AppConfig {
  version: string;
  PORT: number;
  HOST: string;
  MCP_CONFORMANCE_FIXTURES: boolean;
  MCP_SESSION_IDLE_SECONDS: number;
  MCP_MAX_SESSIONS: number;
  MCP_SESSION_SECRET?: string;
  /** Host names accepted in Host/Origin; defaults to the loopback names when HOST is a loopback address, else unchecked. */
  MCP_ALLOWED_HOSTS?: string[];
}

type Env = Record<string, string | undefined>;

function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(key, `expected a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}

function boolean(env: Env, key: string, fallback: boolean): boolean {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(key, `expected true or false, got "${raw}"`);
}

function list(env: Env, key: string): string[] | undefined {
  const raw = env[key];
  return raw ? raw.split(',').map((item) => item.trim()).filter(Boolean) : undefined;
}

const packageVersion = (): string => JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url.replace('/dist/', '/')), 'utf8')).version;

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** Reads and checks the configuration from environment variables; a bad value names its key. */
export function loadAppConfig(env: Env): AppConfig {
  const host = env.HOST || '127.0.0.1';
  const secret = env.MCP_SESSION_SECRET;
  if (secret !== undefined && secret !== '' && secret.length < 32) throw new ConfigError('MCP_SESSION_SECRET', 'use at least 32 characters');
  return {
    version: packageVersion(),
    PORT: integer(env, 'PORT', 18080, 0, 65535),
    HOST: host,
    MCP_CONFORMANCE_FIXTURES: boolean(env, 'MCP_CONFORMANCE_FIXTURES', false),
    MCP_SESSION_IDLE_SECONDS: integer(env, 'MCP_SESSION_IDLE_SECONDS', 1800, 1, 7 * 24 * 3600),
    MCP_MAX_SESSIONS: integer(env, 'MCP_MAX_SESSIONS', 10_000, 1, 1_000_000),
    MCP_SESSION_SECRET: secret || undefined,
    MCP_ALLOWED_HOSTS: list(env, 'MCP_ALLOWED_HOSTS') ?? (isLoopback(host) ? undefined : []),
  };
}
