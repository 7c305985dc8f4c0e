import { describe, expect, it } from '@jest/globals';
import type { CandidateRow } from '../retrieval/retrieval-sql.js';
import { chainsOf, currentItself, versionsByOrigin, type ChainMember } from './chain-versions.js';
import { holdsUnder, validityOf, type MemoryValidity } from './memory-validity.js';

const day = (date: string) => new Date(`${date}T00:00:00Z`);

/** A memory valid from `from` until `to` (null: current), superseded by `by`. */
function row(id: string, from: string, to: string | null = null, by: string | null = null): CandidateRow {
  return {
    id,
    text: id,
    kind: 'fact',
    source: null,
    created_at: day(from),
    updated_at: day(from),
    key: null,
    valid_from: day(from),
    valid_to: to === null ? null : day(to),
    superseded_by: by,
  };
}

// Paris (2020) -> Berlin (2022) -> Madrid (2024): the chain of one fact, as chainMembersSql finds it from any of them.
const paris = row('paris', '2020-01-01', '2022-01-01', 'berlin');
const berlin = row('berlin', '2022-01-01', '2024-01-01', 'madrid');
const madrid = row('madrid', '2024-01-01');
const membersFrom = (origin: string, deleted: string[] = []): ChainMember[] =>
  [paris, berlin, madrid].map((member) => ({ ...member, origin, deleted: deleted.includes(member.id) }));

describe('holdsUnder', () => {
  it.each<[string, CandidateRow, MemoryValidity, boolean]>([
    ['a current memory, now', madrid, 'current', true],
    ['a superseded one, now', paris, 'current', false],
    ['a superseded one, in its history', paris, 'history', true],
    ['inside its interval', berlin, { asOf: day('2023-06-01') }, true],
    ['at its first instant', berlin, { asOf: day('2022-01-01') }, true],
    ['at its end, which is its successor first instant', berlin, { asOf: day('2024-01-01') }, false],
    ['before it became true', madrid, { asOf: day('2023-12-31') }, false],
    ['a current one, long after', madrid, { asOf: day('2090-01-01') }, true],
  ])('%s', (_, memory, validity, holds) => {
    expect(holdsUnder(memory, validity)).toBe(holds);
  });

  it('an empty interval (a correction that dated its successor earlier) never holds as of any instant', () => {
    const corrected = row('corrected', '2021-01-01', '2021-01-01', 'right');
    for (const at of ['2020-12-31', '2021-01-01', '2021-01-02']) expect(holdsUnder(corrected, { asOf: day(at) })).toBe(false);
  });
});

describe('validityOf', () => {
  it('answers current by default, an instant or the history when asked, and a problem for both at once', () => {
    expect(validityOf(undefined, undefined)).toBe('current');
    expect(validityOf(undefined, false)).toBe('current');
    expect(validityOf(undefined, true)).toBe('history');
    expect(validityOf(day('2023-01-01'), undefined)).toEqual({ asOf: day('2023-01-01') });
    expect(validityOf(day('2023-01-01'), true)).toEqual({ problem: expect.any(String) });
  });
});

describe('versionsByOrigin', () => {
  it('names every chain by its last version, from whichever version it was reached', () => {
    for (const origin of ['paris', 'berlin', 'madrid']) expect(versionsByOrigin(membersFrom(origin), 'current').get(origin)?.chain).toBe('madrid');
  });

  it('keeps the current version, the one valid at an instant, or all of them, current first and then newest first', () => {
    const ids = (validity: MemoryValidity) =>
      versionsByOrigin(membersFrom('paris'), validity)
        .get('paris')!
        .versions.map((version) => version.id);
    expect(ids('current')).toEqual(['madrid']);
    expect(ids({ asOf: day('2021-06-01') })).toEqual(['paris']);
    expect(ids({ asOf: day('2019-06-01') })).toEqual([]);
    expect(ids('history')).toEqual(['madrid', 'berlin', 'paris']);
  });

  it('leaves deleted versions out, and a chain whose last version was forgotten has no current one', () => {
    const resolved = versionsByOrigin(membersFrom('paris', ['madrid']), 'history').get('paris')!;
    expect(resolved.versions.map((version) => version.id)).toEqual(['berlin', 'paris']);
    expect(versionsByOrigin(membersFrom('paris', ['madrid']), 'current').get('paris')!.versions).toEqual([]);
  });

  it('answers versions as rows, without the walk fields', () => {
    expect(versionsByOrigin(membersFrom('paris'), 'current').get('paris')!.versions[0]).toEqual(madrid);
  });
});

describe('chainsOf', () => {
  it('puts each chain at the rank of its best match, once, and drops matches whose chain keeps no version', () => {
    const tea = row('tea', '2020-01-01');
    const resolved = new Map([
      ...versionsByOrigin([...membersFrom('paris'), ...membersFrom('berlin')], 'current'),
      ['tea', currentItself(tea)],
      ['gone', { chain: 'gone', versions: [] }],
    ]);
    const list = [row('gone', '2020-01-01'), paris, tea, berlin];
    expect(chainsOf(list, resolved, () => 1).map((entry) => [entry.chain, entry.versions.map((version) => version.id)])).toEqual([
      ['madrid', ['madrid']],
      ['tea', ['tea']],
    ]);
  });

  it('orders chains whose best matches are equally relevant by how many of their versions matched, and never above a more relevant one', () => {
    const [tea, doctorNote] = [row('tea', '2020-01-01'), row('note', '2020-01-01')];
    const resolved = new Map([
      ...versionsByOrigin([...membersFrom('paris'), ...membersFrom('berlin')], 'current'),
      ['tea', currentItself(tea)],
      ['note', currentItself(doctorNote)],
    ]);
    const relevance = new Map([
      ['tea', 0.9],
      ['note', 0.5],
      ['paris', 0.5],
      ['berlin', 0.5],
    ]);
    const chains = (list: CandidateRow[]) => chainsOf(list, resolved, (match) => relevance.get(match.id)!).map((entry) => entry.chain);
    expect(chains([doctorNote, paris, berlin])).toEqual(['madrid', 'note']);
    expect(chains([doctorNote, paris, berlin, tea])).toEqual(['tea', 'madrid', 'note']);
    expect(chains([doctorNote, paris])).toEqual(['note', 'madrid']);
  });
});
