import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { PAGE_LANGUAGES, pageLanguage, pageText } from '../../src/submit/languages/index.js';
import { ThankYouLinks } from '../../src/submit/thank-you-link.js';
import { feedbackOf, PAGE_CONTENT_SECURITY_POLICY, renderErrorPage, renderThankYouPage } from '../../src/submit/pages.js';

/** The text of the first element with this tag, as written in the page (still escaped). */
const textOf = (html: string, tag: string) => new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`).exec(html)?.[1];
const messageOf = (html: string) => /<p class="message">([\s\S]*?)<\/p>/.exec(html)?.[1];
const bodyClass = (html: string) => /<body class="([^"]*)"/.exec(html)?.[1];
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);

const NASTY = `<script>alert("x")</script> & 'quoted' "double"`;
const NASTY_ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;quoted&#x27; &quot;double&quot;';

describe('renderThankYouPage', () => {
  it('is a complete, accessible page with the default title and message', () => {
    const html = renderThankYouPage({ branding: false });
    assert.match(html, /^<!doctype html>\n<html lang="en">/);
    assert.match(html, /<meta charset="utf-8">/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.equal(textOf(html, 'title'), 'Thank you!');
    assert.equal(textOf(html, 'h1'), 'Thank you!');
    assert.match(html, /<main class="page-success">/);
    assert.equal(messageOf(html), 'Your submission has been received.');
  });

  it('uses a custom title and message', () => {
    const html = renderThankYouPage({ branding: false, title: 'Got it', message: 'We reply within a day.' });
    assert.equal(textOf(html, 'h1'), 'Got it');
    assert.equal(textOf(html, 'title'), 'Got it');
    assert.equal(messageOf(html), 'We reply within a day.');
  });

  it('keeps the defaults for a blank title or message', () => {
    const html = renderThankYouPage({ branding: false, title: '  ', message: '' });
    assert.equal(textOf(html, 'h1'), 'Thank you!');
    assert.equal(messageOf(html), 'Your submission has been received.');
  });

  it('escapes the visitor-supplied title and message', () => {
    const html = renderThankYouPage({ branding: false, title: NASTY, message: NASTY });
    assert.equal(textOf(html, 'h1'), NASTY_ESCAPED);
    assert.equal(textOf(html, 'title'), NASTY_ESCAPED);
    assert.equal(messageOf(html), NASTY_ESCAPED);
    assert.doesNotMatch(html, /<script/i);
  });

  it('truncates the title to 200 and the message to 2000 characters', () => {
    const html = renderThankYouPage({ branding: false, title: 't'.repeat(500), message: 'm'.repeat(5000) });
    assert.equal(textOf(html, 'h1'), 't'.repeat(200));
    assert.equal(messageOf(html), 'm'.repeat(2000));
  });

  it('truncates by character, never splitting an emoji', () => {
    const html = renderThankYouPage({ branding: false, title: '😀'.repeat(201) });
    assert.equal(textOf(html, 'h1'), '😀'.repeat(200));
  });

  it('shows "Powered by Formgate" only with branding', () => {
    assert.match(renderThankYouPage({ branding: true }), /<footer>Powered by Formgate<\/footer>/);
    assert.doesNotMatch(renderThankYouPage({ branding: false }), /Formgate|<footer/);
  });

  it('renders a dark theme only when asked', () => {
    assert.equal(bodyClass(renderThankYouPage({ branding: false, dark: true })), 'theme-dark');
    assert.equal(bodyClass(renderThankYouPage({ branding: false, dark: false })), 'theme-light');
    assert.equal(bodyClass(renderThankYouPage({ branding: false })), 'theme-light');
  });

  it('links back to an http(s) URL, escaped in the attribute, naming the site it leads to', () => {
    for (const url of ['http://example.com/contact', 'https://example.com/contact?x=1#form']) {
      const html = renderThankYouPage({ branding: false, backUrl: url });
      assert.deepEqual(hrefs(html), [url.replace(/=/g, '&#x3D;')]);
      assert.match(html, /<span aria-hidden="true">←<\/span> Go back \(example\.com\)<\/a>/);
    }
    assert.match(renderThankYouPage({ branding: false, backUrl: 'http://localhost:3000/x' }), /Go back \(localhost:3000\)<\/a>/, 'its port too');
    const html = renderThankYouPage({ branding: false, backUrl: 'https://example.com/?a="b"&c=<d>' });
    assert.deepEqual(hrefs(html), ['https://example.com/?a&#x3D;%22b%22&amp;c&#x3D;%3Cd%3E']);
  });

  it('shows no back link for anything but an absolute http(s) URL', () => {
    const refused = [
      null,
      undefined,
      '',
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'data:text/html,<b>x</b>',
      'vbscript:x',
      'ftp://example.com/',
      '/contact',
      'contact.html',
      '//example.com/contact',
      'not a url',
    ];
    for (const backUrl of refused) {
      const html = renderThankYouPage({ branding: false, backUrl });
      assert.deepEqual(hrefs(html), [], String(backUrl));
      assert.doesNotMatch(html, /Go back/, String(backUrl));
    }
  });
});

describe('renderErrorPage', () => {
  const TITLES: Record<number, string> = {
    400: 'Your submission could not be accepted',
    404: 'Form not found',
    413: 'Submission too large',
    429: 'Too many submissions',
    503: 'Try again in a moment',
    500: 'Something went wrong',
    418: 'Something went wrong',
  };

  for (const [status, title] of Object.entries(TITLES)) {
    it(`titles a ${status} "${title}"`, () => {
      const html = renderErrorPage(Number(status), { branding: false });
      assert.equal(textOf(html, 'h1'), title);
      assert.equal(textOf(html, 'title'), title);
      assert.match(html, /<main class="page-error">/);
      assert.ok(messageOf(html), 'a default message is shown');
    });
  }

  it('shows the problem detail as the message and lets a custom title win', () => {
    const html = renderErrorPage(400, { branding: false, title: 'Oops', message: 'The email field is required.' });
    assert.equal(textOf(html, 'h1'), 'Oops');
    assert.equal(messageOf(html), 'The email field is required.');
  });

  it('escapes and truncates the title and message', () => {
    const escaped = renderErrorPage(400, { branding: false, title: NASTY, message: NASTY });
    assert.equal(textOf(escaped, 'h1'), NASTY_ESCAPED);
    assert.equal(messageOf(escaped), NASTY_ESCAPED);
    const long = renderErrorPage(400, { branding: false, title: 'x'.repeat(201), message: 'y'.repeat(2001) });
    assert.equal(textOf(long, 'h1'), 'x'.repeat(200));
    assert.equal(messageOf(long), 'y'.repeat(2000));
  });

  it('lists the errors, escaped', () => {
    const html = renderErrorPage(400, { branding: false, errors: ['email: must be an email address', NASTY] });
    assert.deepEqual(
      [...html.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1]),
      ['email: must be an email address', NASTY_ESCAPED],
    );
    assert.doesNotMatch(html, /<script/i);
  });

  it('shows no list without errors', () => {
    assert.doesNotMatch(renderErrorPage(400, { branding: false }), /<ul/);
    assert.doesNotMatch(renderErrorPage(400, { branding: false, errors: [] }), /<ul/);
  });

  it('caps the errors list at 50 entries of 500 characters', () => {
    const html = renderErrorPage(400, { branding: false, errors: Array.from({ length: 80 }, () => 'e'.repeat(900)) });
    const items = [...html.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1]);
    assert.equal(items.length, 50);
    assert.ok(items.every((item) => item === 'e'.repeat(500)));
  });

  it('honours branding, dark and the back link like the thank-you page', () => {
    const html = renderErrorPage(429, { branding: true, dark: true, backUrl: 'https://example.com/form' });
    assert.equal(bodyClass(html), 'theme-dark');
    assert.match(html, /Powered by Formgate/);
    assert.deepEqual(hrefs(html), ['https://example.com/form']);
    assert.match(html, /Back to the form \(example\.com\)<\/a>/);
    const plain = renderErrorPage(429, { branding: false, backUrl: 'javascript:history.back()' });
    assert.equal(bodyClass(plain), 'theme-light');
    assert.doesNotMatch(plain, /Formgate|href=/);
  });
});

describe('the pages load nothing', () => {
  const pages = [
    renderThankYouPage({ branding: true, dark: true, backUrl: 'https://example.com/a' }),
    renderErrorPage(400, { branding: true, backUrl: 'http://example.com/b', errors: ['x'] }),
  ];

  it('have no script, no src and no link other than the back link', () => {
    for (const html of pages) {
      assert.doesNotMatch(html, /<script/i);
      assert.doesNotMatch(html, /\ssrc=/i);
      assert.doesNotMatch(html, /<link|@import|url\(/i);
      assert.equal(hrefs(html).length, 1);
      assert.match(hrefs(html)[0] ?? '', /^https?:\/\/example\.com\//);
    }
  });

  it('allow exactly their inline style in the Content-Security-Policy', () => {
    for (const html of pages) {
      const style = textOf(html, 'style') ?? '';
      const hash = createHash('sha256').update(style).digest('base64');
      assert.ok(PAGE_CONTENT_SECURITY_POLICY.includes(`style-src 'sha256-${hash}'`));
    }
    assert.match(PAGE_CONTENT_SECURITY_POLICY, /^default-src 'none'/);
  });
});

describe('feedbackOf', () => {
  const controls = {
    '_feedback.success.title': 'Merci !',
    '_feedback.success.message': 'Nous revenons vers vous.',
    '_feedback.error.title': 'Oups',
    '_feedback.error.message': 'Réessayez.',
  };

  it('reads the title and message of the kind asked', () => {
    assert.deepEqual(feedbackOf(controls, 'success', true), { title: 'Merci !', message: 'Nous revenons vers vous.', dark: false });
    assert.deepEqual(feedbackOf(controls, 'error', true), { title: 'Oups', message: 'Réessayez.', dark: false });
  });

  it('reads no wording when the post is not vouched for (no allowed origins, or another site): the theme only', () => {
    assert.deepEqual(feedbackOf({ ...controls, '_feedback.dark': 'yes' }, 'success', false), { dark: true });
    assert.deepEqual(feedbackOf(controls, 'error', false), { dark: false });
  });

  it('caps the wording as the page does, so a 256 KB control never swells the thank-you link', () => {
    const long = { '_feedback.success.title': '😀'.repeat(131_072), '_feedback.success.message': 'm'.repeat(262_144) };
    const feedback = feedbackOf(long, 'success', true);
    assert.equal(feedback.title, '😀'.repeat(200), 'whole emoji, 200 of them');
    assert.equal(feedback.message, 'm'.repeat(2000));
    const backUrl = `https://shop.example.com/contact?${'q'.repeat(15_000)}`;
    const link = new ThankYouLinks('secret').build('https://submit.example', 'f1', { ...feedback, backUrl }, 'visitor');
    assert.ok(link.length < 16_000, `the link stays a few KB (${link.length} characters)`);
  });

  it('leaves out absent or blank values', () => {
    assert.deepEqual(feedbackOf({}, 'success', true), { dark: false });
    assert.deepEqual(feedbackOf({ '_feedback.error.title': '   ', '_feedback.error.message': '' }, 'error', true), { dark: false });
    assert.deepEqual(feedbackOf({ '_feedback.success.title': 'Only success' }, 'error', true), { dark: false });
  });

  it('reads _feedback.dark as true for true, 1, on and yes, in any case', () => {
    for (const value of ['true', 'TRUE', 'True', '1', 'on', 'ON', 'yes', 'Yes', ' yes ']) {
      assert.equal(feedbackOf({ '_feedback.dark': value }, 'success', true).dark, true, value);
    }
    for (const value of ['false', '0', 'off', 'no', '', 'dark', 'y', '2']) {
      assert.equal(feedbackOf({ '_feedback.dark': value }, 'error', true).dark, false, value);
    }
  });

  it('feeds the page directly', () => {
    const html = renderThankYouPage({ ...feedbackOf({ ...controls, '_feedback.dark': 'on' }, 'success', true), branding: false });
    assert.equal(textOf(html, 'h1'), 'Merci !');
    assert.equal(bodyClass(html), 'theme-dark');
  });
});

