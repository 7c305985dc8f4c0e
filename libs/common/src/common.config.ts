import { ConfigError } from './config/config-error.js';
import { defineConfigSection, optionalStr } from './config/config-section.js';
import type { CommonModuleOptions } from './common.module.js';

const LONG_ENOUGH = { pattern: /^.{32,}$/s, expected: 'at least 32 characters', secret: true };

/** `SIGNING_SECRET`, the root of every signature; `MCP_SESSION_SECRET` is its former name, still read. */
export const commonConfig = defineConfigSection({
  keys: {
    SIGNING_SECRET: optionalStr(LONG_ENOUGH),
    MCP_SESSION_SECRET: optionalStr(LONG_ENOUGH),
  },
  validate: (values) => {
    if (values.SIGNING_SECRET && values.MCP_SESSION_SECRET && values.SIGNING_SECRET !== values.MCP_SESSION_SECRET) {
      throw new ConfigError('MCP_SESSION_SECRET', 'is the former name of SIGNING_SECRET: set only SIGNING_SECRET');
    }
  },
  toOptions: (values): CommonModuleOptions => {
    const signingSecret = values.SIGNING_SECRET ?? values.MCP_SESSION_SECRET;
    return signingSecret ? { signingSecret } : {};
  },
});
