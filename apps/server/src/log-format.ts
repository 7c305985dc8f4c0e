import { createRequire } from 'node:module';
import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as PinoInstance } from 'pino';
import type { LogFormat, LogLevel } from './config.js';

/** `auto` means readable lines for a person at a terminal, JSON lines for a log collector. */
export function resolveLogFormat(format: LogFormat, stdoutIsTerminal = process.stdout.isTTY === true): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return stdoutIsTerminal ? 'pretty' : 'json';
}

/**
 * Coloured single lines (time, level, context, message) on stdout. Synchronous, in this thread:
 * it serves a developer's terminal, and no line is lost when the process exits right after it.
 */
export function prettyStream(destination: number | NodeJS.WritableStream = 1): DestinationStream {
  // Loaded only for a terminal: a server writing JSON lines does not keep pino-pretty's modules in memory.
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({
    destination,
    sync: true,
    colorize: pinoPretty.isColorSupported,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context,reqId,req,res,responseTime',
    messageFormat: (log, messageKey) => {
      const context = log.context ? `[${String(log.context)}] ` : '';
      const request = log.req as { method?: string; url?: string } | undefined;
      const response = log.res as { statusCode?: number } | undefined;
      const exchange = request
        ? ` ${request.method} ${request.url}${response?.statusCode ? ` ${response.statusCode}` : ''} ${String(log.responseTime ?? '')}ms`
        : '';
      return `${context}${String(log[messageKey] ?? '')}${exchange}`;
    },
  });
}

/**
 * pino's JSON lines on stdout through sonic-boom, handed over as buffers. A line is written at once
 * when no write is in flight; the lines logged while one is are gathered and written together after
 * it, so under load one write carries many lines. Given text instead, sonic-boom measures its whole
 * gathered text again for every line it appends, which cost a `tools/call` about 10 µs of server CPU
 * under `npm run bench` load (issue 13). pino writes what is still gathered when the process exits.
 */
export function jsonLineStream(fd = 1): DestinationStream {
  const stream = pino.destination({ dest: fd, contentMode: 'buffer' });
  // In buffer mode sonic-boom's `write` takes buffers, though its types name only strings. Looked up
  // on each call: pino replaces it with a no-op once stdout's reader has gone (EPIPE).
  const buffers = stream as unknown as { write(line: Buffer): boolean };
  return { write: (line: string) => buffers.write(Buffer.from(line)) };
}

/** The destination of the application's lines in the chosen format: pretty lines, or JSON lines. */
export function logDestination(format: LogFormat): DestinationStream {
  return resolveLogFormat(format) === 'pretty' ? prettyStream() : jsonLineStream();
}

/** For the lines `main.ts` writes before the application exists or after it is gone. */
export function processLogger(level: LogLevel, format: LogFormat): PinoInstance {
  // Synchronous: the last line is written from the process's `exit` event.
  return pino({ level }, resolveLogFormat(format) === 'pretty' ? prettyStream() : pino.destination({ sync: true }));
}

/** Nest's per-module and per-route start-up lines (about thirty of them): kept, at debug level. */
const START_UP_DETAIL = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Nest's logger with its start-up detail moved to debug, so that start-up says what matters in a few lines. */
export function withQuietStartup(logger: LoggerService): LoggerService {
  return {
    log: (message: unknown, ...rest: unknown[]) => {
      const context = rest.at(-1);
      if (typeof context === 'string' && START_UP_DETAIL.has(context)) logger.debug?.(message, ...rest);
      else logger.log(message, ...rest);
    },
    error: (message: unknown, ...rest: unknown[]) => logger.error(message, ...rest),
    warn: (message: unknown, ...rest: unknown[]) => logger.warn(message, ...rest),
    debug: (message: unknown, ...rest: unknown[]) => logger.debug?.(message, ...rest),
    verbose: (message: unknown, ...rest: unknown[]) => logger.verbose?.(message, ...rest),
    fatal: (message: unknown, ...rest: unknown[]) => logger.fatal?.(message, ...rest),
  };
}
