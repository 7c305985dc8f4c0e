import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { requestId } from './logging.js';

const withHeaders = (headers: IncomingMessage['headers']) => ({ headers }) as IncomingMessage;

describe('requestId', () => {
  it('gives each request an id of its own, shaped like a UUID', () => {
    const ids = Array.from({ length: 1000 }, () => requestId(withHeaders({})));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/);
  });

  it("keeps a caller's own id when it looks like one, and replaces one that does not", () => {
    expect(requestId(withHeaders({ 'x-request-id': 'trace-42:a.b' }))).toBe('trace-42:a.b');
    for (const unfit of ['', 'a b', 'x'.repeat(129), 'line\nbreak'])
      expect(requestId(withHeaders({ 'x-request-id': unfit }))).toMatch(/^[\da-f]{8}-[\da-f]{4}-/);
    expect(requestId(withHeaders({ 'x-request-id': ['one', 'two'] }))).toMatch(/^[\da-f]{8}-[\da-f]{4}-/);
  });
});
