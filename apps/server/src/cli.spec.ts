import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, jwtVerify } from 'jose';
import { CliError, runCli } from './cli.js';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'mirobody-cli-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run cli -- token', () => {
  it('signs with the secret generated in DATA_DIR, which the server then uses too', async () => {
    const token = await runCli(['token', '--sub', 'ops', '--email', 'ops@example.com', '--name', 'Ops', '--ttl', '2h'], { DATA_DIR: dataDir });
    const secret = readFileSync(join(dataDir, 'jwt-secret'), 'utf8');
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(secret));
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload).toMatchObject({ sub: 'ops', email: 'ops@example.com', name: 'Ops' });
    expect(payload.exp! - payload.iat!).toBe(7200);
  });

  it('adds issuer, audience and the admin role under the configured claim', async () => {
    const env = {
      DATA_DIR: dataDir,
      JWT_SECRET: 'y'.repeat(32),
      JWT_ISSUER: 'https://id.example.com',
      JWT_AUDIENCE: 'mirobody',
      JWT_ROLES_CLAIM: 'realm_access.roles',
    };
    const payload = decodeJwt(await runCli(['token', '--sub', 'root', '--admin'], env));
    expect(payload).toMatchObject({ iss: 'https://id.example.com', aud: 'mirobody', realm_access: { roles: ['admin'] } });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it.each([
    [[], 2],
    [['frobnicate'], 2],
    [['token'], 2],
    [['token', '--sub', 'x', '--colour', 'red'], 2],
    [['token', '--sub', 'x', '--ttl', 'forever'], 1],
    // Finding 14: no longer than JWT_MAX_AGE (24 h by default).
    [['token', '--sub', 'x', '--ttl', '36500d'], 1],
    [['token', '--sub', 'x', '--ttl', '25h'], 1],
  ])('refuses %j with exit code %d', async (argv, exitCode) => {
    await expect(runCli(argv, { DATA_DIR: dataDir })).rejects.toMatchObject({ constructor: CliError, exitCode });
  });

  it('answers --help for the CLI and for each command, without a configuration', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const help = await runCli(argv, {});
      expect(help).toContain('Commands:\n  token');
      expect(help).toContain('\n  tools ');
    }
    for (const argv of [
      ['tools', '--help'],
      ['tools', '--format', 'openai', '-h'],
    ])
      expect(await runCli(argv, { PORT: 'not-read' })).toContain('--agent <name>');
    for (const argv of [
      ['token', '--help'],
      ['token', '--sub', 'x', '-h'],
    ])
      expect(await runCli(argv, { PORT: 'not-read' })).toContain('--ttl <duration>');
  });

  it('refuses in JWKS mode, where the identity provider holds the keys', async () => {
    await expect(
      runCli(['token', '--sub', 'x'], {
        DATA_DIR: dataDir,
        JWKS_URL: 'https://id.example.com/jwks',
        JWT_ISSUER: 'https://id.example.com',
        JWT_AUDIENCE: 'mirobody',
      }),
    ).rejects.toThrow(/JWKS_URL is set/);
  });
});

describe('npm run cli -- backup, restore, check-files', () => {
  it.each([
    [['backup'], 2, /--out is required/],
    [['backup', '--out', 'x.tar', '--url', 'ftp://host'], 2, /--url must be an http\(s\) address/],
    [['restore'], 2, /--from is required/],
    [['check-files', '--digests', 'yes'], 2, /Unexpected argument/],
  ])('refuses %j with exit code %d, saying why', async (argv, exitCode, message) => {
    await expect(runCli(argv, { DATA_DIR: dataDir })).rejects.toMatchObject({ constructor: CliError, exitCode, message: expect.stringMatching(message) });
  });

  it('says when no server answers, and never leaves a partial archive', async () => {
    const out = join(dataDir, 'backup.tar');
    await expect(runCli(['backup', '--out', out, '--url', 'http://127.0.0.1:9'], { DATA_DIR: dataDir })).rejects.toThrow(
      /No server answers at http:\/\/127\.0\.0\.1:9 .*is it running\?/,
    );
    expect(existsSync(out) || existsSync(`${out}.part`)).toBe(false);
  });

  it('restores only a Mirobody backup, and never on PostgreSQL', async () => {
    const notABackup = join(dataDir, 'notes.txt');
    writeFileSync(notABackup, 'x'.repeat(2048));
    await expect(runCli(['restore', '--from', notABackup], { DATA_DIR: join(dataDir, 'target') })).rejects.toThrow(
      /The restore failed: .* is not a tar archive/,
    );
    await expect(runCli(['restore', '--from', notABackup], { DATA_DIR: dataDir, DATABASE_URL: 'postgres://db/mirobody' })).rejects.toThrow(/pg_restore/);
  });

  it('answers --help for each', async () => {
    expect(await runCli(['backup', '--help'], {})).toContain('--out <file>');
    expect(await runCli(['restore', '-h'], {})).toContain('--from <file>');
    expect(await runCli(['check-files', '--help'], {})).toContain('--digests');
  });
});
