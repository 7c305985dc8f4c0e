import { describe, expect, it } from '@jest/globals';
import { fuseRankedLists, recencyFactor } from './rank-fusion.js';

const now = new Date('2026-12-01T00:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 3600 * 1000);
const item = (id: string, age = 0) => ({ id, updatedAt: daysAgo(age) });

describe('fuseRankedLists', () => {
  it('scores 1 for a fresh memory every list put first, less for the rest, best first', () => {
    const fused = fuseRankedLists(
      [
        [item('a'), item('b')],
        [item('a'), item('c')],
      ],
      2,
      10,
      now,
    );
    expect(fused.map(({ candidate }) => candidate.id)).toEqual(['a', 'b', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1, 10);
    for (const { score } of fused) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('gives a memory found by one of two lists at most one half', () => {
    expect(fuseRankedLists([[item('a')], []], 2, 10, now)[0]!.score).toBeCloseTo(0.5, 10);
  });

  it('lets recency break a tie but never lift a lower-ranked memory above a higher one by much', () => {
    const tie = fuseRankedLists([[item('old', 365)], [item('new', 0)]], 2, 10, now);
    expect(tie.map(({ candidate }) => candidate.id)).toEqual(['new', 'old']);
    expect(recencyFactor(daysAgo(30), now)).toBeCloseTo(0.95, 10);
    expect(recencyFactor(daysAgo(10_000), now)).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps at most `limit`', () => {
    expect(fuseRankedLists([[item('a'), item('b'), item('c')]], 1, 2, now)).toHaveLength(2);
  });
});
