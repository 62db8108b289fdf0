import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { THANK_YOU_LINK_TTL_MS, ThankYouLinks } from '../../src/submit/thank-you-link.js';

const SUBMIT_URL = 'https://forms.example.com';
const FORM = 'aaaaaaaaaaaaaaaaaaaa';
const VISITOR = '203.0.113.7';
const SITE = 'https://shop.example.com';
const CONTENT = { title: 'Merci', message: 'À bientôt', dark: true, backUrl: `${SITE}/contact` };

/** A clock the test moves by hand. */
function clock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const queryOf = (link: string) => new URL(link).searchParams;

describe('ThankYouLinks', () => {
  it('reads back what it built, for the visitor it built it for, while the form lists the site', () => {
    const links = new ThankYouLinks('secret', clock().now);
    const link = links.build(SUBMIT_URL, FORM, CONTENT, VISITOR);
    assert.ok(link.startsWith(`${SUBMIT_URL}/${FORM}/thanks?`));
    assert.deepEqual(links.read(FORM, queryOf(link), VISITOR, [SITE]), CONTENT);
  });

  it('carries _feedback.language in the link, signed or not: a language puts no one’s words on the page', () => {
    const links = new ThankYouLinks('secret', clock().now);
    const bare = links.build(SUBMIT_URL, FORM, { language: 'de' }, VISITOR);
    assert.equal(bare, `${SUBMIT_URL}/${FORM}/thanks?l=de`);
    assert.deepEqual(links.read(FORM, queryOf(bare), 'another visitor', []), { language: 'de' });
    const signed = links.build(SUBMIT_URL, FORM, { ...CONTENT, language: 'fr' }, VISITOR);
    assert.deepEqual(links.read(FORM, queryOf(signed), VISITOR, [SITE]), { ...CONTENT, language: 'fr' });
    assert.deepEqual(links.read(FORM, queryOf(signed), 'another visitor', [SITE]), { language: 'fr' }, 'the language without the wording');
    assert.equal(links.build(SUBMIT_URL, FORM, { language: 'xx' }, VISITOR), `${SUBMIT_URL}/${FORM}/thanks`, 'an unsupported one is dropped');
    assert.deepEqual(links.read(FORM, new URLSearchParams('l=constructor'), VISITOR, []), {});
  });

  it('builds the bare page when there is nothing to show', () => {
    assert.equal(new ThankYouLinks('secret').build(SUBMIT_URL, FORM, {}, VISITOR), `${SUBMIT_URL}/${FORM}/thanks`);
  });

  it('shows the defaults to another visitor, for another form, after its time to live, or once altered', () => {
    const time = clock();
    const links = new ThankYouLinks('secret', time.now);
    const link = links.build(SUBMIT_URL, FORM, CONTENT, VISITOR);
    assert.deepEqual(links.read(FORM, queryOf(link), '198.51.100.1', [SITE]), {});
    assert.deepEqual(links.read('bbbbbbbbbbbbbbbbbbbb', queryOf(link), VISITOR, [SITE]), {});
    const altered = queryOf(link);
    altered.set('t', 'Your account is suspended');
    assert.deepEqual(links.read(FORM, altered, VISITOR, [SITE]), {});
    const longer = queryOf(link);
    longer.set('e', String(Number(longer.get('e')) + 3600));
    assert.deepEqual(links.read(FORM, longer, VISITOR, [SITE]), {}, 'the expiry is signed too');
    assert.deepEqual(new ThankYouLinks('other secret', time.now).read(FORM, queryOf(link), VISITOR, [SITE]), {});

    time.advance(THANK_YOU_LINK_TTL_MS - 1000);
    assert.equal(links.read(FORM, queryOf(link), VISITOR, [SITE]).title, 'Merci', 'still good just before it expires');
    time.advance(1000);
    assert.deepEqual(links.read(FORM, queryOf(link), VISITOR, [SITE]), {}, 'expired');
  });

  it('shows wording only while the form lists origins, and the link back only while it lists that one (or lists none)', () => {
    const links = new ThankYouLinks('secret', clock().now);
    const query = queryOf(links.build(SUBMIT_URL, FORM, CONTENT, VISITOR));
    assert.deepEqual(links.read(FORM, query, VISITOR, ['https://other.example.com']), { ...CONTENT, backUrl: null });
    assert.deepEqual(links.read(FORM, query, VISITOR, []), { dark: true, backUrl: CONTENT.backUrl }, 'no list: the way back without the wording');
    assert.deepEqual(links.read(FORM, query, VISITOR, [SITE], false), { dark: true, backUrl: CONTENT.backUrl }, 'a workspace nobody vouched for: the same');
  });
});
