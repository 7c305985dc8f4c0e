import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import leven from 'leven';
import { parse as parseYaml } from 'yaml';
import { authConfig, type AuthModuleOptions } from '@app/auth';
import {
  bool,
  commonConfig,
  tracingRequested,
  ConfigError,
  defineConfigSection,
  int,
  isLoopback,
  list,
  oneOf,
  optionalStr,
  parseUrl,
  str,
  type CommonModuleOptions,
  type ConfigSection,
  type Env,
} from '@app/common';
import { databaseConfig, type DatabaseSettings } from '@app/database';
import { filesConfig, type FilesModuleOptions } from '@app/files';
import { oauthConfig, type OAuthModuleOptions } from '@app/oauth';
import {
  isAgentListKey,
  mcpApprovalsConfig,
  mcpConfig,
  mcpTasksConfig,
  toolDirectoriesConfig,
  type McpApprovalsOptions,
  type McpModuleSettings,
  type McpTasksOptions,
  type ToolDirectoriesOptions,
} from '@app/mcp';
import { memoryConfig, type MemoryOptions } from '@app/memory';
import { trustedProxies, type TrustedProxies } from './trust-proxy.js';

export { ConfigError, isLoopback };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `auto`: coloured, readable lines when stdout is a terminal, JSON lines otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * The server's configuration: the app's own keys, and each lib's section (its keys, defaults and
 * checks live in the lib: `commonConfig`, `mcpConfig`, `authConfig`, ...), each under its own field.
 */
export interface AppConfig {
  version: string;
  PORT: number;
  HOST: string;
  /** The address clients reach the server at, without a trailing slash. */
  PUBLIC_BASE_URL: string;
  /** False when PUBLIC_BASE_URL is the default: answers that name the server's address then use the address the client used. */
  PUBLIC_BASE_URL_CONFIGURED: boolean;
  /** The reverse proxies whose `X-Forwarded-For` names the client (Fastify's `trustProxy`); undefined: none, the connection's address is the client's. */
  TRUST_PROXY?: TrustedProxies;
  /** Absolute path of the directory for the server's own files (the embedded database lives in `pg/` there). */
  DATA_DIR: string;
  LOG_LEVEL: LogLevel;
  LOG_FORMAT: LogFormat;
  /**
   * Whether lines written through Nest's `Logger` while a request is served carry its `reqId`. Off
   * by default: the AsyncLocalStorage context it takes turns on promise hooks for the whole process
   * (Node 20 and 22), which cost 8 µs of the 34 µs a `tools/call` takes.
   */
  LOG_REQUEST_CONTEXT: boolean;
  /** Browser origins allowed to call the server (CORS); unset: none. */
  CORS_ORIGINS?: string[];
  /** How long in-flight requests may run on after SIGTERM before their connections are cut. */
  SHUTDOWN_GRACE_SECONDS: number;
  /** The largest JSON body (REST and `/mcp`) the server reads; file uploads are streamed and have their own limit. */
  BODY_LIMIT_BYTES: number;
  /** The bearer token `GET /metrics` on the main port asks for; unset, the main port serves no metrics. */
  METRICS_TOKEN?: string;
  /** A port of its own serving `GET /metrics` without a token (for a network only Prometheus reaches); 0: none. */
  METRICS_PORT: number;
  /** Whether the environment names an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`): then requests are traced. */
  TRACING: boolean;
  /** `CommonModule.forRoot` options (the signing secret). */
  common: CommonModuleOptions;
  /** `DatabaseModule.forRoot` options but for the data directory (`DATABASE_URL`). */
  database: DatabaseSettings;
  /** `McpModule.forRoot` options, but for the server's identity. */
  mcp: Omit<McpModuleSettings, 'serverInfo'>;
  /** `McpTasksModule`'s options: the MCP_TASK_* keys and MCP_MAX_TASKS_PER_USER. */
  tasks: McpTasksOptions;
  /** `McpApprovalsModule`'s options: the APPROVALS_* keys, with the app's address (for the webhook's links). */
  approvals: McpApprovalsOptions;
  /** `AuthModule`'s options: the JWT_*, JWKS_URL, ADMIN_EMAILS, OAUTH_MODE, OAUTH_ISSUER, REDIS_URL, RATE_LIMIT_* and MCP_SECRETS_MAX_PER_USER keys, with the app's address and data directory. */
  auth: AuthModuleOptions;
  /** `OAuthModule`'s options (with `OAUTH_MODE=builtin`): the OIDC_* keys and the built-in authorization server's limits. */
  oauth: OAuthModuleOptions;
  /** `ToolDirectoriesModule.register` options (`MCP_TOOL_DIRS`). */
  toolDirectories: ToolDirectoriesOptions;
  /** `MemoryModule`'s options: the MEMORY_* and EMBEDDING_* keys. */
  memory: MemoryOptions;
  /** `FilesModule`'s options: the FILES_* and S3_* keys, with the app's address and data directory. */
  files: FilesModuleOptions;
}

