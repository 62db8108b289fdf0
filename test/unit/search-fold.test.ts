import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldForSearch } from '../../src/domain/search-fold.js';

// Issue 39, item 17: what search compares, on both databases, for the stored text and the terms.
describe('foldForSearch', () => {
  it('lower-cases and takes the accents off Latin letters, composed or not', () => {
    assert.equal(foldForSearch('Un GÂTEAU à la crème'), 'un gateau a la creme');
    assert.equal(foldForSearch('Tiếng Việt'), 'tieng viet');
    assert.equal(foldForSearch('e\u0301te\u0301'), 'ete', 'decomposed accents too');
    assert.equal(foldForSearch('İstanbul'), 'istanbul');
    assert.equal(foldForSearch('Łódź, Øre, Đà Nẵng'), 'lodz, ore, da nang', 'letters with a stroke');
    assert.equal(foldForSearch('Straße, Æsir'), 'straße, æsir', 'letters that are not accented ones stay');
  });

  it('leaves other scripts as they are written (recomposed)', () => {
    for (const text of ['мой дом ёлка', '東京 がぎぐ', '한국어', 'क़िला नमस्ते', 'مَرْحَبًا', 'שָׁלוֹם', 'สวัสดี']) {
      assert.equal(foldForSearch(text), text.toLowerCase().normalize('NFC'), text);
    }
  });

  it('is the same applied twice, so stored text can be folded again', () => {
    for (const text of ['Gâteau', 'ǅungla', 'ﬁancé', 'x\u0301\u0302\u0303']) assert.equal(foldForSearch(foldForSearch(text)), foldForSearch(text), text);
  });
});
