import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldsFromJson, fieldsFromPairs, type ParsedSubmission } from '../../src/intake/fields.js';
import { honeypotFilled, removeTrapField } from '../../src/intake/honeypot.js';

const fromQuery = (query: string): ParsedSubmission => fieldsFromPairs(new URLSearchParams(query));

describe('honeypotFilled', () => {
  it('sees a built-in trap filled whatever the shape of a form post', () => {
    for (const trap of ['_gotcha', '_honeypot']) {
      for (const query of [
        `${trap}=x`,
        `${trap}[]=x`,
        `${trap}[0]=x`,
        `${trap}.a=x`,
        `${trap}[a][b]=x`,
        `${trap}=&${trap}=x`,
        `${trap}=%20&${trap}[]=&${trap}.a=x`,
      ]) {
        assert.equal(honeypotFilled(fromQuery(`message=hi&${query}`), null), true, query);
      }
    }
  });

  it('sees a built-in trap filled whatever the shape of a JSON body', () => {
    for (const value of ['x', 1, 0, true, false, ['x'], ['', 'x'], { a: 'x' }, { a: ['', { b: 'x' }] }]) {
      assert.equal(honeypotFilled(fieldsFromJson({ message: 'hi', _gotcha: value }), null), true, JSON.stringify(value));
      assert.equal(honeypotFilled(fieldsFromJson({ message: 'hi', _honeypot: value }), null), true, JSON.stringify(value));
    }
    assert.equal(honeypotFilled(fieldsFromJson({ message: 'hi', '_gotcha.a': 'x' }), null), true);
  });

  it('leaves a submission whose traps are blank in every shape alone', () => {
    assert.equal(honeypotFilled(fromQuery('message=hi&_gotcha=&_gotcha[]=%20&_honeypot.a=&_gotchaX=x&_honeypotter=y'), null), false);
    for (const value of ['', ' ', null, [], {}, [''], { a: ' ' }]) {
      assert.equal(honeypotFilled(fieldsFromJson({ message: 'hi', _gotcha: value, _honeypot: value }), null), false, JSON.stringify(value));
    }
  });

  it("sees the form's own trap filled, as a control or as a data field, whatever its shape", () => {
    for (const query of ['_hp=x', '_hp[]=x', '_hp.a=x', '_hp=&_hp=x']) assert.equal(honeypotFilled(fromQuery(`m=hi&${query}`), '_hp'), true, query);
    for (const query of [
      'website=x',
      'website[]=x',
      'website.a=x',
      'website=&website=x',
      'website[99999]=x',
      'website=a&website[b]=c',
      'website[a]=&website[b]=x',
    ]) {
      assert.equal(honeypotFilled(fromQuery(`m=hi&${query}`), 'website'), true, query);
    }
    for (const value of ['x', 0, ['x'], { a: 'x' }])
      assert.equal(honeypotFilled(fieldsFromJson({ m: 'hi', website: value }), 'website'), true, JSON.stringify(value));
    assert.equal(honeypotFilled(fieldsFromJson({ m: 'hi', 'website.a': 'x' }), 'website'), true);
    // a trap named with a path is looked up along it, and under its literal name
    assert.equal(honeypotFilled(fromQuery('m=hi&contact.website=x'), 'contact.website'), true);
    assert.equal(honeypotFilled(fieldsFromJson({ m: 'hi', contact: { website: ['x'] } }), 'contact.website'), true);
    assert.equal(honeypotFilled(fieldsFromJson({ m: 'hi', 'contact.website': 'x' }), 'contact.website'), true);
    assert.equal(honeypotFilled(fromQuery('m=hi&website=&website[]=&websites=x&contact.name=x'), 'website'), false);
    assert.equal(honeypotFilled(fromQuery('m=hi&contact.website=&contact.name=x'), 'contact.website'), false);
  });
});

describe('removeTrapField', () => {
  it('removes the blank trap in every shape it was sent, and nothing else', () => {
    const parsed = fromQuery('m=hi&website=&website[x]=&websites=keep&website[99999]=');
    removeTrapField(parsed, 'website');
    assert.deepEqual(parsed.data, { m: 'hi', websites: 'keep' });
    const nested = fromQuery('m=hi&contact.website=&contact.name=Ada');
    removeTrapField(nested, 'contact.website');
    assert.deepEqual(nested.data, { m: 'hi', contact: { name: 'Ada' } });
  });
});
