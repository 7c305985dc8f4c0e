/**
 * The knowledge-update half of `npm run eval:memory`: the chains of memory-update-set.ts played,
 * in the order their versions became true with unrelated facts in between, by two scripted
 * clients, then questioned.
 *
 * - The guided client does what the tool descriptions teach: in a keyed chain it passes `key`;
 *   otherwise, before storing an update, it recalls the topic, finds the version it told before
 *   among the results (as a model would recognise it) and passes its id in `replaces`; if recall
 *   missed it, it looks for it in the answer's `related` and calls remember again with `replaces`.
 * - The unguided client never passes `replaces` or `key` (both pass `valid_from`).
 *
 * Scores: current-value@1 (the question's first answer is the newest version), stale in top 5
 * (an older version among the first five), as-of accuracy (asked as of a date inside each
 * version's interval, the first answer is that version), history completeness (the newest
 * version's history holds every version), and other users' memories returned (must be 0).
 */
import { randomUUID } from 'node:crypto';
import { readMemoryTime, type MemoryStore, type RememberInput } from '@app/memory';
import { FACTS } from './memory-eval-set.js';
import { chainsOf, EVAL_USERS, TOPICS, UNRELATED_FACTS, type Chain } from './memory-update-set.js';

const K = 5;
const CJK = /[\p{Script=Han}]/u;

/** How the client's `valid_from` and the question's `as_of` are read: as the tools read them. */
const instant = (text: string): Date => readMemoryTime(text) as Date;

interface PlayedChain {
  chain: Chain;
  userId: string;
  /** The id each version was stored under. */
  ids: string[];
}

interface Play {
  chains: PlayedChain[];
  /** Every memory of the decoys: none may come back to a user under evaluation. */
  decoyIds: Set<string>;
  /** How the guided client found the version it replaced. */
  found: { byRecall: number; byRelated: number; missed: number };
}

/** One user's chains, their versions in the order they became true, an unrelated fact after every second one. */
async function playUser(store: MemoryStore, chains: Chain[], guided: boolean, found: Play['found']): Promise<PlayedChain[]> {
  const userId = randomUUID();
  const played = chains.map((chain) => ({ chain, userId, ids: [] as string[] }));
  const events = played
    .flatMap((entry) => entry.chain.versions.map((version, index) => ({ entry, index, from: version.validFrom })))
    .sort((a, b) => a.from.localeCompare(b.from));
  const facts = UNRELATED_FACTS.map((name) => FACTS[name]!);
  for (const [step, { entry, index }] of events.entries()) {
    const version = entry.chain.versions[index]!;
    const told: RememberInput = { text: version.text, validFrom: instant(version.validFrom) };
    if (!guided) entry.ids.push((await store.remember(userId, told)).id);
    else if (entry.chain.keyed) entry.ids.push((await store.remember(userId, { ...told, key: entry.chain.topic.key })).id);
    else entry.ids.push(await rememberUpdate(store, userId, entry, index, told, found));
    if (step % 2 === 1) await store.remember(userId, { text: facts[(step + entry.chain.user) % facts.length]! });
  }
  return played;
}

/** The guided client's update of an unkeyed chain: recall, then remember with `replaces`; `related` when recall missed. */
async function rememberUpdate(
  store: MemoryStore,
  userId: string,
  entry: PlayedChain,
  index: number,
  told: RememberInput,
  found: Play['found'],
): Promise<string> {
  if (index === 0) return (await store.remember(userId, told)).id;
  const previous = entry.chain.versions[index - 1]!.text;
  const recalled = await store.recall(userId, entry.chain.topic.topic, K);
  const hit = recalled.find((memory) => memory.text === previous);
  if (hit) {
    found.byRecall++;
    return (await store.remember(userId, { ...told, replaces: [hit.id] })).id;
  }
  const stored = await store.remember(userId, told);
  const related = stored.related.find((memory) => memory.text === previous);
  if (!related) {
    found.missed++;
    return stored.id;
  }
  found.byRelated++;
  // The same text again refreshes the memory just stored, which now supersedes the related one.
  return (await store.remember(userId, { ...told, replaces: [related.id] })).id;
}

async function play(store: MemoryStore, guided: boolean): Promise<Play> {
  const found = { byRecall: 0, byRelated: 0, missed: 0 };
  const chains: PlayedChain[] = [];
  const decoyIds = new Set<string>();
  for (let user = 0; user < EVAL_USERS; user++) {
    chains.push(...(await playUser(store, chainsOf(user), guided, found)));
    for (const decoy of await playUser(store, chainsOf(user, true), false, found)) decoy.ids.forEach((id) => decoyIds.add(id));
  }
  await store.vectorsSettled();
  return { chains, decoyIds, found };
}

interface ChainScore {
  chain: Chain;
  currentFirst: boolean;
  /** What came first when it was not the newest version (for the misses line). */
  firstInstead?: string;
  staleInTop: boolean;
  asOfRight: number;
  asOfAsked: number;
  historyComplete: boolean;
  leaks: number;
}

