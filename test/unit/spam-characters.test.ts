import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classOf, foldCase, normalizeSafely, SPACE, UNSPACED, WORD } from '../../src/spam/characters.js';

const hex = (codePoint: number) => codePoint.toString(16).padStart(4, '0');

describe('foldCase', () => {
  it("groups exactly the characters that the engine's case-insensitive (iu) matching equates, for every character whose case can change", () => {
    const cased: number[] = [];
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      if (/^\p{Changes_When_Casemapped}$/u.test(String.fromCodePoint(codePoint))) cased.push(codePoint);
    }
    assert.ok(cased.length > 2500, `${cased.length} cased characters`);
    assert.ok(cased.at(-1)! < 0x20000, 'every cased character lies below U+20000, where the table ends');
    const all = cased.map((codePoint) => String.fromCodePoint(codePoint)).join('\n');
    const byFold = new Map<number, number[]>();
    for (const codePoint of cased) byFold.set(foldCase(codePoint), [...(byFold.get(foldCase(codePoint)) ?? []), codePoint]);
    const wrong: string[] = [];
    for (const codePoint of cased) {
      // the characters the engine matches against this one are those that fold alike
      const equal = [...all.matchAll(new RegExp(`\\u{${hex(codePoint)}}`, 'giu'))].map((match) => hex(match[0].codePointAt(0)!));
      const folded = byFold.get(foldCase(codePoint))!.map(hex);
      if (equal.join() !== folded.join()) wrong.push(`${hex(codePoint)}: engine ${equal.join()}, folded ${folded.join()}`);
    }
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  it('folds simply, as the engine does: ß is not ss, the dotless ı is not i, but ſ is s and the Kelvin sign is k', () => {
    const same = (a: string, b: string) => foldCase(a.codePointAt(0)!) === foldCase(b.codePointAt(0)!);
    assert.ok(same('a', 'A'));
    assert.ok(same('ſ', 'S') && same('ſ', 's'));
    assert.ok(same('\u212a', 'k'));
    assert.ok(same('ς', 'σ') && same('Σ', 'ς'));
    assert.ok(same('ẞ', 'ß'));
    assert.ok(!same('ı', 'i') && !same('ı', 'I'));
    assert.ok(!same('İ', 'i'));
    assert.equal(foldCase(0x1f600), 0x1f600, 'an emoji is itself');
  });
});

describe('classOf', () => {
  it('knows letters, marks and digits of every script, scripts without spaces, and whitespace', () => {
    const is = (char: string, bit: number) => (classOf(char.codePointAt(0)!) & bit) !== 0;
    for (const char of ['a', 'Z', 'é', '\u0301', '٣', 'я', '免', 'ก', '𝐀']) assert.ok(is(char, WORD), char);
    for (const char of ['-', '_', '$', ' ', '😀', '\ud800']) assert.ok(!is(char, WORD), char);
    for (const char of ['免', 'カ', 'か', 'ก', 'ສ', 'ក', 'က']) assert.ok(is(char, UNSPACED), char);
    for (const char of ['a', 'я', '한']) assert.ok(!is(char, UNSPACED), char);
    for (const char of [' ', '\t', '\n', '\u00a0', '\u2028', '\u3000', '\ufeff']) assert.ok(is(char, SPACE), JSON.stringify(char));
    for (const char of ['\u200b', 'a', '\u0000']) assert.ok(!is(char, SPACE), JSON.stringify(char));
  });
});

describe('normalizeSafely', () => {
  it('normalises written text exactly as normalize does', () => {
    for (const text of ['Crème brûlée', 'Tie\u0302\u0301ng Vie\u0323\u0302t', 'שָׁלוֹם', 'ｖｉａｇｒａ', 'e\u0301\u0301\u0301', '', 'plain']) {
      assert.equal(normalizeSafely(text, 'NFC'), text.normalize('NFC'), text);
      assert.equal(normalizeSafely(text, 'NFKC'), text.normalize('NFKC'), text);
    }
  });

  it('puts a combining grapheme joiner after each 30 marks in a row (Stream-Safe Text Format), and nowhere else', () => {
    const marks = '\u0301'.repeat(65);
    const safe = normalizeSafely(`a${marks}b`, 'NFC');
    assert.equal(safe, `\u00e1${'\u0301'.repeat(29)}\u034f${'\u0301'.repeat(30)}\u034f${'\u0301'.repeat(5)}b`);
    assert.equal(normalizeSafely(`a${'\u0301'.repeat(30)}`, 'NFC'), `a${'\u0301'.repeat(30)}`.normalize('NFC'), 'exactly 30 are left alone');
  });
});
