import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactValue, cut, fieldLabel, listLineOf, summaryOf } from '../../src/dashboard/submission-fields.js';

describe('the inbox’s lines and values', () => {
  it('names a line by who sent it and the first line of the message, else the other fields on one line', () => {
    assert.deepEqual(listLineOf({ name: 'Ada', email: 'ada@example.com', message: '\n\nHello\nthere' }), { who: 'Ada', preview: 'Hello' });
    assert.deepEqual(listLineOf({ email: 'ada@example.com', company: 'Initech' }), { who: 'ada@example.com', preview: 'Initech' });
    // no text field: the fields as `name: value`, the one that names the sender left out
    assert.deepEqual(listLineOf({ email: 'ada@example.com', seats: 4, tags: ['a', 'b'] }), { who: 'ada@example.com', preview: 'seats: 4 · tags: a, b' });
    assert.deepEqual(listLineOf({ seats: 4 }), { who: null, preview: 'seats: 4' });
    assert.deepEqual(listLineOf('not an object'), { who: null, preview: '' });
    const long = listLineOf({ n: 1, values: 'x'.repeat(500) });
    assert.equal([...long.preview].length, 140);
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
