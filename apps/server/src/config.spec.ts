import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadAppConfig, lookalikeSettings } from './config.js';

let dir: string;
const write = (name: string, content: string) => writeFileSync(join(dir, name), content);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mirobody-config-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadAppConfig', () => {
  it('has defaults for everything', () => {
    const config = loadAppConfig({}, { configDir: dir });
    expect(config).toMatchObject({
      PORT: 18080,
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'http://127.0.0.1:18080',
      PUBLIC_BASE_URL_CONFIGURED: false,
      DATA_DIR: resolve('data'),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'auto',
      SHUTDOWN_GRACE_SECONDS: 10,
      BODY_LIMIT_BYTES: 1_048_576,
    });
    expect(config.database.url).toBeUndefined();
    expect(config.TRUST_PROXY).toBeUndefined();
    expect(loadAppConfig({ TRUST_PROXY: '10.0.0.0/8, 10.1.2.3' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '10.1.2.3']);
  });

  it('layers config.yaml, then config.{ENV}.yaml, then the environment', () => {
    write('config.yaml', 'PORT: 9000\nHOST: 0.0.0.0\nLOG_LEVEL: warn\nMCP_ALLOWED_HOSTS: [a.example, b.example]\n');
    write('config.localdb.yaml', 'PORT: 9001\nDATABASE_URL: postgres://me@db.example:5432/mirobody\n');
    const config = loadAppConfig({ ENV: 'localdb', LOG_LEVEL: 'debug' }, { configDir: dir });
    expect(config).toMatchObject({
      PORT: 9001,
      HOST: '0.0.0.0',
      LOG_LEVEL: 'debug',
      database: { url: 'postgres://me@db.example:5432/mirobody' },
      mcp: expect.objectContaining({ allowedHostnames: ['a.example', 'b.example'] }),
      PUBLIC_BASE_URL: 'http://localhost:9001',
    });
  });

  it('reads .env beneath config.yaml and the environment, taking only its own keys from it', () => {
    write(
      '.env',
      '# compose reads this file too\nPOSTGRES_PASSWORD=not-ours\nPORT=9100\nLOG_LEVEL=warn\nLOG_FORMAT="json"\nCORS_ORIGINS=http://localhost:6274\n',
    );
    write('config.yaml', 'LOG_LEVEL: error\n');
    const config = loadAppConfig({ LOG_FORMAT: 'pretty' }, { configDir: dir });
    expect(config).toMatchObject({ PORT: 9100, LOG_LEVEL: 'error', LOG_FORMAT: 'pretty', CORS_ORIGINS: ['http://localhost:6274'] });
    expect(loadAppConfig({}).PORT).toBe(18080);
  });

  it('checks LOG_FORMAT and CORS_ORIGINS', () => {
    expect(loadAppConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:6274,*' }).CORS_ORIGINS).toEqual([
      'https://a.example',
      'http://localhost:6274',
      '*',
    ]);
    expect(loadAppConfig({}).CORS_ORIGINS).toBeUndefined();
    expect(() => loadAppConfig({ CORS_ORIGINS: 'https://a.example/' })).toThrow('Invalid configuration CORS_ORIGINS');
    expect(() => loadAppConfig({ CORS_ORIGINS: 'a.example' })).toThrow('Invalid configuration CORS_ORIGINS');
    expect(() => loadAppConfig({ LOG_FORMAT: 'xml' })).toThrow('Invalid configuration LOG_FORMAT');
  });

  it('gives the public address at the bound host by default, localhost for a wildcard bind', () => {
    expect(loadAppConfig({ HOST: 'localhost', PORT: '1' }).PUBLIC_BASE_URL).toBe('http://localhost:1');
    expect(loadAppConfig({ HOST: '::1', PORT: '1' }).PUBLIC_BASE_URL).toBe('http://[::1]:1');
    expect(loadAppConfig({ HOST: '0.0.0.0', PORT: '1' }).PUBLIC_BASE_URL).toBe('http://localhost:1');
    expect(loadAppConfig({ PUBLIC_BASE_URL: 'https://mcp.example.com/' })).toMatchObject({
      PUBLIC_BASE_URL: 'https://mcp.example.com',
      PUBLIC_BASE_URL_CONFIGURED: true,
    });
  });

  it('reads no file without a configDir, and treats empty variables as unset', () => {
    write('config.yaml', 'PORT: 9000\n');
    expect(loadAppConfig({ PORT: '' }).PORT).toBe(18080);
    expect(loadAppConfig({ PORT: '' }, { configDir: dir }).PORT).toBe(9000);
  });

  it('names the key of a bad value, wherever it came from', () => {
    write('config.yaml', 'PORT: lots\n');
    expect(() => loadAppConfig({}, { configDir: dir })).toThrow('Invalid configuration PORT: expected a whole number');
    expect(() => loadAppConfig({ LOG_LEVEL: 'loud' })).toThrow('Invalid configuration LOG_LEVEL');
    expect(() => loadAppConfig({ PUBLIC_BASE_URL: 'ftp://x' })).toThrow('Invalid configuration PUBLIC_BASE_URL');
    expect(() => loadAppConfig({ SHUTDOWN_GRACE_SECONDS: '-1' })).toThrow('Invalid configuration SHUTDOWN_GRACE_SECONDS');
    expect(() => loadAppConfig({ BODY_LIMIT_BYTES: '1MB' })).toThrow('Invalid configuration BODY_LIMIT_BYTES');
    expect(() => loadAppConfig({ TRUST_PROXY: '10.0.0.1,proxy' })).toThrow('Invalid configuration TRUST_PROXY: "proxy" is neither');
  });

  it('rejects an unknown key in a file, a missing ENV file and a file that is not YAML', () => {
    write('config.yaml', 'PROT: 9000\n');
    expect(() => loadAppConfig({}, { configDir: dir })).toThrow('Invalid configuration PROT: unknown key in config.yaml');
    write('config.yaml', 'PORT: [1, 2\n');
    expect(() => loadAppConfig({}, { configDir: dir })).toThrow('Invalid configuration config.yaml: not valid YAML');
    rmSync(join(dir, 'config.yaml'));
    expect(() => loadAppConfig({ ENV: 'staging' }, { configDir: dir })).toThrow('Invalid configuration ENV: ');
    expect(() => loadAppConfig({ ENV: '../etc' }, { configDir: dir })).toThrow('Invalid configuration ENV: expected a name');
  });

  it('keeps the DNS-rebinding check on for wildcard binds, with the loopback names and the public host (finding 16)', () => {
    for (const HOST of ['0.0.0.0', '::']) {
      expect(loadAppConfig({ HOST }).mcp.allowedHostnames).toEqual(['localhost', '127.0.0.1', '[::1]']);
      expect(loadAppConfig({ HOST, PUBLIC_BASE_URL: 'https://mcp.example.com' }).mcp.allowedHostnames).toEqual([
        'localhost',
        '127.0.0.1',
        '[::1]',
        'mcp.example.com',
      ]);
    }
    expect(loadAppConfig({ HOST: '127.0.0.1' }).mcp.allowedHostnames).toBeUndefined();
    expect(loadAppConfig({ HOST: '0.0.0.0', MCP_ALLOWED_HOSTS: 'a.example' }).mcp.allowedHostnames).toEqual(['a.example']);
  });

  it('takes MCP_ALLOWED_HOSTS as host names in the form Host headers are compared in, refusing what could never match', () => {
    expect(loadAppConfig({ MCP_ALLOWED_HOSTS: 'MCP.Example.com,10.0.0.7,[0:0::1]' }).mcp.allowedHostnames).toEqual(['mcp.example.com', '10.0.0.7', '[::1]']);
    for (const entry of ['https://mcp.example.com', 'mcp.example.com:443', 'mcp.example.com/mcp', '*.example.com', '[1:2]']) {
      expect(() => loadAppConfig({ MCP_ALLOWED_HOSTS: `a.example,${entry}` })).toThrow(
        `Invalid configuration MCP_ALLOWED_HOSTS: expected host names such as mcp.example.com or [::1]`,
      );
    }
  });

  it('never repeats a secret in its messages', () => {
    const url = 'mysql://admin:hunter2-secret@db.example/x';
    expect(() => loadAppConfig({ DATABASE_URL: url })).toThrow('Invalid configuration DATABASE_URL');
    expect(() => loadAppConfig({ DATABASE_URL: url })).not.toThrow(/hunter2/);
    expect(() => loadAppConfig({ MCP_SESSION_SECRET: 'short-secret' })).not.toThrow(/short-secret/);
  });

  it("takes each lib's keys from a file, as the lib's section reads them", () => {
    write('config.yaml', 'MCP_MAX_SESSIONS: 7\nRATE_LIMIT_REQUESTS: 9\nSIGNING_SECRET: a-signing-secret-of-32-characters-at-least\n');
    const config = loadAppConfig({}, { configDir: dir });
    expect(config.mcp.maxSessions).toBe(7);
    expect(config.auth.rateLimit.requests).toBe(9);
    expect(config.common).toEqual({ signingSecret: 'a-signing-secret-of-32-characters-at-least' });
  });

  it('reads MCP_SESSION_SECRET as the former name of SIGNING_SECRET, and refuses two different values', () => {
    const secret = 'x'.repeat(32);
    expect(loadAppConfig({ MCP_SESSION_SECRET: secret }).common).toEqual({ signingSecret: secret });
    expect(() => loadAppConfig({ MCP_SESSION_SECRET: secret, SIGNING_SECRET: 'y'.repeat(32) })).toThrow(
      'Invalid configuration MCP_SESSION_SECRET: is the former name of SIGNING_SECRET',
    );
  });
});

