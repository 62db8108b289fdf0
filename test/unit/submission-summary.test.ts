import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIRST_LINE_LENGTH, firstLineOf, nameOf, senderOf, WHO_LENGTH, whoOf } from '../../src/domain/submission-summary.js';

describe('who sent a submission and what it says (issue 41)', () => {
  it('finds the name whatever the form called its field', () => {
    for (const field of ['name', 'Name', 'full_name', 'Full Name', 'fullName', 'your-name', 'contact.name'])
      assert.equal(whoOf({ [field]: 'Ada Lovelace', email: 'ada@example.com' }), 'Ada Lovelace', field);
  });

  it('joins a first and a last name, and takes either alone', () => {
    assert.equal(nameOf({ first_name: 'Ada', last_name: 'Lovelace' }), 'Ada Lovelace');
    assert.equal(nameOf({ 'First name': 'Ada' }), 'Ada');
    assert.equal(nameOf({ Surname: 'Lovelace' }), 'Lovelace');
  });

  it('names the sender by the e-mail field when there is no name, and nobody when there is neither', () => {
    assert.equal(whoOf({ Email: 'ada@example.com', message: 'Hello' }), 'ada@example.com');
    assert.equal(whoOf({ message: 'Hello' }), null);
    assert.equal(whoOf({ name: '   ', email: '' }), null);
  });

  it('reads one line of plain text: no line breaks, controls or invisible characters, and cut', () => {
    assert.equal(whoOf({ name: 'Ada\u202e\r\nLovelace\u0000' }), 'Ada Lovelace');
    const long = whoOf({ name: 'x'.repeat(300_000) })!;
    assert.equal(Array.from(long).length, WHO_LENGTH);
    assert.ok(long.endsWith('…'));
  });

  it('takes the first line of the message field, else of the first field that names nobody', () => {
    assert.equal(firstLineOf({ name: 'Ada', Comments: '\n\nI would like a quote.\nThanks' }), 'I would like a quote.');
    assert.equal(firstLineOf({ name: 'Ada', email: 'ada@example.com', budget: 'About 5,000' }), 'About 5,000');
    assert.equal(firstLineOf({ name: 'Ada', email: 'ada@example.com' }), '');
    assert.equal(Array.from(firstLineOf({ message: 'word '.repeat(100_000) })).length, FIRST_LINE_LENGTH);
  });

  it('reads only values: numbers count, objects, arrays and prototype keys do not', () => {
    assert.equal(whoOf({ name: { first: 'Ada' }, email: ['ada@example.com'] }), null);
    assert.equal(firstLineOf({ message: 42 }), '');
    assert.equal(nameOf(JSON.parse('{"__proto__": "Eve", "constructor": "x"}')), null);
  });

  it('names a digest’s sender with the address it replies to', () => {
    assert.equal(senderOf({ name: 'Ada' }, 'ada@example.com'), 'Ada <ada@example.com>');
    assert.equal(senderOf({}, 'ada@example.com'), 'ada@example.com');
    assert.equal(senderOf({ name: 'Ada' }, null), 'Ada');
  });
});
