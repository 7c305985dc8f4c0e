import { describe, expect, it } from '@jest/globals';
import { agentKey, agentToolListsFrom, isAgentListKey, ToolVisibility } from './tool-visibility.js';

const lists = agentToolListsFrom({
  ALLOWED_TOOLS_CURSOR: 'echo, whoami ,recall_memory',
  DISALLOWED_TOOLS_CURSOR: 'whoami',
  DISALLOWED_TOOLS_REPORTER: 'echo',
  ALLOWED_TOOLS_MUTE: '',
  ALLOWED_TOOLS_CARE_BOT: 'echo',
  UNRELATED_KEY: 'echo',
  DISALLOWED_TOOLS_UNSET: undefined,
});

describe('agentToolListsFrom', () => {
  it('reads both kinds of list by agent key, trims names, and keeps an empty allow list', () => {
    expect(lists).toEqual({
      allowed: { CURSOR: ['echo', 'whoami', 'recall_memory'], MUTE: [], CARE_BOT: ['echo'] },
      disallowed: { CURSOR: ['whoami'], REPORTER: ['echo'] },
    });
  });

  it.each([
    ['ALLOWED_TOOLS_CURSOR', true],
    ['DISALLOWED_TOOLS_A1', true],
    ['ALLOWED_TOOLS_', false],
    ['ALLOWED_TOOLS_cursor', false],
    ['XALLOWED_TOOLS_CURSOR', false],
  ])('%s is an agent list key: %s', (key, expected) => {
    expect(isAgentListKey(key)).toBe(expected);
  });
});

describe('ToolVisibility', () => {
  const visibility = new ToolVisibility(lists);

  it.each([
    ['cursor', 'echo', true],
    ['cursor', 'recall_memory', true],
    ['cursor', 'whoami', false], // allowed, then denied: the deny list wins
    ['cursor', 'remember', false], // not on the allow list
    ['CURSOR', 'echo', true], // names are matched upper-cased
    ['reporter', 'echo', false],
    ['reporter', 'whoami', true], // only a deny list: everything else
    ['mute', 'echo', false], // an empty allow list: nothing
    ['care-bot', 'echo', true], // `-` becomes `_` in the key
    ['care-bot', 'whoami', false],
    ['stranger', 'whoami', true], // no lists: everything
    [undefined, 'whoami', true], // no agent: everything
  ])('agent %s sees %s: %s', (agent, tool, expected) => {
    expect(visibility.allows(tool, agent)).toBe(expected);
  });

  it('builds a view once per restricted agent and hands everything to the others', () => {
    const cache = new Map<string, string[]>();
    const everything = ['echo', 'whoami', 'remember'];
    let built = 0;
    const filter = (allows: (name: string) => boolean) => {
      built++;
      return everything.filter(allows);
    };
    expect(visibility.view(cache, 'cursor', everything, filter)).toEqual(['echo']);
    expect(visibility.view(cache, 'Cursor', everything, filter)).toEqual(['echo']);
    expect(visibility.view(cache, 'stranger', everything, filter)).toBe(everything);
    expect(visibility.view(cache, undefined, everything, filter)).toBe(everything);
    expect(built).toBe(1);
  });

  it('is open to everyone without lists', () => {
    expect(new ToolVisibility().allows('echo', 'cursor')).toBe(true);
  });

  it('names what its lists name that is no known tool, with the name meant when one is close', () => {
    const visibility = new ToolVisibility(agentToolListsFrom({ ALLOWED_TOOLS_KIOSK: 'echo,whoam', DISALLOWED_TOOLS_KIOSK: 'delete_fle,something_else' }));
    expect(visibility.unknownNames(new Set(['echo', 'whoami', 'delete_file']))).toEqual([
      { list: 'ALLOWED_TOOLS_KIOSK', name: 'whoam', closest: 'whoami' },
      { list: 'DISALLOWED_TOOLS_KIOSK', name: 'delete_fle', closest: 'delete_file' },
      { list: 'DISALLOWED_TOOLS_KIOSK', name: 'something_else' },
    ]);
    expect(visibility.unknownNames(new Set(['echo', 'whoam', 'delete_fle', 'something_else']))).toEqual([]);
  });

  it('derives list keys from agent names', () => {
    expect(agentKey('care-bot.v2')).toBe('CARE_BOT_V2');
  });
});
