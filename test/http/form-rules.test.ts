import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database } from '../../src/db/database.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem, assertValidation } from '../helpers/problems.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, post, postJson, request, storedRows, visitorAddresses } from '../helpers/submit.js';

const from = visitorAddresses(77);
let sent = 0;
const contact = () => ({ name: 'Grace Hopper', email: 'grace@example.com', message: `A question about the order, number ${++sent}` });

/** A form's behaviour (issue 29): the owner's redirect, thank-you wording and email subjects and names; paused, closing and capped forms. */
describe(`form rules: behaviour and state (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let account: Account;
  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await sink.close();
  });

  const patch = (formId: string, body: Record<string, unknown>) => app.api('PATCH', `/forms/${formId}`, { token: account.token, body });

  it('the API stores, shows and clears every setting, and refuses bad ones naming the field with nothing saved', async () => {
    const form = await createForm(app, account, { paused: true, maxSubmissions: 5 });
    assert.equal(form.paused, true);
    assert.equal(form.maxSubmissions, 5);
    const settings = {
      redirectUrl: 'https://example.com/thanks?from=form',
      thanksTitle: 'Merci !',
      thanksMessage: 'We read every message.\nSee you soon.',
      notificationSubject: 'New lead',
      notificationFromName: 'Acme website',
      autoresponseSubject: 'We got your message',
      autoresponseFromName: 'Acme support',
      paused: false,
      closesAt: '2031-01-31T18:00:00.000Z',
      maxSubmissions: 100,
    };
    const changed = await patch(form.id, settings);
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    for (const [key, value] of Object.entries(settings)) assert.deepEqual(changed.body[key], value, key);
    const read = await app.api('GET', `/forms/${form.id}`, { token: account.token });
    for (const [key, value] of Object.entries(settings)) assert.deepEqual(read.body[key], value, key);

    const refused = await patch(form.id, { redirectUrl: 'javascript:alert(1)', notificationSubject: 'Hi\r\nBcc: victim@example.com', thanksTitle: '   ' });
    assertValidation(app, refused, 'redirectUrl', 'notificationSubject', 'thanksTitle');
    assertValidation(
      app,
      await patch(form.id, { maxSubmissions: 0, closesAt: 'next tuesday', autoresponseFromName: 'x'.repeat(65) }),
      'maxSubmissions',
      'closesAt',
      'autoresponseFromName',
    );
    const still = await app.api('GET', `/forms/${form.id}`, { token: account.token });
    for (const [key, value] of Object.entries(settings)) assert.deepEqual(still.body[key], value, `${key} unchanged`);

    const cleared = await patch(form.id, Object.fromEntries(Object.keys(settings).map((key) => [key, key === 'paused' ? false : null])));
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    for (const key of Object.keys(settings)) assert.deepEqual(cleared.body[key], key === 'paused' ? false : null, key);
  });

  it("the owner's redirect is followed after a POST or a GET, whatever the allowed origins; a usable _redirect wins; JSON clients get JSON", async () => {
    const form = await createForm(app, account, { redirectUrl: 'https://thanks.example.org/done', allowedOrigins: ['https://example.com'] });
    const site = { origin: 'https://example.com' };
    const plain = await post(app, form.id, contact(), { accept: BROWSER_ACCEPT, headers: site, ...from() });
    assert.equal(plain.status, 303);
    assert.equal(plain.headers.get('location'), 'https://thanks.example.org/done', 'not on the list, yet the owner chose it');

    const own = await post(app, form.id, { ...contact(), _redirect: 'https://example.com/merci' }, { accept: BROWSER_ACCEPT, headers: site, ...from() });
    assert.equal(own.headers.get('location'), 'https://example.com/merci', "the post's _redirect wins for that submission");
    const unusable = await post(app, form.id, { ...contact(), _redirect: 'https://evil.example.net/' }, { accept: BROWSER_ACCEPT, headers: site, ...from() });
    assert.equal(unusable.headers.get('location'), 'https://thanks.example.org/done', "an unusable _redirect falls back to the owner's");
    const appended = await post(app, form.id, { ...contact(), _append: 'true' }, { accept: BROWSER_ACCEPT, headers: site, ...from() });
    const location = new URL(appended.headers.get('location')!);
    assert.equal(location.searchParams.get('submissionId'), (await storedRows(app, form.id)).at(-1)!.id);

    const viaGet = await request(
      'GET',
      `${app.submitUrl}/${form.id}?${new URLSearchParams(contact())}`,
      null,
      { accept: BROWSER_ACCEPT, referer: 'https://example.com/contact' },
      from().localAddress,
    );
    assert.equal(viaGet.status, 303);
    assert.equal(viaGet.headers.get('location'), 'https://thanks.example.org/done');

    const json = await postJson(app, form.id, contact(), { headers: site, ...from() });
    assert.equal(json.status, 200);
    assert.equal(typeof json.body.id, 'string');
    assert.equal((await storedRows(app, form.id)).length, 6);
  });

  it("the thank-you page shows the owner's wording, escaped; a vouched _feedback wins", async () => {
    const form = await createForm(app, account, { thanksTitle: 'Thanks <b>friend</b>', thanksMessage: 'We answer within a day.\n<script>x</script>' });
    const visitor = from();
    const answer = await post(app, form.id, contact(), { accept: BROWSER_ACCEPT, ...visitor });
    assert.equal(answer.status, 303);
    const page = await request('GET', answer.headers.get('location')!, null, { accept: 'text/html' }, visitor.localAddress);
    assert.equal(page.status, 200);
    assert.ok(page.body.includes('<h1>Thanks &lt;b&gt;friend&lt;/b&gt;</h1>'), page.body);
    assert.ok(page.body.includes('We answer within a day.\n&lt;script&gt;x&lt;/script&gt;'), page.body);
    assert.ok(page.body.includes('prefers-color-scheme:dark'), 'the page follows a dark browser');

    await patch(form.id, { allowedOrigins: ['https://example.com'] });
    const other = from();
    const vouched = await post(
      app,
      form.id,
      { ...contact(), '_feedback.success.title': 'Danke' },
      { accept: BROWSER_ACCEPT, headers: { origin: 'https://example.com' }, ...other },
    );
    const vouchedPage = await request('GET', vouched.headers.get('location')!, null, { accept: 'text/html' }, other.localAddress);
    assert.ok(vouchedPage.body.includes('<h1>Danke</h1>'));
    assert.ok(vouchedPage.body.includes('We answer within a day.'), "the owner's message stays where the post gives none");
  });

  it('a paused form answers form_closed (paused) to a JSON client and a closed page to a browser, in its language; nothing stored', async () => {
    const form = await createForm(app, account, { paused: true });
    const json = await postJson(app, form.id, contact(), from());
    assertProblem(app, json, 'form_closed', { reason: 'paused' });
    const page = await post(app, form.id, contact(), { accept: BROWSER_ACCEPT, ...from() });
    assert.equal(page.status, 403);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.ok(page.body.includes('<title>This form is closed</title>'), page.body);
    const german = await post(app, form.id, contact(), { accept: BROWSER_ACCEPT, headers: { 'accept-language': 'de-DE,de;q=0.9' }, ...from() });
    assert.ok(german.body.includes('Dieses Formular ist geschlossen'), german.body);
    const multipart = await post(app, form.id, contact(), { as: 'multipart', accept: JSON_ACCEPT, ...from() });
    assertProblem(app, multipart, 'form_closed', { reason: 'paused' });
    assert.equal((await storedRows(app, form.id)).length, 0);

    assert.equal((await patch(form.id, { paused: false })).status, 200);
    assert.equal((await postJson(app, form.id, contact(), from())).status, 200, 'resumed: the next submission is taken');
  });

  it('a form paused, capped or given a redirect by another process applies to the next submission (intake keeps forms in memory on SQLite)', async () => {
    const form = await createForm(app, account);
    const otherProcess = Database.open(app.ctx.config.database);
    try {
      assert.equal((await postJson(app, form.id, contact(), from())).status, 200);
      await otherProcess.db.updateTable('forms').set({ paused: 1 }).where('id', '=', form.id).execute();
      assertProblem(app, await postJson(app, form.id, contact(), from()), 'form_closed', { reason: 'paused' });
      await otherProcess.db.updateTable('forms').set({ paused: 0, maxSubmissions: 1 }).where('id', '=', form.id).execute();
      assertProblem(app, await postJson(app, form.id, contact(), from()), 'form_closed', { reason: 'full' });
      await otherProcess.db.updateTable('forms').set({ maxSubmissions: null, redirectUrl: 'https://example.com/next' }).where('id', '=', form.id).execute();
      const redirected = await post(app, form.id, contact(), { accept: BROWSER_ACCEPT, ...from() });
      assert.equal(redirected.headers.get('location'), 'https://example.com/next');
    } finally {
      await otherProcess.destroy();
    }
  });

  it('a form past its closing time answers form_closed (closed) with the time', async () => {
    const form = await createForm(app, account, { closesAt: '2031-01-01T00:00:00Z' });
    assert.equal((await postJson(app, form.id, contact(), from())).status, 200, 'before the time: open');
    await patch(form.id, { closesAt: '2020-06-01T12:00:00Z' });
    assertProblem(app, await postJson(app, form.id, contact(), from()), 'form_closed', { reason: 'closed', closesAt: '2020-06-01T12:00:00.000Z' });
    assert.equal((await storedRows(app, form.id)).length, 1);
  });

  it('a capped form takes exactly its cap under concurrent posts, then answers form_closed (full); spam does not count', async () => {
    const form = await createForm(app, account, { maxSubmissions: 4, customSpamWords: 'casino' });
    const spam = await postJson(app, form.id, { ...contact(), message: 'casino night' }, from());
    assert.equal(spam.status, 200);
    const answers = await Promise.all(Array.from({ length: 10 }, () => postJson(app, form.id, contact(), from())));
    const taken = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 403);
    assert.equal(taken.length, 4, JSON.stringify(answers.map((a) => a.status)));
    assert.equal(refused.length, 6);
    for (const answer of refused) assertProblem(app, answer, 'form_closed', { reason: 'full', maxSubmissions: 4 });
    const rows = await storedRows(app, form.id);
    assert.deepEqual(rows.map((r) => r.status).sort(), ['accepted', 'accepted', 'accepted', 'accepted', 'spam']);
    // a spam post to a full form is refused too: the form is closed
    assertProblem(app, await postJson(app, form.id, { ...contact(), message: 'casino again' }, from()), 'form_closed', { reason: 'full' });

    await patch(form.id, { maxSubmissions: 5 });
    assert.equal((await postJson(app, form.id, contact(), from())).status, 200, 'a raised cap takes one more');
    assertProblem(app, await postJson(app, form.id, contact(), from()), 'form_closed', { reason: 'full' });
  });

  it("the emails use the form's subjects and sender names; _email.subject and _email.from win; header injection stays neutralised", async () => {
    const form = await createForm(app, account, {
      notificationEmails: ['owner@acme.example'],
      notificationSubject: 'Website lead',
      notificationFromName: 'Acme site',
      autoresponseSubject: 'Thanks for writing',
      autoresponseFromName: 'Acme team',
    });
    const put = await app.api('PUT', `/forms/${form.id}/templates/autoresponder`, {
      token: account.token,
      body: { code: 'Hello {{name}}, we will answer soon.' },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const before = sink.messages.length;
    assert.equal((await postJson(app, form.id, { ...contact(), email: 'ada@example.com' }, from())).status, 200);
    const mails = (await sink.waitFor(before + 2)).slice(before);
    const notification = mails.find((m) => m.envelopeTo.includes('owner@acme.example'))!;
    assert.equal(notification.parsed.subject, 'Website lead');
    assert.equal(notification.parsed.from?.value[0]?.name, 'Acme site');
    const reply = mails.find((m) => m.envelopeTo.includes('ada@example.com'))!;
    assert.equal(reply.parsed.subject, 'Thanks for writing');
    assert.equal(reply.parsed.from?.value[0]?.name, 'Acme team');

    // a value written straight into the store (an older release, another tool) is neutralised when sent
    await app.ctx.database.db.updateTable('forms').set({ notificationSubject: 'Hi\r\nBcc: victim@example.com' }).where('id', '=', form.id).execute();
    const next = sink.messages.length;
    const overridden = await postJson(app, form.id, { ...contact(), email: 'bo@example.com', '_email.from': 'The form' }, from());
    assert.equal(overridden.status, 200);
    const second = (await sink.waitFor(next + 2)).slice(next).find((m) => m.envelopeTo.includes('owner@acme.example'))!;
    assert.equal(second.parsed.subject, 'Hi Bcc: victim@example.com');
    assert.equal(second.parsed.headers.get('bcc'), undefined);
    assert.equal(second.parsed.from?.value[0]?.name, 'The form', '_email.from wins');
    const third = sink.messages.length;
    assert.equal((await postJson(app, form.id, { ...contact(), email: 'cy@example.com', '_email.subject': 'Per post' }, from())).status, 200);
    const last = (await sink.waitFor(third + 2)).slice(third).find((m) => m.envelopeTo.includes('owner@acme.example'))!;
    assert.equal(last.parsed.subject, 'Per post', '_email.subject wins');
  });

  it('a subject fills in the placeholders of templates as plain text on one line; one that does not compile is refused, naming it (issue 39, item 8)', async () => {
    const form = await createForm(app, account, {
      notificationEmails: ['owner@acme.example'],
      notificationSubject: 'Lead from {{data.name}} <{{data.email}}> & co{{#if data.car}} ({{data.car.color}}){{/if}}',
      autoresponseSubject: 'Thanks, {{data.name}}: {{#each data.tags}}[{{this}}]{{/each}}',
    });
    const put = await app.api('PUT', `/forms/${form.id}/templates/autoresponder`, { token: account.token, body: { code: '<p>We will answer soon.</p>' } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const before = sink.messages.length;
    const fields = { name: 'Ada "Countess" <b>&\r\nBcc: victim@example.com', email: 'ada@example.com', car: { color: 'red' }, tags: ['a', 'b'] };
    assert.equal((await postJson(app, form.id, fields, from())).status, 200);
    const mails = (await sink.waitFor(before + 2)).slice(before);
    const notification = mails.find((m) => m.envelopeTo.includes('owner@acme.example'))!.parsed;
    // as sent: not HTML-escaped, the line break a space, no header added
    assert.equal(notification.subject, 'Lead from Ada "Countess" <b>& Bcc: victim@example.com <ada@example.com> & co (red)');
    assert.equal(notification.headers.get('bcc'), undefined);
    const reply = mails.find((m) => m.envelopeTo.includes('ada@example.com'))!.parsed;
    assert.equal(reply.subject, 'Thanks, Ada "Countess" <b>& Bcc: victim@example.com: [a][b]');
    assert.equal(reply.headers.get('bcc'), undefined);

    for (const [subject, problem] of [
      ['Lead from {{data.name', /^notificationSubject: .*Expecting/],
      ['{{lookup data "name"}}', /^notificationSubject: line 1, column \d+: unknown helper "lookup"$/],
      ['{{{data.name}}}', /^notificationSubject: line 1, column \d+: unescaped output/],
      ['{{data.constructor}}', /^notificationSubject: line 1, column \d+: "constructor" cannot be reached from a template$/],
      ['{{> header}}', /^notificationSubject: line 1, column \d+: partials are not allowed$/],
    ] as const) {
      const refused = await patch(form.id, { notificationSubject: subject, autoresponseSubject: subject });
      assertValidation(app, refused, 'notificationSubject', 'autoresponseSubject');
      assert.match(refused.body.errors[0], problem, subject);
    }
    const read = await app.api('GET', `/forms/${form.id}`, { token: account.token });
    assert.match(read.body.notificationSubject, /^Lead from \{\{data\.name\}\}/, 'nothing changed');
  });

  it("the autoresponder never shows the form's name: the default subject is neutral and the sender is the form's site (issue 39, item 7)", async () => {
    const name = 'Internal – leads Q3 (do not share)';
    const withSite = await createForm(app, account, { name, allowedOrigins: ['https://www.acme.example', 'https://acme.example'] });
    const withoutSite = await createForm(app, account, { name });
    for (const form of [withSite, withoutSite]) {
      const put = await app.api('PUT', `/forms/${form.id}/templates/autoresponder`, { token: account.token, body: { code: '<p>We will answer soon.</p>' } });
      assert.equal(put.status, 200, JSON.stringify(put.body));
    }
    const before = sink.messages.length;
    const site = { headers: { origin: 'https://www.acme.example' }, ...from() };
    assert.equal((await postJson(app, withSite.id, { ...contact(), email: 'dee@example.com' }, site)).status, 200);
    assert.equal((await postJson(app, withoutSite.id, { ...contact(), email: 'eve@example.com' }, from())).status, 200);
    const mails = (await sink.waitFor(before + 2)).slice(before);
    const answers = ['dee@example.com', 'eve@example.com'].map((to) => mails.find((m) => m.envelopeTo.includes(to))!.parsed);
    for (const answer of answers) {
      assert.equal(answer.subject, 'We received your message');
      assert.ok(![answer.subject, answer.from?.text, answer.html, answer.text].join('\n').includes('leads Q3'), 'the name nowhere');
    }
    assert.equal(answers[0]!.from?.value[0]?.name, 'www.acme.example', 'the site the visitor posted from');
    assert.equal(answers[1]!.from?.value[0]?.name, 'Formgate', "without a site, the instance's sender name");
  });
});
