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
  const streamToFile = () => {
    const file = join(mkdtempSync(join(tmpdir(), 'json-lines-')), 'out.log');
    return { logger: pino({ level: 'info' }, jsonLineStream(openSync(file, 'w'))), written: () => readFileSync(file, 'utf8') };
  };
  const messages = (text: string) =>
    text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
  const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

  it('writes lines in batches, in order, a short batch within a tenth of a second', async () => {
    const { logger, written } = streamToFile();
    logger.info('first');
    logger.info('second with ünïcödé');
    // Nothing is written line by line (that would take a few milliseconds): the batch waits to fill up or for its time.
    await sleep(20);
    expect(written()).toBe('');
    await sleep(400);
    expect(messages(written())).toEqual(['first', 'second with ünïcödé']);
  });

  it('writes a full batch at once, and a line logged while it is being written soon after', async () => {
    const { logger, written } = streamToFile();
    const long = 'x'.repeat(9000);
    logger.info(long);
    logger.info('after the full batch');
    await sleep(400);
    expect(messages(written())).toEqual([long, 'after the full batch']);
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
