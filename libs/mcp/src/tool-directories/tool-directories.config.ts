import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, defineConfigSection, list } from '@app/common';
import type { ToolDirectoriesOptions } from './tool-directories.module.js';

/** `MCP_TOOL_DIRS`: directories of deployed tool files, in order (relative to the working directory). */
export const toolDirectoriesConfig = defineConfigSection({
  keys: { MCP_TOOL_DIRS: list() },
  toOptions: (values): ToolDirectoriesOptions => {
    const directories = values.MCP_TOOL_DIRS.map((directory) => resolve(directory));
    // A listed directory that is not there is almost always a typo: its tools would vanish without a word.
    const missing = directories.find((directory) => !existsSync(directory) || !statSync(directory).isDirectory());
    if (missing) throw new ConfigError('MCP_TOOL_DIRS', `${missing} is not a directory`);
    return { directories };
  },
});
