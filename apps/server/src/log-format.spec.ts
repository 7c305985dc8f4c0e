import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import pino from 'pino';
import { jsonLineStream, prettyStream, resolveLogFormat, withQuietStartup } from './log-format.js';

describe('resolveLogFormat', () => {
  it.each([
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ] as const)('%s with a terminal: %s gives %s', (format, terminal, expected) => {
    expect(resolveLogFormat(format, terminal)).toBe(expected);
  });
});

describe('prettyStream', () => {
  it('writes one readable line with the context and the request, without pid or hostname', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const stream = prettyStream(sink);
    const logger = pino({ level: 'info' }, stream);
    logger.info({ context: 'Bootstrap' }, 'listening');
    logger.info({ reqId: 'r1', req: { method: 'POST', url: '/mcp' }, res: { statusCode: 200 }, responseTime: 3.5 }, 'request completed');
    const text = stripVTControlCharacters(lines.join(''));
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[Bootstrap\] listening$/m);
    expect(text).toMatch(/INFO: request completed POST \/mcp 200 3\.5ms$/m);
    expect(text).not.toContain(String(process.pid));
  });
});

describe('jsonLineStream', () => {
  it('writes every line whole and in order, those logged while a write is in flight included', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'json-lines-')), 'out.log');
    const logger = pino({ level: 'info' }, jsonLineStream(openSync(file, 'w')));
    const logged = ['first', 'ünïcödé and 漢字', 'x'.repeat(20_000), ...Array.from({ length: 2000 }, (_, index) => `line ${index}`)];
    for (const message of logged) logger.info(message);
    await new Promise((done) => setTimeout(done, 500));
    const written = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(written).toEqual(logged);
  });
});

describe('withQuietStartup', () => {
  it("moves Nest's per-module and per-route start-up lines to debug and keeps the rest", () => {
    const calls: string[] = [];
    const record = (level: string) => (message: unknown) => calls.push(`${level} ${String(message)}`);
    const logger = withQuietStartup({ log: record('log'), error: record('error'), warn: record('warn'), debug: record('debug') });
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Mapped {/mcp, ALL} route', 'RouterExplorer');
    logger.log('Loaded tool: echo', 'McpExplorer');
    logger.warn('careful', 'Auth');
    expect(calls).toEqual(['debug AppModule dependencies initialized', 'debug Mapped {/mcp, ALL} route', 'log Loaded tool: echo', 'warn careful']);
  });
});