function publicBaseUrl(raw: string | undefined, host: string, port: number): string {
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
function corsOrigins(origins: string[]): string[] | undefined {
  for (const origin of origins) {
    if (origin === '*') continue;
    const url = parseUrl(origin);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      throw new ConfigError(
        'CORS_ORIGINS',
        `expected origins such as https://app.example.com (scheme, host and port, no path or trailing slash) or *, got "${origin}"`,
      );
    }
  }
  return origins.length ? origins : undefined;
}

/** The app's own keys: where it listens and keeps its files, logs, shutdown. */
const serverConfig = defineConfigSection({
  keys: {
    PORT: int(18080, { min: 0, max: 65535 }),
    HOST: str('127.0.0.1'),
    PUBLIC_BASE_URL: optionalStr(),
    TRUST_PROXY: optionalStr(),
    DATA_DIR: str('./data'),
    LOG_LEVEL: oneOf(LOG_LEVELS, 'info'),
    LOG_FORMAT: oneOf(LOG_FORMATS, 'auto'),
    LOG_REQUEST_CONTEXT: bool(false),
    CORS_ORIGINS: list(),
    SHUTDOWN_GRACE_SECONDS: int(10, { min: 0, max: 600 }),
    BODY_LIMIT_BYTES: int(1_048_576, { min: 1024, max: 1_073_741_824 }),
    METRICS_TOKEN: optionalStr({ pattern: /^[\x21-\x7e]{32,}$/, expected: 'at least 32 printable characters without spaces', secret: true }),
    METRICS_PORT: int(0, { min: 0, max: 65535 }),
  },
  validate: (values, env) => {
    if (values.METRICS_PORT !== 0 && values.METRICS_PORT === values.PORT) throw new ConfigError('METRICS_PORT', `must differ from PORT (${values.PORT})`);
    // The authorization server's issuer and every address in its metadata derive from it: guessed
    // from the request, a proxy's Host would decide the issuer tokens are bound to.
    if (env.NODE_ENV === 'production' && env.OAUTH_MODE === 'builtin' && !values.PUBLIC_BASE_URL)
      throw new ConfigError(
        'PUBLIC_BASE_URL',
        'required when NODE_ENV=production with OAUTH_MODE=builtin: the https address clients reach this server at (the OAuth issuer)',
      );
  },
  toOptions: (values) => ({
    PORT: values.PORT,
    HOST: values.HOST,
    PUBLIC_BASE_URL: publicBaseUrl(values.PUBLIC_BASE_URL, values.HOST, values.PORT),
    PUBLIC_BASE_URL_CONFIGURED: !!values.PUBLIC_BASE_URL,
    TRUST_PROXY: trustedProxies(values.TRUST_PROXY),
    DATA_DIR: resolve(values.DATA_DIR),
    LOG_LEVEL: values.LOG_LEVEL,
    LOG_FORMAT: values.LOG_FORMAT,
    LOG_REQUEST_CONTEXT: values.LOG_REQUEST_CONTEXT,
    CORS_ORIGINS: corsOrigins(values.CORS_ORIGINS),
    SHUTDOWN_GRACE_SECONDS: values.SHUTDOWN_GRACE_SECONDS,
    BODY_LIMIT_BYTES: values.BODY_LIMIT_BYTES,
    ...(values.METRICS_TOKEN ? { METRICS_TOKEN: values.METRICS_TOKEN } : {}),
    METRICS_PORT: values.METRICS_PORT,
  }),
});

/** Every section of the configuration: the app's own, then each lib's (docs/configuration.md documents each in a table of its own). */
export const CONFIG_SECTIONS: readonly ConfigSection<unknown>[] = [
  serverConfig,
  commonConfig,
  databaseConfig,
  mcpConfig,
  mcpTasksConfig,
  mcpApprovalsConfig,
  authConfig,
  oauthConfig,
  toolDirectoriesConfig,
  memoryConfig,
  filesConfig,
];

/** Every key a config file or the environment may set; any other key in a config file stops start-up. */
export const CONFIG_KEYS: readonly string[] = CONFIG_SECTIONS.flatMap((section) => section.keys);

