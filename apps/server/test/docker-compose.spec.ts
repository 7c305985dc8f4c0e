import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { CONFIG_KEYS, loadAppConfig } from '../src/config.js';

/** No Docker engine runs the tests: this checks what `docker compose up` would be given. */
const root = resolve(import.meta.dirname, '../../..');
const compose = parse(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8'));
const dockerfile = readFileSync(resolve(root, 'Dockerfile'), 'utf8');
const { mirobody, postgres } = compose.services;

/** What compose makes of `${NAME:-default}` when NAME is unset, and of `${NAME:?why}`, which the operator must set. */
const interpolate = (value: string) =>
  String(value)
    .replace(/\$\{\w+:-([^}]*)\}/g, '$1')
    .replace(/\$\{\w+:\?[^}]*\}/g, 'set-by-the-operator-to-32-or-more-characters');
const composeEnvironment: Record<string, string> = Object.fromEntries(
  Object.entries(mirobody.environment as Record<string, string>).map(([key, value]) => [key, interpolate(value)]),
);
/** The image's own ENV lines lie beneath compose's environment. */
const imageEnvironment = Object.fromEntries([...dockerfile.matchAll(/^\s*(?:ENV\s+)?([A-Z_]+)=(\S+?)\s*\\?$/gm)].map((match) => [match[1]!, match[2]!]));
const environment = { ...imageEnvironment, ...composeEnvironment };

describe('docker-compose.yml', () => {
  it('configures the server with keys the server knows, to values it accepts', () => {
    expect(Object.keys(composeEnvironment).filter((key) => !(CONFIG_KEYS as readonly string[]).includes(key))).toEqual([]);
    expect(imageEnvironment).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
    const config = loadAppConfig(environment);
    expect(config.HOST).toBe('0.0.0.0');
    expect(new URL(config.DATABASE_URL!).hostname).toBe('postgres');
  });

  it('publishes the server’s port and checks its readiness there', () => {
    const { PORT } = loadAppConfig(environment);
    expect(mirobody.ports).toContain(`${PORT}:${PORT}`);
    expect(mirobody.healthcheck.test.join(' ')).toContain(`127.0.0.1:${PORT}/health/ready`);
  });

  it('refuses to start without a database password of the operator’s own (finding 18)', () => {
    expect(postgres.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/);
    expect(mirobody.environment.DATABASE_URL).toContain('${POSTGRES_PASSWORD:?');
    expect(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8')).not.toMatch(/POSTGRES_PASSWORD:-/);
  });

  it('keeps both services’ data in named volumes', () => {
    const volumes = Object.keys(compose.volumes);
    const namedVolumeAt = (service: { volumes: string[] }, path: string) =>
      service.volumes.some((mount) => volumes.includes(mount.split(':')[0]!) && mount.split(':')[1] === path);
    expect(namedVolumeAt(mirobody, loadAppConfig(environment).DATA_DIR)).toBe(true);
    expect(namedVolumeAt(postgres, '/var/lib/postgresql/data')).toBe(true);
  });

  it('starts the server on a healthy PostgreSQL with pgvector', () => {
    expect(postgres.image).toMatch(/^pgvector\/pgvector:/);
    expect(postgres.healthcheck.test.join(' ')).toContain('pg_isready');
    expect(mirobody.depends_on.postgres.condition).toBe('service_healthy');
    const { POSTGRES_USER, POSTGRES_DB } = postgres.environment;
    const url = new URL(loadAppConfig(environment).DATABASE_URL!);
    expect([url.username, url.pathname]).toEqual([POSTGRES_USER, `/${POSTGRES_DB}`]);
  });

  it('builds the image from the Dockerfile: node 20, npm ci, build, pruned, the compiled server', () => {
    expect(mirobody.build).toBe('.');
    expect(dockerfile).toMatch(/^FROM node:20\S* AS build$/m);
    expect(dockerfile).toMatch(/RUN npm ci\b/);
    expect(dockerfile).toMatch(/npm run build && npm prune --omit=dev/);
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/);
    expect(dockerfile).toContain('CMD ["node", "dist/apps/server/src/main.js"]');
  });
});
