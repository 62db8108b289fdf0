import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inertQuote } from '../../src/mail/inert-text.js';

describe('inertQuote: an owner’s words in an email to someone who did not ask (issue 38, item 10)', () => {
  it('brackets what makes links, hosts and addresses, and leaves ordinary names as written', () => {
    assert.equal(inertQuote('Acme Inc.'), 'Acme Inc.');
    assert.equal(inertQuote('Ann’s Café: orders'), 'Ann’s Café: orders');
    assert.equal(inertQuote('see evil.example/x'), 'see evil[.]example[/]x');
    assert.equal(inertQuote('https://a.b'), 'https[:][/][/]a[.]b');
    assert.equal(inertQuote('mail me@evil.example'), 'mail me[@]evil[.]example');
    assert.equal(inertQuote('evil．example and evil。example'), 'evil[．]example and evil[。]example', 'full-width and ideographic dots too');
  });

  it('is one line of at most `max` characters (by code point), clipped with an ellipsis', () => {
    assert.equal(inertQuote('two\nlines\u2028here'), 'two lines here');
    assert.equal(inertQuote('x'.repeat(61)), `${'x'.repeat(60)}…`);
    assert.equal(inertQuote('😀'.repeat(10), 5), `${'😀'.repeat(5)}…`);
    assert.equal(inertQuote('y'.repeat(60)), 'y'.repeat(60));
  });
});
