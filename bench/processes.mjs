import { readFileSync } from 'node:fs';
import net from 'node:net';

/** A loopback port nothing listens on at the moment of asking. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process now and at its peak so far, in MB, from /proc; undefined elsewhere. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const megabytes = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)[1]) / 1024;
    return { rss: megabytes('VmRSS'), peak: megabytes('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU time a process has used so far, user and system, all its threads, in seconds, from /proc; undefined elsewhere. */
export function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may itself hold spaces: utime and stime are the line's 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
