import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENERATED_SECRET_FILE, jwtKeySource } from './jwt-secret.js';

let dataDir: string;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

beforeEach(() => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'mirobody-secret-')), 'data');
});

afterEach(() => {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

describe('jwtKeySource', () => {
  it('generates a secret once, readable by the owner only, and reuses it', () => {
    const first = jwtKeySource({ dataDir });
    const path = join(dataDir, GENERATED_SECRET_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(first).toMatchObject({ mode: 'hs256', generated: true });
    const second = jwtKeySource({ dataDir });
    expect(second.mode === 'hs256' && text(second.secret)).toBe(readFileSync(path, 'utf8'));
    expect(first.mode === 'hs256' && text(first.secret)).toBe(readFileSync(path, 'utf8'));
  });

  it('prefers a configured secret or JWKS, and writes nothing then', () => {
    const configured = jwtKeySource({ dataDir, jwtSecret: 's'.repeat(32) });
    expect(configured.mode === 'hs256' && [text(configured.secret), configured.generated]).toEqual(['s'.repeat(32), false]);
    expect(jwtKeySource({ dataDir, jwksUrl: 'https://id.example.com/jwks' })).toEqual({ mode: 'jwks', url: new URL('https://id.example.com/jwks') });
    expect(() => statSync(dataDir)).toThrow();
  });

  it('refuses a file that holds no usable secret', () => {
    jwtKeySource({ dataDir });
    writeFileSync(join(dataDir, GENERATED_SECRET_FILE), 'short');
    expect(() => jwtKeySource({ dataDir })).toThrow(/no usable secret/);
  });
});
