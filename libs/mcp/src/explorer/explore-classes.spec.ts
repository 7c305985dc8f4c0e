import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { McpPrompt } from '../decorators/mcp-resource.decorators.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { Arg } from '../decorators/tool-parameter.decorators.js';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import { markOrigin, type ToolOrigin } from '../tool-directories/tool-origin.js';
import { exploreClasses } from './explore-classes.js';

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    log: { log: (m: string) => lines.push(`log ${m}`), warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) },
  };
}

const explore = (classes: Function[], log = recorder().log) =>
  exploreClasses(
    classes.map((metatype) => ({ metatype, instance: Object.create(metatype.prototype) })),
    undefined,
    log,
  );

const fromFile = (file: string, rank: number): ToolOrigin => ({ kind: 'directory', directory: '/tools', file, rank });

/** Fresh classes per test: origins are recorded on the class itself. */
function classes() {
  class EchoService {
    @McpTool({ description: 'packaged echo' })
    echo(@Arg('text') text: string) {
      return text;
    }

    @McpPrompt({ name: 'greeting', description: 'packaged prompt' })
    greeting() {}
  }
  class LoudEchoService {
    @McpTool({ name: 'echo', description: 'loud echo' })
    shout(@Arg('text') text: string) {
      return text;
    }
  }
  class QuietEchoService {
    @McpTool({ name: 'echo', description: 'quiet echo' })
    whisper(@Arg('text') text: string) {
      return text;
    }

    @McpPrompt({ name: 'greeting', description: 'directory prompt' })
    greeting() {}
  }
  class TagsService {
    @McpTool({ description: 'tags without items' })
    tag(@Arg('tags') tags: string[]) {
      return tags;
    }
  }
  class NeighbourService {
    @McpTool({ description: 'same file as TagsService' })
    neighbour() {}
  }
  class ElsewhereService {
    @McpTool({ description: 'another file' })
    elsewhere() {}
  }
  return { EchoService, LoudEchoService, QuietEchoService, TagsService, NeighbourService, ElsewhereService };
}

describe('exploreClasses', () => {
  it('lets the first directory that defines a name win over later ones and the packaged tool, logging both origins', () => {
    const { EchoService, LoudEchoService, QuietEchoService } = classes();
    markOrigin(LoudEchoService, fromFile('/tools/a/echo.js', 0));
    markOrigin(QuietEchoService, fromFile('/tools/b/echo.js', 1));
    const { lines, log } = recorder();
    // Discovery order does not matter: precedence does.
    const found = explore([EchoService, QuietEchoService, LoudEchoService], log);
    expect(found.tools.map((tool) => [tool.name, tool.className])).toEqual([['echo', 'LoudEchoService']]);
    expect(found.prompts.map((prompt) => [prompt.name, prompt.className])).toEqual([['greeting', 'QuietEchoService']]);
    expect(lines).toEqual([
      'warn Overriding tool "echo": LoudEchoService.shout (/tools/a/echo.js) replaces QuietEchoService.whisper (/tools/b/echo.js)',
      'warn Overriding tool "echo": LoudEchoService.shout (/tools/a/echo.js) replaces EchoService.echo (packaged)',
      'warn Overriding prompt "greeting": QuietEchoService.greeting (/tools/b/echo.js) replaces EchoService.greeting (packaged)',
    ]);
  });

  it('still refuses two packaged classes that define one name', () => {
    const { EchoService, LoudEchoService } = classes();
    expect(() => explore([EchoService, LoudEchoService])).toThrow(/tool "echo": declared by both EchoService.echo and LoudEchoService.shout/);
  });

  it('skips a directory file whose schema cannot be built, with every class of it, naming the file and the parameter', () => {
    const { TagsService, NeighbourService, ElsewhereService } = classes();
    markOrigin(TagsService, fromFile('/tools/tags.ts', 0));
    markOrigin(NeighbourService, fromFile('/tools/tags.ts', 0));
    markOrigin(ElsewhereService, fromFile('/tools/other.ts', 1));
    const { lines, log } = recorder();
    const found = explore([TagsService, NeighbourService, ElsewhereService], log);
    expect(found.tools.map((tool) => tool.name)).toEqual(['elsewhere']);
    expect(lines).toEqual([
      expect.stringMatching(/^error Error importing tool module \/tools\/tags\.ts: TagsService\.tag argument "tags": it is an array without an element type/),
    ]);
  });

  it('stops start-up for a packaged tool with the same fault: that is a bug to fix before release', () => {
    const { TagsService } = classes();
    expect(() => explore([TagsService])).toThrow(ToolDefinitionError);
  });

  it('records where each tool came from', () => {
    const { EchoService, ElsewhereService } = classes();
    markOrigin(ElsewhereService, fromFile('/tools/other.ts', 0));
    const found = explore([EchoService, ElsewhereService]);
    expect(found.tools.map((tool) => [tool.name, tool.origin])).toEqual([
      ['elsewhere', fromFile('/tools/other.ts', 0)],
      ['echo', { kind: 'packaged' }],
    ]);
  });
});