describe('lookalikeSettings', () => {
  it('names what the environment and .env misspell, and leaves other programs their names', () => {
    write('.env', 'POSTGRES_PASSWORD=not-ours\nACESS_LOG_RETENTION=30d\nport=9100\n');
    const environment = { JWT_SECERT: 'x', log_level: 'debug', PGHOST: 'db', PGPORT: '5432', HOME: '/root', HOSTNAME: 'vm', TEST_DATABASE_URL: 'x', PORT: '1' };
    expect(lookalikeSettings(environment, { configDir: dir })).toEqual([
      { name: 'JWT_SECERT', setting: 'JWT_SECRET', source: 'the environment' },
      { name: 'log_level', setting: 'LOG_LEVEL', source: 'the environment' },
      { name: 'ACESS_LOG_RETENTION', setting: 'ACCESS_LOG_RETENTION', source: join(dir, '.env') },
      { name: 'port', setting: 'PORT', source: join(dir, '.env') },
    ]);
    expect(lookalikeSettings({ JWT_SECERT: 'x' })).toEqual([{ name: 'JWT_SECERT', setting: 'JWT_SECRET', source: 'the environment' }]);
  });
});

describe('tool directories and agent tool lists', () => {
  it('read MCP_TOOL_DIRS as an ordered list of absolute paths, from a file or the environment', () => {
    write('config.yaml', `MCP_TOOL_DIRS:\n  - examples/tools\n  - ${dir}\n`);
    expect(loadAppConfig({}, { configDir: dir }).toolDirectories.directories).toEqual([resolve('examples/tools'), dir]);
    expect(loadAppConfig({ MCP_TOOL_DIRS: `${dir}, examples/tools` }, { configDir: dir }).toolDirectories.directories).toEqual([
      dir,
      resolve('examples/tools'),
    ]);
    expect(loadAppConfig({}).toolDirectories.directories).toEqual([]);
    expect(() => loadAppConfig({ MCP_TOOL_DIRS: `${dir},${dir}/missing` })).toThrow(`Invalid configuration MCP_TOOL_DIRS: ${dir}/missing is not a directory`);
  });

  it('read ALLOWED_TOOLS_{NAME} and DISALLOWED_TOOLS_{NAME} from files and the environment, an empty one included', () => {
    write('config.yaml', 'ALLOWED_TOOLS_CURSOR: [echo, whoami]\nDISALLOWED_TOOLS_CURSOR: whoami\nALLOWED_TOOLS_MUTE: []\nALLOWED_TOOLS_LATER: [echo]\n');
    const config = loadAppConfig({ ALLOWED_TOOLS_LATER: '', DISALLOWED_TOOLS_REPORTER: 'echo' }, { configDir: dir });
    expect(config.mcp.agentTools).toEqual({
      allowed: { CURSOR: ['echo', 'whoami'], MUTE: [], LATER: [] },
      disallowed: { CURSOR: ['whoami'], REPORTER: ['echo'] },
    });
  });

  it('still refuse a misspelt key in a file', () => {
    write('config.yaml', 'ALLOWED_TOOL_CURSOR: [echo]\n');
    expect(() => loadAppConfig({}, { configDir: dir })).toThrow('Invalid configuration ALLOWED_TOOL_CURSOR: unknown key in config.yaml');
  });
});