async function score(store: MemoryStore, { chain, userId, ids }: PlayedChain, decoyIds: Set<string>): Promise<ChainScore> {
  const newest = ids.at(-1)!;
  const older = new Set(ids.slice(0, -1).filter((id) => id !== newest));
  const answer = await store.recall(userId, chain.topic.question, K);
  let leaks = answer.filter((memory) => decoyIds.has(memory.id)).length;
  let asOfRight = 0;
  for (const [index, version] of chain.versions.entries()) {
    const then = await store.recall(userId, chain.topic.question, K, undefined, { asOf: instant(version.checkpoint) });
    leaks += then.filter((memory) => decoyIds.has(memory.id)).length;
    if (then[0]?.id === ids[index]) asOfRight++;
  }
  const history = await store.history(userId, newest, { limit: 200 });
  const versions = new Set(history.items.map((memory) => memory.id));
  return {
    chain,
    currentFirst: answer[0]?.id === newest,
    ...(answer[0]?.id === newest ? {} : { firstInstead: answer[0]?.text ?? '(nothing)' }),
    staleInTop: answer.slice(0, K).some((memory) => older.has(memory.id)),
    asOfRight,
    asOfAsked: chain.versions.length,
    historyComplete: versions.size === new Set(ids).size && ids.every((id) => versions.has(id)),
    leaks,
  };
}

/** Where current-value@1 failed, by question, with what came first instead the first time. */
function misses(rows: ChainScore[]): string {
  const byQuestion = new Map<string, { count: number; example: string }>();
  for (const row of rows.filter((entry) => !entry.currentFirst)) {
    const seen = byQuestion.get(row.chain.topic.question);
    byQuestion.set(row.chain.topic.question, { count: (seen?.count ?? 0) + 1, example: seen?.example ?? row.firstInstead! });
  }
  if (byQuestion.size === 0) return '  current-value@1 misses: none';
  return ['  current-value@1 misses, by question (what came first instead):']
    .concat(Array.from(byQuestion, ([question, { count, example }]) => `    "${question}" x${count}: "${example}"`))
    .join('\n');
}

const share = (count: number, of: number) => (of ? count / of : 0).toFixed(3);

function summarize(label: string, rows: ChainScore[]): string {
  const asked = rows.reduce((sum, row) => sum + row.asOfAsked, 0);
  return [
    `  ${label.padEnd(20)} n=${String(rows.length).padStart(3)}`,
    `current-value@1 ${share(rows.filter((row) => row.currentFirst).length, rows.length)}`,
    `stale in top ${K} ${share(rows.filter((row) => row.staleInTop).length, rows.length)}`,
    `as-of ${share(
      rows.reduce((sum, row) => sum + row.asOfRight, 0),
      asked,
    )} (${asked} asked)`,
    `history ${share(rows.filter((row) => row.historyComplete).length, rows.length)}`,
  ].join('  ');
}

/** Plays and scores the set on each store (lexical, hybrid), with the guided client and the unguided one. */
export async function evaluateKnowledgeUpdates(modes: [string, MemoryStore][]): Promise<void> {
  const sample = chainsOf(0);
  const versions = Array.from({ length: EVAL_USERS }, (_, user) => chainsOf(user).reduce((sum, chain) => sum + chain.versions.length, 0)).reduce(
    (a, b) => a + b,
  );
  console.log(
    `\nKnowledge updates: ${EVAL_USERS * sample.length} chains (${EVAL_USERS} users x ${TOPICS.length} topics, ` +
      `${TOPICS.filter((topic) => !CJK.test(topic.first)).length} English and ${TOPICS.filter((topic) => CJK.test(topic.first)).length} Chinese; half keyed), ` +
      `${versions} versions (2 to 4 updates per chain), an unrelated fact after every second one, a decoy user per user`,
  );
  for (const [mode, store] of modes) {
    for (const guided of [true, false]) {
      const played = await play(store, guided);
      const rows: ChainScore[] = [];
      for (const chain of played.chains) rows.push(await score(store, chain, played.decoyIds));
      console.log(`\n${mode}, client ${guided ? 'following the tool descriptions (recall, then replaces or key)' : 'ignoring them (never replaces or key)'}`);
      console.log(summarize('all chains', rows));
      console.log(
        summarize(
          'English',
          rows.filter((row) => !CJK.test(row.chain.topic.first)),
        ),
      );
      console.log(
        summarize(
          'Chinese',
          rows.filter((row) => CJK.test(row.chain.topic.first)),
        ),
      );
      if (guided) {
        console.log(
          summarize(
            'keyed',
            rows.filter((row) => row.chain.keyed),
          ),
        );
        console.log(
          summarize(
            'unkeyed',
            rows.filter((row) => !row.chain.keyed),
          ),
        );
        const { byRecall, byRelated, missed } = played.found;
        console.log(`  unkeyed updates: the version replaced was found by recall ${byRecall}, by related ${byRelated}, not found ${missed}`);
        console.log(misses(rows));
      }
      console.log(`  other users' memories returned: ${rows.reduce((sum, row) => sum + row.leaks, 0)}`);
    }
  }
  console.log("\nTargets with the guidance: current-value@1 >= 0.95, stale in top 5 <= 0.05, as-of >= 0.95, history 1.00; other users' memories returned: 0");
}
