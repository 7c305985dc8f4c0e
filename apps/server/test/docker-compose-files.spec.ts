import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { loadAppConfig } from '../src/config.js';

/** No Docker engine runs the tests: this checks the files storage `docker compose up` would wire. */
const root = resolve(import.meta.dirname, '../../..');
const compose = parse(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8'));
const { mirobody, minio, 'minio-bucket': bucketJob } = compose.services;
const interpolate = (value: string) =>
  String(value)
    .replace(/\$\{\w+:-([^}]*)\}/g, '$1')
    .replace(/\$\{\w+:\?[^}]*\}/g, 'set-by-the-operator-to-32-or-more-characters');
const environment = Object.fromEntries(Object.entries(mirobody.environment as Record<string, string>).map(([key, value]) => [key, interpolate(value)]));

describe('docker-compose.yml, files storage', () => {
  it('stores files in the MinIO service, in the bucket created at start-up, with its credentials', () => {
    // The tool directory is the container's mount (docker-compose.spec.ts); it plays no part here.
    const { storage } = loadAppConfig({ ...environment, HOST: '0.0.0.0', DATA_DIR: '/data', MCP_TOOL_DIRS: '' }).files;
    if (storage.kind !== 's3') throw new Error('compose does not configure S3 storage');
    expect(new URL(storage.endpoint!).host).toBe('minio:9000');
    expect(storage.forcePathStyle).toBe(true);
    expect(bucketJob.entrypoint.join(' ')).toContain(`mc mb --ignore-existing store/${storage.bucket}`);
    expect(interpolate(minio.environment.MINIO_ROOT_USER)).toBe(storage.accessKeyId);
    expect(interpolate(minio.environment.MINIO_ROOT_PASSWORD)).toBe(storage.secretAccessKey);
    expect(minio.ports).toEqual([`127.0.0.1:${new URL(storage.publicEndpoint!).port}:9000`]);
  });

  it('publishes MinIO on the loopback address only, and the server alone on every interface', () => {
    const published = Object.entries(compose.services as Record<string, { ports?: string[] }>).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => [name, port] as const),
    );
    expect(published.filter(([name, port]) => name !== 'mirobody' && !port.startsWith('127.0.0.1:'))).toEqual([]);
    expect(published.map(([name]) => name).sort()).toEqual(['minio', 'mirobody']);
  });

  it('starts the server after the bucket exists, and keeps MinIO’s data in a named volume', () => {
    expect(mirobody.depends_on['minio-bucket'].condition).toBe('service_completed_successfully');
    expect(bucketJob.depends_on.minio.condition).toBe('service_healthy');
    expect(minio.volumes).toContain('minio-data:/data');
    expect(Object.keys(compose.volumes)).toContain('minio-data');
  });
});
