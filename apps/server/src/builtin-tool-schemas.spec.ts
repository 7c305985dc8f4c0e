import { describe, expect, it } from '@jest/globals';
import { loadAppConfig } from './config.js';
import { catalogFromConfig } from './tool-catalog.js';

/**
 * The schemas, descriptions and annotations of every packaged tool as `tools/list` publishes them,
 * held to a snapshot taken before tools could be read from their TypeScript types (issue 34): a
 * change to how a tool is declared must not change what clients see unless the snapshot is
 * updated on purpose, with the reason in the commit.
 */
describe('the packaged tools, as tools/list publishes them', () => {
  it('match the snapshot', async () => {
    const log = { log: () => undefined, warn: () => undefined, error: (message: string) => expect(message).toBeUndefined() };
    const catalog = await catalogFromConfig(loadAppConfig({}), 'mcp', undefined, log);
    expect(catalog.tools).toMatchSnapshot();
  });
});
