import { spawn, type ChildProcess } from 'node:child_process';

/** A whole process under test (npm, the dev server, the compiled server), with what it wrote to stdout and stderr. */
export interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the n-th (1-based) MCP URL the process announced. */
  announcement: (count: number) => Promise<string>;
  exited: Promise<number | null>;
}

/** Starts a command in `cwd` on a free loopback port with JSON log lines, with only PATH and HOME from this environment. */
export function startProcess(cwd: string, command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that npm, the compiler and the server can be stopped together.
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const announcement = (count: number) =>
    new Promise<string>((done, fail) => {
      const timer = setInterval(() => {
        const urls = [...output.matchAll(/listening on (http:\/\/\S+\/mcp)/g)].map((match) => match[1]!);
        if (urls.length >= count) {
          clearInterval(timer);
          done(urls[count - 1]!);
        }
      }, 100);
      void exited.then((code) => {
        clearInterval(timer);
        fail(new Error(`exited with ${code} before announcing URL number ${count}:\n${output}`));
      });
    });
  return { child, output: () => output, announcement, exited };
}

/** Sends `signal` to the process's whole group and resolves with its exit code. */
export const stopGroup = (started: Started, signal: NodeJS.Signals = 'SIGTERM') => {
  try {
    process.kill(-started.child.pid!, signal);
  } catch {
    // Already gone.
  }
  return started.exited;
};
