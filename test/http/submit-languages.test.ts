import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { BROWSER_ACCEPT, post, request, storedRows } from '../helpers/submit.js';

const CONTACT = { name: 'Ada Lovelace', message: 'A quote for the analytical engine, please.' };

/** The hosted service's `_feedback.language`, and the browser's Accept-Language, choose the built-in pages' language (issue 24, item 13). */
describe(`submit surface: the built-in pages' language (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let account: Account;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
  });
  after(() => app.close());

  const thanks = async (fields: Record<string, string>, acceptLanguage?: string) => {
    const form = await createForm(app, account);
    const headers = acceptLanguage ? { 'accept-language': acceptLanguage } : undefined;
    const answer = await post(app, form.id, { ...CONTACT, ...fields }, headers ? { headers } : {});
    assert.equal(answer.status, 303);
    const page = await request('GET', answer.headers.get('location')!, null, { accept: BROWSER_ACCEPT, ...headers });
    assert.equal(page.status, 200);
    return page.body as string;
  };
  const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
  const lang = (html: string) => /<html lang="([^"]*)">/.exec(html)?.[1];

  it('shows the thank-you page in the language _feedback.language names, whatever the browser prefers', async () => {
    const expected: Record<string, string> = {
      en: 'Thank you!',
      de: 'Vielen Dank!',
      fr: 'Merci !',
      es: '¡Gracias!',
      it: 'Grazie!',
      nl: 'Bedankt!',
      pt: 'Obrigado!',
      pl: 'Dziękujemy!',
      ru: 'Спасибо!',
      uk: 'Дякуємо!',
    };
    for (const [language, title] of Object.entries(expected)) {
      const page = await thanks({ '_feedback.language': language }, 'ja, en;q=0.5');
      assert.equal(h1(page), title, language);
      assert.equal(lang(page), language);
    }
    assert.equal(h1(await thanks({ '_feedback.language': 'PT-br' })), 'Obrigado!', 'a region and any case');
  });

  it('falls back to Accept-Language by preference, then English', async () => {
    assert.equal(h1(await thanks({}, 'de-CH, de;q=0.9, en;q=0.8')), 'Vielen Dank!');
    assert.equal(h1(await thanks({}, 'ja, nl;q=0.3, fr;q=0.7')), 'Merci !', 'the highest q among those supported');
    assert.equal(h1(await thanks({}, 'fr;q=0, es')), '¡Gracias!', 'q=0 refuses a language');
    assert.equal(h1(await thanks({ '_feedback.language': 'xx' }, 'it-IT')), 'Grazie!', 'an unknown value is ignored');
    const fallback = await thanks({}, 'ja, zh');
    assert.equal(h1(fallback), 'Thank you!');
    assert.equal(lang(fallback), 'en');
  });

  it('shows error pages in the chosen language, and keeps the submission of a post with any language', async () => {
    const form = await createForm(app, account);
    const empty = await post(app, form.id, { message: '', '_feedback.language': 'es' }, { accept: BROWSER_ACCEPT });
    assert.equal(empty.status, 400);
    assert.equal(lang(empty.body), 'es');
    assert.equal(h1(empty.body), 'No se pudo aceptar tu envío');
    assert.ok(empty.body.includes('Revisa el formulario'), 'the page’s own wording, not the English detail');
    assert.ok(empty.body.includes('Volver al formulario') || !empty.body.includes('href='));

    const unknown = await post(app, 'aaaaaaaaaaaaaaaaaaaa', CONTACT, { accept: BROWSER_ACCEPT, headers: { 'accept-language': 'nl-BE,nl;q=0.9' } });
    assert.equal(unknown.status, 404);
    assert.equal(h1(unknown.body), 'Formulier niet gevonden');

    const english = await post(app, form.id, { message: '' }, { accept: BROWSER_ACCEPT });
    assert.equal(h1(english.body), 'Your submission could not be accepted');
    assert.ok(english.body.includes('The submission is empty.'), 'in English the problem’s own detail');

    assert.equal((await post(app, form.id, { ...CONTACT, '_feedback.language': 'de' })).status, 303);
    assert.deepEqual(
      (await storedRows(app, form.id)).map((row) => row.data),
      [CONTACT],
      'a control, never data',
    );
  });

  it('shows the page for a form’s address in the browser’s language', async () => {
    const form = await createForm(app, account);
    const page = await request('GET', `${app.submitUrl}/${form.id}`, null, { accept: BROWSER_ACCEPT, 'accept-language': 'it' });
    assert.equal(lang(page.body), 'it');
    assert.equal(h1(page.body), 'Questo è l’indirizzo di un modulo');
  });
});
