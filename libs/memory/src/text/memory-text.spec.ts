import { describe, expect, it } from '@jest/globals';
import { dedupeKey, searchText, vocabularyWords } from './memory-text.js';

describe('dedupeKey', () => {
  it.each([
    ['I like green tea', 'i like green tea'],
    ['  I LIKE   green tea!! ', 'i like green tea'],
    ['Ｉ　ｌｉｋｅ　ｇｒｅｅｎ　ｔｅａ', 'i like green tea'],
    ['我喜欢绿茶。', '我喜欢绿茶'],
    ['我喜欢绿茶！', '我喜欢绿茶'],
    ['e-mail: a@b.c', 'e mail a b c'],
  ])('%j -> %j', (text, key) => expect(dedupeKey(text)).toBe(key));
});

describe('searchText', () => {
  it('adds the overlapping pairs of each CJK run and leaves other words alone', () => {
    expect(searchText('我喝咖啡 every morning')).toBe('我喝咖啡 every morning 我喝 喝咖 咖啡');
    expect(searchText('猫')).toBe('猫 猫');
  });

  it('removes accents from Latin letters only', () => {
    expect(searchText('Café Müller')).toBe('cafe muller');
    expect(searchText('ガソリン')).toContain('ガソ');
  });
});

describe('vocabularyWords', () => {
  it('keeps distinct words of three letters or more, not numbers, not CJK', () => {
    expect(vocabularyWords('I am 42 and I love café au lait, lait!  我喜欢')).toEqual(['and', 'love', 'cafe', 'lait']);
  });
});
