import { MAX_TITLE_CHARS, toTitle } from './conversation-title.js';

const codePoints = (text: string) => [...text].length;
const isWellFormed = (text: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

describe('toTitle', () => {
  it('keeps a short summary, tidied', () => {
    expect(toTitle('  Sleep   and\nheart rate ')).toBe('Sleep and heart rate');
  });

  it('cuts at 200 characters', () => {
    expect(toTitle('a'.repeat(250))).toBe('a'.repeat(MAX_TITLE_CHARS));
  });

  it('never splits a surrogate pair', () => {
    const title = toTitle(`${'a'.repeat(199)}😀😀`);
    expect(title).toBe(`${'a'.repeat(199)}😀`);
    expect(codePoints(title)).toBe(200);
    expect(isWellFormed(title)).toBe(true);
  });

  it('never splits an emoji from its modifiers', () => {
    const family = '👩‍👩‍👧';
    const title = toTitle(`${'a'.repeat(198)}${family}`);
    expect(title).toBe('a'.repeat(198));
    expect(isWellFormed(title)).toBe(true);
  });

  it('counts characters, not UTF-16 units', () => {
    const title = toTitle('😀'.repeat(300));
    expect(codePoints(title)).toBe(200);
    expect(title.length).toBe(400);
  });
});
