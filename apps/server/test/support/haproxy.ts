import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from '@jest/globals';

/** Debian's package (`apt-get install haproxy`); `.ci/run` installs it. */
export const HAPROXY = process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';

/** Where HAProxy is missing, the reverse-proxy tests are skipped saying why; in CI (`CI=true`), which installs it, they run and fail. */
export function describeWithHaproxy(): typeof describe | typeof describe.skip {
  if (process.env.CI === 'true' || spawnSync(HAPROXY, ['-v']).status === 0) return describe;
  process.stderr.write(`Skipping the reverse-proxy tests: no HAProxy at ${HAPROXY} (apt-get install haproxy, or set HAPROXY_PATH).\n`);
  return describe.skip;
}

/** A port nothing listens on at the moment of asking. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunningProxy {
  /** Where clients reach the app through the proxy. */
  url: URL;
  /** The address the proxy connects to the app from: the one to trust. */
  source: string;
  stop(): Promise<void>;
}

/**
 * HAProxy in front of `upstream`, in the foreground, with a generated configuration: HTTP mode,
 * `option forwardfor` (it appends the address of the client it accepted to `X-Forwarded-For`,
 * after any the client sent), connecting to the app from `source`.
 */
export async function startHaproxy(upstream: URL, source = '127.0.0.1'): Promise<RunningProxy> {
  const directory = mkdtempSync(join(tmpdir(), 'mirobody-haproxy-'));
  const port = await freePort();
  const config = join(directory, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      '  maxconn 256',
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 30s',
      '  timeout server 30s',
      'frontend clients',
      `  bind 127.0.0.1:${port}`,
      '  option forwardfor',
      '  default_backend app',
      'backend app',
      `  server app ${upstream.hostname}:${upstream.port} source ${source}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await listening(
      port,
      () => child.exitCode !== null,
      () => output,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: new URL(`http://127.0.0.1:${port}`), source, stop };
}

async function listening(port: number, gone: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (gone()) throw new Error(`HAProxy exited before it listened:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true)).once('error', () => resolve(false));
      socket.once('connect', () => socket.destroy());
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`HAProxy did not listen on ${port} within 10 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
