import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, multipartBody, post, request, storedRows } from '../helpers/submit.js';

const CONTACT = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'A quote for the analytical engine, please.' };
const SITE = 'https://shop.example.com';
const EVIL = 'https://evil.example.net';
/** The wording an attacker would like to show on the owner's submit domain. */
const PHISH = { title: 'Your account is suspended', message: 'Sign in again at evil.example.net to restore it.' };

/** The links of a page, as written in its attributes. */
const hrefsOf = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!);

/** Headers a browser sends with a form posted from `page`: its origin, and the page as Referer. */
const from = (page: string) => ({ headers: { origin: new URL(page).origin, referer: page } });

/**
 * A form's allowed origins (Form.allowedOrigins) and what a post may ask of the owner's submit
 * domain: who may post, where redirects go, and whose wording and back links the built-in pages show.
 */
describe(`submit surface: allowed origins, redirects and page wording (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let account: Account;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
  });
  after(() => app.close());

  const honeypotDrops = async (formId: string) =>
    Number((await app.ctx.database.db.selectFrom('forms').select('honeypotDrops').where('id', '=', formId).executeTakeFirstOrThrow()).honeypotDrops);
  const follow = async (answer: { headers: Headers }, localAddress?: string) =>
    (await request('GET', answer.headers.get('location')!, null, { accept: BROWSER_ACCEPT }, localAddress)).body as string;

  describe('the phishing page of issue 15 (a filled honeypot, wording and a Referer of the attacker)', () => {
    const attack = {
      ...CONTACT,
      _gotcha: 'filled: nothing is stored',
      '_feedback.success.title': PHISH.title,
      '_feedback.success.message': PHISH.message,
    };

    it('on a form with no allowed origins: the thank-you page shows the default wording, and only the root of the site the post came from as its way back, named', async () => {
      const form = await createForm(app, account);
      const answer = await post(app, form.id, attack, from(`${EVIL}/login`));
      assert.equal(answer.status, 303);
      const link = new URL(answer.headers.get('location')!);
      assert.equal(`${link.origin}${link.pathname}`, `${app.submitUrl}/${form.id}/thanks`);
      assert.ok(!link.search.includes('suspended') && !link.search.includes('login'), 'none of the post’s wording or path travels in it');
      const page = await follow(answer);
      assert.ok(page.includes('Thank you!'));
      assert.ok(!page.includes('suspended') && !page.includes('login'), page);
      // issue 39, item 19: a way back, to where the visitor came from, saying where it leads
      assert.deepEqual(hrefsOf(page), [`${EVIL}/`]);
      assert.ok(page.includes('Go back (evil.example.net)</a>'), page);
      assert.ok(!(await follow(answer, '127.0.0.2')).includes('href='), 'the link made for one visitor shows another no way back');
    });

    it('on a form that lists its site: a post from elsewhere is refused (403 origin_not_allowed), stored and counted nowhere', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE] });
      assertProblem(app, await post(app, form.id, attack, { ...from(`${EVIL}/login`), accept: JSON_ACCEPT }), 'origin_not_allowed');
      const page = await post(app, form.id, attack, { ...from(`${EVIL}/login`), accept: BROWSER_ACCEPT });
      assert.equal(page.status, 403);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
      assert.ok(!page.body.includes('suspended'), 'no wording of the post');
      assert.deepEqual(hrefsOf(page.body), [`${SITE}/`], 'the way back is the site the form lists (issue 39, item 19), not the post’s');
      assert.ok(!page.body.includes('evil.example.net'), 'not even the name of its site');
      assert.equal(await honeypotDrops(form.id), 0);
      assert.equal((await storedRows(app, form.id)).length, 0);
    });

    it('a link made for one visitor (even by a post that claims the owner’s Origin) shows only the defaults to anyone else', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE] });
      // a script can write any Origin; the link it gets is good for its own address only
      const answer = await post(app, form.id, attack, from(`${SITE}/contact`));
      const link = answer.headers.get('location')!;
      assert.ok(link.includes('?'), 'a signed link with the wording');
      assert.ok((await follow(answer)).includes(PHISH.title), 'the visitor who posted sees the wording');
      const elsewhere = await follow(answer, '127.0.0.2');
      assert.ok(elsewhere.includes('Thank you!') && !elsewhere.includes(PHISH.title), 'another visitor sees the default page');
      assert.ok(!elsewhere.includes(`href="${SITE}`), 'and no link back');
    });

    it('a link stops showing its wording when the form no longer lists the site it came from', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE] });
      const answer = await post(app, form.id, { ...CONTACT, '_feedback.success.title': 'Merci' }, from(`${SITE}/contact`));
      const withList = await follow(answer);
      assert.ok(withList.includes('Merci') && withList.includes(`href="${SITE}/contact"`));
      assert.equal(
        (await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { allowedOrigins: ['https://other.example.com'] } })).status,
        200,
      );
      const moved = await follow(answer);
      assert.ok(moved.includes('Merci'), 'the wording stays while the form lists origins');
      assert.ok(!moved.includes(`href="${SITE}`), 'but no link back to a site no longer listed');
      assert.equal((await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { allowedOrigins: [] } })).status, 200);
      const cleared = await follow(answer);
      assert.ok(cleared.includes('Thank you!') && !cleared.includes('Merci'));
    });
  });

  describe('a form that lists its allowed origins', () => {
    it('takes a post whose Origin is listed, or whose Referer is when there is no Origin (or Origin: null)', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE, 'http://localhost:3000'] });
      for (const headers of [
        { origin: SITE },
        { origin: 'http://localhost:3000', referer: 'http://localhost:3000/form' },
        { referer: `${SITE}/contact?step=2` },
        { origin: 'null', referer: `${SITE}/contact` },
      ] as Record<string, string>[]) {
        const answer = await post(app, form.id, CONTACT, { headers, accept: JSON_ACCEPT });
        assert.equal(answer.status, 200, `${JSON.stringify(headers)}: ${JSON.stringify(answer.body)}`);
      }
      assert.equal((await storedRows(app, form.id)).length, 4);
    });

    it('refuses a post from another site, one that names no site, and a lookalike of a listed one; nothing is stored', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE] });
      for (const headers of [
        { origin: EVIL },
        {},
        { origin: 'null' },
        { origin: 'http://shop.example.com' },
        { origin: 'https://shop.example.com:8443' },
        { origin: 'https://shop.example.com.evil.example.net' },
        { referer: `${EVIL}/?${SITE}` },
        // Origin wins over Referer: a listed Referer does not vouch for a post from another origin
        { origin: EVIL, referer: `${SITE}/contact` },
      ] as Record<string, string>[]) {
        const answer = await post(app, form.id, CONTACT, { headers, accept: JSON_ACCEPT });
        assertProblem(app, answer, 'origin_not_allowed');
      }
      assert.equal((await storedRows(app, form.id)).length, 0);
    });

    it('redirects only into the list: _redirect and _error elsewhere are ignored, the submission kept', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE, 'https://www.example.com'] });
      const ok = await post(app, form.id, { ...CONTACT, _redirect: 'https://www.example.com/thanks' }, from(`${SITE}/contact`));
      assert.equal(ok.status, 303);
      assert.equal(ok.headers.get('location'), 'https://www.example.com/thanks');
      for (const [name, value] of [
        ['_redirect', `${EVIL}/`],
        ['_error', `${EVIL}/`],
        ['_redirect', 'http://shop.example.com/thanks'],
        ['_redirect', 'javascript:alert(1)'],
        ['_error', 'data:text/html,<script>alert(1)</script>'],
        // longer than a reverse proxy passes on in a Location header
        ['_redirect', `https://www.example.com/thanks?${'a'.repeat(4_000)}`],
      ]) {
        const answer = await post(app, form.id, { ...CONTACT, [name!]: value! }, from(`${SITE}/contact`));
        assert.equal(answer.status, 303);
        assert.ok(answer.headers.get('location')!.startsWith(`${app.submitUrl}/${form.id}/thanks`), `${name}=${value}: the thank-you page instead`);
      }
      assert.equal((await storedRows(app, form.id)).length, 7);
    });

    it('sends a failure to an _error on the list, and shows the error page (no redirect) for one elsewhere', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE] });
      const listed = await post(app, form.id, { _error: `${SITE}/oops` }, from(`${SITE}/contact`));
      assert.equal(listed.status, 303);
      assert.equal(listed.headers.get('location'), `${SITE}/oops`);
      // refused from another site: the visitor is not sent on, whatever _error says
      const elsewhere = await post(app, form.id, { ...CONTACT, _error: `${EVIL}/` }, { ...from(`${EVIL}/`), accept: BROWSER_ACCEPT });
      assert.equal(elsewhere.status, 403);
      assert.equal(elsewhere.headers.get('location'), null);
    });

    it('shows _feedback wording and a link back to the form on both pages for a post from the list', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE] });
      const ok = await post(
        app,
        form.id,
        { ...CONTACT, '_feedback.success.title': 'Merci', '_feedback.success.message': 'À bientôt' },
        from(`${SITE}/contact`),
      );
      const thanks = await follow(ok);
      assert.ok(thanks.includes('Merci') && thanks.includes('À bientôt') && thanks.includes(`href="${SITE}/contact"`));
      const failed = await post(
        app,
        form.id,
        { _gotcha: '', '_feedback.error.title': 'Oups', '_feedback.error.message': 'Réessayez' },
        { ...from(`${SITE}/contact`), accept: BROWSER_ACCEPT },
      );
      assert.equal(failed.status, 400);
      assert.ok(failed.body.includes('Oups') && failed.body.includes('Réessayez') && failed.body.includes(`href="${SITE}/contact"`));
      assert.ok(failed.body.includes('fields: the submission has no fields'), 'and what was wrong');
    });
  });

  describe('a form with no allowed origins', () => {
    it('takes posts from anywhere, or from nowhere in particular', async () => {
      const form = await createForm(app, account);
      for (const options of [from(`${EVIL}/`), {}, { headers: { origin: 'null' } }]) {
        assert.equal((await post(app, form.id, CONTACT, { ...options, accept: JSON_ACCEPT })).status, 200);
      }
    });

    it('follows any http(s) _redirect and _error of a POST: its own site, another host of the owner, or a post that names no site', async () => {
      const form = await createForm(app, account);
      const cases: [Record<string, string>, string][] = [
        [{ origin: SITE, referer: `${SITE}/contact` }, `${SITE}/thanks`],
        [{ origin: 'https://example.com', referer: 'https://example.com/contact' }, 'https://www.example.com/thanks'],
        [{}, `${SITE}/thanks`],
        [{ origin: 'null' }, `${SITE}/thanks`],
      ];
      for (const [headers, target] of cases) {
        const answer = await post(app, form.id, { ...CONTACT, _redirect: target }, { headers });
        assert.equal(answer.status, 303);
        assert.equal(answer.headers.get('location'), target, JSON.stringify(headers));
        const failed = await post(app, form.id, { _gotcha: '', _error: `${target}?failed` }, { headers, accept: BROWSER_ACCEPT });
        assert.equal(failed.headers.get('location'), `${target}?failed`, JSON.stringify(headers));
      }
      // JSON answers ignore both, whatever they say
      for (const value of [`${EVIL}/`, 'javascript:alert(1)']) {
        const json = await post(app, form.id, { ...CONTACT, _redirect: value, _error: value }, { accept: JSON_ACCEPT });
        assert.equal(json.status, 200, JSON.stringify(json.body));
      }
      assert.equal((await storedRows(app, form.id)).length, 6);
    });

    it('never shows the post’s wording or the fields it named on the error page; its way back is the root of the site it came from, named', async () => {
      const form = await createForm(app, account);
      const page = await post(
        app,
        form.id,
        { _gotcha: '', '_feedback.error.title': PHISH.title, '_feedback.error.message': PHISH.message, '_feedback.dark': 'on' },
        { ...from(`${EVIL}/login?next=suspended`), accept: BROWSER_ACCEPT },
      );
      assert.equal(page.status, 400);
      assert.ok(!page.body.includes('suspended') && !page.body.includes('login'), page.body);
      assert.deepEqual(hrefsOf(page.body), [`${EVIL}/`]);
      assert.ok(page.body.includes('Back to the form (evil.example.net)</a>'), page.body);
      assert.ok(page.body.includes('Your submission could not be accepted'), 'the default wording');
      assert.ok(page.body.includes('theme-dark'), 'the theme says nothing, so it applies');
      assert.ok(!page.body.includes('fields:'), 'errors name the post’s fields: not shown');

      // a file part named with the attacker's words, of a type the form refuses: the problem names it, the page does not
      const upload = multipartBody({}, [{ name: PHISH.title, filename: 'a.exe', content: 'x' }]);
      const named = await request('POST', `${app.submitUrl}/${form.id}`, upload.body, { 'content-type': upload.contentType, accept: BROWSER_ACCEPT });
      assert.equal(named.status, 400);
      assert.ok(!named.body.includes('suspended'), named.body);
    });
  });

  describe('the way back from the built-in pages (issue 39, item 19)', () => {
    const wayBack = async (formId: string, headers: Record<string, string>, fields: Record<string, string> = CONTACT) => {
      const answer = await post(app, formId, fields, { headers, accept: BROWSER_ACCEPT });
      const page = answer.status === 303 ? await follow(answer) : (answer.body as string);
      return { status: answer.status, links: hrefsOf(page), page };
    };

    it('a form that lists no sites: the root of the site the post came from (Referer, else Origin), named; nothing for a non-http one', async () => {
      const form = await createForm(app, account);
      const thanks = await wayBack(form.id, { origin: SITE, referer: `${SITE}/contact?step=2` });
      assert.deepEqual(thanks.links, [`${SITE}/`]);
      assert.ok(thanks.page.includes('Go back (shop.example.com)</a>'), thanks.page);
      assert.deepEqual((await wayBack(form.id, { origin: 'http://localhost:3000' })).links, ['http://localhost:3000/'], 'Origin alone');
      assert.deepEqual((await wayBack(form.id, { referer: 'https://user:secret@shop.example.com/contact' })).links, [`${SITE}/`], 'no credentials');
      for (const headers of [
        {},
        { origin: 'null' },
        { referer: 'javascript:alert(1)' },
        { referer: 'file:///etc/passwd' },
        { referer: 'data:text/html,x' },
      ] as Record<string, string>[]) {
        const { links } = await wayBack(form.id, headers);
        assert.deepEqual(links, [], JSON.stringify(headers));
      }
      const failed = await wayBack(form.id, { origin: SITE, referer: `${SITE}/contact` }, { _gotcha: '' });
      assert.equal(failed.status, 400);
      assert.deepEqual(failed.links, [`${SITE}/`], 'the error page too');
    });

    it('a form that lists its sites: the page the form was on, else the first listed site', async () => {
      const form = await createForm(app, account, { allowedOrigins: [SITE, 'https://www.example.com'] });
      assert.deepEqual((await wayBack(form.id, from(`${SITE}/contact?step=2`).headers)).links, [`${SITE}/contact?step&#x3D;2`]);
      assert.deepEqual((await wayBack(form.id, { origin: 'https://www.example.com' })).links, ['https://www.example.com/'], 'Origin alone');
      const refused = await wayBack(form.id, { origin: EVIL, referer: `${EVIL}/x` });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.links, [`${SITE}/`], 'a post from elsewhere is pointed at the owner’s site');
      const invalid = await wayBack(form.id, from(`${SITE}/contact`).headers, { _gotcha: '' });
      assert.equal(invalid.status, 400);
      assert.deepEqual(invalid.links, [`${SITE}/contact`]);
    });
  });

  describe('a form that does not exist', () => {
    it('never redirects to _error (no owner vouches for it) and never shows the post’s wording', async () => {
      const unknown = 'aaaaaaaaaaaaaaaaaaaa';
      const fields = { ...CONTACT, _error: `${EVIL}/`, '_feedback.error.title': PHISH.title };
      const page = await post(app, unknown, fields, { ...from(`${EVIL}/`), accept: BROWSER_ACCEPT });
      assert.equal(page.status, 404);
      assert.equal(page.headers.get('location'), null);
      assert.ok(page.body.includes('Form not found') && !page.body.includes('suspended') && !page.body.includes('href='));
      const plain = await post(app, unknown, fields, from(`${EVIL}/`));
      assertProblem(app, plain, 'not_found');
    });

    it('puts no part of an unknown address on the error page', async () => {
      const page = await request('GET', `${app.submitUrl}/Your-account-is-suspended-call-0800-000-000`, null, { accept: BROWSER_ACCEPT });
      assert.equal(page.status, 404);
      assert.ok(!page.body.includes('suspended'), page.body);
      const json = await request('GET', `${app.submitUrl}/Your-account-is-suspended`, null, {});
      assertProblem(app, json, 'not_found');
      assert.ok(!json.body.detail.includes('suspended'));
    });
  });
});
