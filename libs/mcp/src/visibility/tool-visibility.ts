import leven from 'leven';

/**
 * Per-agent lists of tool, prompt and resource names: `ALLOWED_TOOLS_{NAME}` and
 * `DISALLOWED_TOOLS_{NAME}`, keyed by `agentKey(name)`.
 */
export interface AgentToolLists {
  allowed: Readonly<Record<string, readonly string[]>>;
  disallowed: Readonly<Record<string, readonly string[]>>;
}

const LIST_KEY = /^(DIS)?ALLOWED_TOOLS_([A-Z0-9_]+)$/;

/** What an agent may be called, in a credential, `?agent=` or the admin catalog. */
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const AGENT_NAME_RULE = '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** How an agent's name appears in its list keys: upper-cased, anything but letters and digits as `_` (`care-bot` → `CARE_BOT`). */
export function agentKey(agent: string): string {
  return agent.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

export function isAgentListKey(key: string): boolean {
  return LIST_KEY.test(key);
}

/**
 * The lists among configuration values. A list that is set but empty is kept: an empty allow list
 * means the agent sees no tools (the original engine read it as "all tools").
 */
export function agentToolListsFrom(values: Readonly<Record<string, string | undefined>>): AgentToolLists {
  const allowed: Record<string, string[]> = {};
  const disallowed: Record<string, string[]> = {};
  for (const [key, raw] of Object.entries(values)) {
    const match = LIST_KEY.exec(key);
    if (!match || raw === undefined) continue;
    const names = raw
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    (match[1] ? disallowed : allowed)[match[2]] = names;
  }
  return { allowed, disallowed };
}

/** Decides what an agent sees. No lists for the agent (or no agent): everything. The deny list is applied last, so it always wins. */
export class ToolVisibility {
  private readonly allowed: ReadonlyMap<string, ReadonlySet<string>>;
  private readonly disallowed: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(lists: AgentToolLists = { allowed: {}, disallowed: {} }) {
    this.allowed = new Map(Object.entries(lists.allowed).map(([agent, names]) => [agent, new Set(names)]));
    this.disallowed = new Map(Object.entries(lists.disallowed).map(([agent, names]) => [agent, new Set(names)]));
  }

  /**
   * The names in the lists that are no tool, prompt or resource in `known`, each with its list
   * (`DISALLOWED_TOOLS_KIOSK`) and the known name it is closest to, if any is a letter or two off. A
   * misspelt name matches nothing: in a deny list it leaves the tool it meant open to the agent.
   */
  unknownNames(known: ReadonlySet<string>): { list: string; name: string; closest?: string }[] {
    const lists = [
      ...[...this.allowed].map(([agent, names]) => [`ALLOWED_TOOLS_${agent}`, names] as const),
      ...[...this.disallowed].map(([agent, names]) => [`DISALLOWED_TOOLS_${agent}`, names] as const),
    ];
    return lists.flatMap(([list, names]) =>
      [...names]
        .filter((name) => !known.has(name))
        .map((name) => {
          const closest = [...known].find((candidate) => leven(name, candidate) <= 2);
          return closest === undefined ? { list, name } : { list, name, closest };
        }),
    );
  }

  /** The key under which the agent's views are cached; `undefined` when it sees everything. */
  restrictionKey(agent: string | undefined): string | undefined {
    if (agent === undefined) return undefined;
    const key = agentKey(agent);
    return this.allowed.has(key) || this.disallowed.has(key) ? key : undefined;
  }

  allows(name: string, agent: string | undefined): boolean {
    const key = this.restrictionKey(agent);
    if (key === undefined) return true;
    const allowed = this.allowed.get(key);
    if (allowed && !allowed.has(name)) return false;
    return !this.disallowed.get(key)?.has(name);
  }

  /** A list as the agent sees it, computed once per restricted agent and then reused. */
  view<T>(cache: Map<string, T>, agent: string | undefined, everything: T, filter: (allows: (name: string) => boolean) => T): T {
    const key = this.restrictionKey(agent);
    if (key === undefined) return everything;
    let view = cache.get(key);
    if (view === undefined) {
      view = filter((name) => this.allows(name, agent));
      cache.set(key, view);
    }
    return view;
  }
}
