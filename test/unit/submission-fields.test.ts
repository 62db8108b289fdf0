import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactValue, cut, fieldColumns, fieldLabel, hiddenFieldCount, summaryOf } from '../../src/dashboard/submission-fields.js';

describe('the inbox’s field columns and cell values', () => {
  it('takes field names in order of first appearance, at most 6, and counts the rest per row', () => {
    const rows = [{ name: 'a', email: 'b' }, { message: 'c', name: 'd' }, 'not an object', { a: 1, b: 2, c: 3, d: 4 }];
    const columns = fieldColumns(rows);
    assert.deepEqual(columns, ['name', 'email', 'message', 'a', 'b', 'c']);
    assert.equal(hiddenFieldCount(rows[3], columns), 1);
    assert.equal(hiddenFieldCount(rows[0], columns), 0);
    assert.deepEqual(fieldColumns([]), []);
  });

  it('writes nested values on one line and collapses whitespace', () => {
    assert.equal(compactValue({ city: 'Oslo', tags: ['x', 'y'], inner: { deep: true } }), 'city: Oslo; tags: x, y; inner: deep: true');
    assert.equal(compactValue('line one\n\n  line two '), 'line one line two');
    assert.equal(compactValue(null), '');
    assert.equal(compactValue(42), '42');
  });

  it('cuts at 80 characters, counting characters rather than UTF-16 units, with an ellipsis', () => {
    assert.equal(cut('short'), 'short');
    const emoji = '😀'.repeat(100);
    const cutEmoji = cut(emoji);
    assert.equal([...cutEmoji].length, 80);
    assert.ok(cutEmoji.endsWith('😀…'));
    assert.equal(cut('x'.repeat(80)), 'x'.repeat(80));
  });

  it('summarises a row’s first fields', () => {
    assert.deepEqual(summaryOf({ a: '1', b: { c: 2 }, d: 3, e: 4 }), [
      { name: 'a', value: '1' },
      { name: 'b', value: 'c: 2' },
      { name: 'd', value: '3' },
    ]);
  });

  it('labels a field without the bidirectional controls or invisible characters a visitor put in its name (issue 38, item 17)', () => {
    assert.equal(fieldLabel('email\u202E\u200B'), 'email');
    assert.deepEqual(summaryOf({ 'na\u2067me': 'Ada' }), [{ name: 'name', value: 'Ada' }]);
    assert.equal(compactValue({ name: 'a\u202Efdp.txt', type: 'text/plain', size: 5, url: 'https://x.example/public/v1/files/abc' }), 'afdp.txt');
  });
});