export interface LoadOptions {
  /**
   * The directory holding `config.yaml` and `config.{ENV}.yaml`, both optional layers beneath the
   * environment. Without it only the environment is read.
   */
  configDir?: string;
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
    if (!isConfigKey(key)) throw new ConfigError(key, `unknown key in ${name}`);
    if (value === null) continue;
    if (Array.isArray(value)) values[key] = value.join(',');
    else if (typeof value === 'object') throw new ConfigError(key, `expected a single value or a list in ${name}`);
    else values[key] = String(value);
  }
  return values;
}

function isConfigKey(key: string): boolean {
  return CONFIG_KEYS.includes(key) || isAgentListKey(key);
}

/**
 * `.env` in the working directory, the lowest layer, as NestJS users expect. Only the server's
 * keys are taken: the same file commonly holds others (docker compose reads POSTGRES_PASSWORD from it).
 */
function readDotEnv(path: string): Env {
  if (!existsSync(path)) return {};
  const values = parseEnv(readFileSync(path, 'utf8'));
  return Object.fromEntries(Object.entries(values).filter(([key, value]) => isConfigKey(key) && value !== undefined && value !== ''));
}

/** A name that is no setting but looks like one, and the setting it looks like. */
export interface Lookalike {
  name: string;
  setting: string;
  /** Where the name was set: `the environment` or the `.env` file. */
  source: string;
}

/**
 * Names in the environment or `.env` that are no setting but look like one: another case (`port`),
 * or, for a setting of 8 characters or more, up to two letters off (`JWT_SECERT`). They are ignored,
 * as every other variable is, since the environment and `.env` hold other programs' names too
 * (config.yaml, which holds only this server's keys, refuses unknown ones); start-up warns about them
 * with the setting meant. Shorter settings would take others' names for typos (`PGHOST` for `HOST`).
 */
export function lookalikeSettings(environment: Env, options: LoadOptions = {}): Lookalike[] {
  const dotEnv = options.configDir === undefined ? undefined : join(options.configDir, '.env');
  const sources: [string, string[]][] = [
    ['the environment', Object.keys(environment)],
    [dotEnv ?? '', dotEnv && existsSync(dotEnv) ? Object.keys(parseEnv(readFileSync(dotEnv, 'utf8'))) : []],
  ];
  return sources.flatMap(([source, names]) =>
    names.flatMap((name) => {
      if (isConfigKey(name)) return [];
      const upper = name.toUpperCase();
      const [setting, distance] = CONFIG_KEYS.map((key) => [key, key.length >= 8 || key === upper ? leven(upper, key) : Infinity] as const).reduce(
        (nearest, candidate) => (candidate[1] < nearest[1] ? candidate : nearest),
      );
      return distance <= 2 ? [{ name, setting, source }] : [];
    }),
  );
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
  const fromEnv = Object.fromEntries(
    Object.keys(env)
      .filter((key) => isConfigKey(key) && env[key] !== undefined && (env[key] !== '' || isAgentListKey(key)))
      .map((key) => [key, env[key]]),
  );
  return {
    ...readDotEnv(join(configDir, '.env')),
    ...readConfigFile(join(configDir, 'config.yaml')),
    ...(overlayFile ? readConfigFile(overlayFile) : {}),
    ...fromEnv,
  };
}

const packageVersion = (): string => JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url.replace('/dist/', '/')), 'utf8')).version;

/** Reads and checks the configuration; a bad value names its key, and never shows a secret. */
export function loadAppConfig(environment: Env, options: LoadOptions = {}): AppConfig {
  // NODE_ENV is no config key but decides what production demands.
  const env = { ...layered(environment, options.configDir), NODE_ENV: environment.NODE_ENV };
  const server = serverConfig.load(env);
  const common = commonConfig.load(env);
  const approvals = mcpApprovalsConfig.load(env);
  return {
    version: packageVersion(),
    ...server,
    // The OpenTelemetry SDK reads its OTEL_* variables from the environment itself; they are no config keys.
    TRACING: tracingRequested(environment),
    common,
    database: databaseConfig.load(env),
    mcp: { ...mcpConfig.load(env), approvalPolicies: approvals.policies },
    tasks: mcpTasksConfig.load(env),
    approvals: { ...approvals, publicBaseUrl: server.PUBLIC_BASE_URL },
    auth: { ...authConfig.load(env), publicBaseUrl: server.PUBLIC_BASE_URL, dataDir: server.DATA_DIR, signingSecret: common.signingSecret },
    oauth: oauthConfig.load(env),
    toolDirectories: toolDirectoriesConfig.load(env),
    memory: memoryConfig.load(env),
    files: { ...filesConfig.load(env), publicBaseUrl: server.PUBLIC_BASE_URL, dataDir: server.DATA_DIR },
  };
}
