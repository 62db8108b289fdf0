import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { erasureAddressProblem, textHoldsAddress, valuesHoldAddress } from '../../src/domain/address-match.js';

const ANN = 'ann@x.com';

describe('finding an email address to erase', () => {
  it('finds it as a whole value or inside a longer text, whatever its case', () => {
    for (const text of [
      'ann@x.com',
      'ANN@X.COM',
      'Ann <ann@x.com>',
      'write to ann@x.com.',
      'mailto:ann@x.com',
      'email=ann@x.com&x=1',
      '(ann@x.com)',
      'a\nann@x.com\nb',
    ]) {
      assert.equal(textHoldsAddress(text, ANN), true, text);
    }
  });

  it('never as part of a longer address', () => {
    for (const text of [
      'joann@x.com',
      'jo.ann@x.com',
      'jo_ann@x.com',
      'jo+ann@x.com',
      'jo-ann@x.com',
      'ann@x.com.au',
      'ann@x.company',
      'ann@x.com-mail.org',
      'hannah@x.com',
      'ann@y.com',
    ]) {
      assert.equal(textHoldsAddress(text, ANN), false, text);
    }
  });

  it('finds a later occurrence after one inside a longer address', () => {
    assert.equal(textHoldsAddress('joann@x.com, then ann@x.com', ANN), true);
  });

  it('walks nested fields: lists and objects, not names or numbers', () => {
    assert.equal(valuesHoldAddress({ contact: { emails: ['b@x.com', 'Ann@x.com'] } }, ANN), true);
    assert.equal(valuesHoldAddress({ 'ann@x.com': 'yes', n: 5, ok: true, none: null }, ANN), false);
  });

  it('asks for an address', () => {
    assert.equal(erasureAddressProblem(' Ann@Example.com '), null);
    for (const bad of ['', '   ', 'ann', 'ann@', '@x.com', 'ann@x', 'a b@x.com', 'ann@@x.com', `${'a'.repeat(250)}@x.com`]) {
      assert.match(erasureAddressProblem(bad) ?? '', /^email: /, bad);
    }
  });
});