describe('the built-in pages in every language', () => {
  const walk = (text: unknown, path = ''): [string, string][] =>
    typeof text === 'string' ? [[path, text]] : Object.entries(text as object).flatMap(([key, value]) => walk(value, path ? `${path}.${key}` : key));

  it('has every text in every language, each its own (no English left behind), and writes lang on <html>', () => {
    const english = new Map(walk(pageText('en')));
    assert.deepEqual(PAGE_LANGUAGES, ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'ru', 'uk']);
    for (const language of PAGE_LANGUAGES) {
      const entries = walk(pageText(language));
      assert.deepEqual(
        entries.map(([path]) => path),
        [...english.keys()],
        language,
      );
      for (const [path, text] of entries) {
        assert.ok(text.trim().length > 0, `${language} ${path}`);
        if (language !== 'en') assert.notEqual(text, english.get(path), `${language} ${path} is still English`);
      }
      const thanks = renderThankYouPage({ branding: true, language });
      assert.match(thanks, new RegExp(`^<!doctype html>\\n<html lang="${language}">`));
      assert.equal(textOf(thanks, 'h1'), pageText(language).thanks.title.replaceAll("'", '&#x27;'));
      assert.equal(textOf(thanks, 'footer'), pageText(language).poweredBy);
      const error = renderErrorPage(429, { branding: false, language, code: 'rate_limited' });
      assert.equal(textOf(error, 'h1'), pageText(language).errors.rate_limited.title.replaceAll("'", '&#x27;'));
    }
  });

  it('picks the error wording by problem code before status', () => {
    const de = pageText('de');
    assert.equal(textOf(renderErrorPage(400, { branding: false, language: 'de', code: 'captcha_failed' }), 'h1'), de.errors.captcha_failed.title);
    assert.equal(textOf(renderErrorPage(403, { branding: false, language: 'de', code: 'origin_not_allowed' }), 'h1'), de.errors.origin_not_allowed.title);
    assert.equal(textOf(renderErrorPage(503, { branding: false, language: 'de', code: 'storage_unavailable' }), 'h1'), de.errors.unavailable.title);
    assert.equal(textOf(renderErrorPage(500, { branding: false, language: 'de', code: 'internal_error' }), 'h1'), de.error.title);
  });

  it('chooses _feedback.language, then Accept-Language by q, then English; reads a bounded number of entries', () => {
    assert.equal(pageLanguage('de', 'fr'), 'de');
    assert.equal(pageLanguage(' PT-BR ', undefined), 'pt');
    assert.equal(pageLanguage('constructor', 'xx, it;q=0.2, nl;q=0.9'), 'nl');
    assert.equal(pageLanguage(undefined, 'es;q=0.5, fr;q=0.5'), 'es', 'the first of equals');
    assert.equal(pageLanguage(undefined, 'de;q=0, *;q=0.1'), 'en');
    assert.equal(pageLanguage(undefined, 'de;q=2'), 'en', 'an invalid q is ignored');
    assert.equal(pageLanguage(undefined, `${'xx, '.repeat(40)}fr`), 'en', 'entries past the 32nd are not read');
    assert.equal(pageLanguage(null, undefined), 'en');
  });
});
