import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import {
  HAM,
  realSpamdInstalled,
  SPAM,
  SPAMD_BINARY,
  spamdAnswer,
  startRealSpamd,
  startSpamdStandIn,
  type RealSpamd,
  type SpamdStandIn,
} from '../helpers/spamd-stand-in.js';

const POLITE = '<p>Hi {{data.name}}, thanks for writing to us. We will reply within two working days.</p><p>The Acme team</p>';
const PUSHY = '<p>LIMITED TIME OFFER!!! Buy now and get 50% off: http://deals.example.com/promo click here http://deals.example.com/x</p>';
const NOTIFICATION = '<h1>New message from {{data.name}}</h1><p>{{data.message}}</p>';
// SpamAssassin's standard test string: any SpamAssassin scores it 1000.
const GTUBE = '<p>Thanks for writing.</p><p>XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X</p>';
const MAIL_FROM = 'Acme Forms <forms@acme.example>';

const path = (formId: string, kind: string) => `/forms/${formId}/templates/${kind}`;

describe('templates API with SpamAssassin (FORMGATE_SPAMD_URL), a stand-in spamd', () => {
  let spamd: SpamdStandIn;
  let app: TestApp;
  let owner: Account;
  before(async () => {
    spamd = await startSpamdStandIn(HAM);
    app = await startApp({ spamdUrl: spamd.url, mailFrom: MAIL_FROM });
    owner = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await spamd.close();
  });

  const put = (formId: string, kind: string, code: string) => app.api('PUT', path(formId, kind), { token: owner.token, body: { code } });
  const get = (formId: string, kind: string) => app.api('GET', path(formId, kind), { token: owner.token });

  it('asks spamd with SYMBOLS about the autoresponder rendered as an email with no submission filled in', async () => {
    const form = await createForm(app, owner, { name: 'Contact us' });
    spamd.reply = HAM;
    const before = spamd.requests.length;
    const answer = await put(form.id, 'autoresponder', POLITE);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.paused, false);
    assert.equal(spamd.requests.length, before + 1, 'one question per write');
    const request = spamd.requests.at(-1)!;
    assert.equal(request.command, 'SYMBOLS SPAMC/1.5');
    assert.equal(Number(request.headers['content-length']), request.body.length);
    const mail = await simpleParser(request.body);
    assert.equal(mail.from?.text, '"Acme Forms" <forms@acme.example>');
    assert.equal(mail.subject, 'We received your message', 'the subject it is sent with, never the form’s name');
    assert.ok(mail.date instanceof Date && mail.messageId, 'Date and Message-ID, as a real message has');
    assert.equal(mail.headers.get('auto-submitted'), 'auto-replied');
    assert.equal(mail.html, '<p>Hi , thanks for writing to us. We will reply within two working days.</p><p>The Acme team</p>');
    assert.match(mail.text ?? '', /^Hi , thanks for writing to us\./);
  });

  it('stores the autoresponder paused when spamd says spam, with the reason, and a rewrite asks again', async () => {
    const form = await createForm(app, owner);
    spamd.reply = SPAM;
    const spam = await put(form.id, 'autoresponder', POLITE);
    assert.equal(spam.status, 200, 'the write that pauses it still answers 200');
    assert.equal(spam.body.paused, true);
    assert.equal((await get(form.id, 'autoresponder')).body.paused, true);
    const { pausedFor } = await app.ctx.templates.putTemplate(owner.userId, form.id, 'autoresponder', POLITE);
    assert.deepEqual(pausedFor, ['spamd: 7.3 / 5 (HTML_MESSAGE, LOTS_OF_MONEY, URIBL_BLOCKED)']);

    spamd.reply = HAM;
    const ham = await put(form.id, 'autoresponder', POLITE);
    assert.equal(ham.body.paused, false, 'rewriting re-scores it');
  });

  it('keeps the built-in rules: a template they trip is paused even when spamd calls it ham', async () => {
    const form = await createForm(app, owner);
    spamd.reply = HAM;
    const answer = await put(form.id, 'autoresponder', PUSHY);
    assert.equal(answer.body.paused, true);
  });

  it('never asks spamd about a notification template (paused is null)', async () => {
    const form = await createForm(app, owner);
    spamd.reply = SPAM;
    const before = spamd.requests.length;
    const answer = await put(form.id, 'notification', NOTIFICATION);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.paused, null);
    assert.equal((await app.api('POST', `${path(form.id, 'notification')}/preview`, { token: owner.token, body: {} })).status, 200);
    assert.equal((await app.api('DELETE', path(form.id, 'notification'), { token: owner.token })).status, 204);
    assert.equal(spamd.requests.length, before, 'spamd was not asked');
  });

  it('answers 503 upstream_unavailable with Retry-After on a garbled answer, and keeps the stored template', async () => {
    const form = await createForm(app, owner);
    spamd.reply = HAM;
    const stored = (await put(form.id, 'autoresponder', POLITE)).body;
    for (const garbled of [
      'HTTP/1.1 200 OK\r\n\r\n',
      'SPAMD/1.0 76 Bad header line\r\n',
      spamdAnswer({ spam: true, score: 9 }).replace('Spam: True', 'Spam: Sure'),
      '',
    ]) {
      spamd.reply = () => garbled;
      const refused = await put(form.id, 'autoresponder', PUSHY);
      assertProblem(app, refused, 'upstream_unavailable');
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      assert.doesNotMatch(refused.body.detail, /127\.0\.0\.1|spamd at/, 'the address stays in the log');
      assert.deepEqual((await get(form.id, 'autoresponder')).body, stored, `unchanged after ${JSON.stringify(garbled)}`);
    }
  });

  it('does not ask spamd when the workspace is free (403 upgrade_required first)', async () => {
    const free = await createAccount(app);
    const form = await createForm(app, free);
    await app.ctx.workspaces.setPlan(free.workspaceId, 'FREE');
    const before = spamd.requests.length;
    assertProblem(app, await app.api('PUT', path(form.id, 'autoresponder'), { token: free.token, body: { code: POLITE } }), 'upgrade_required');
    assert.equal(spamd.requests.length, before);
  });
});

describe('templates API with SpamAssassin configured but unreachable', () => {
  let spamd: SpamdStandIn;
  let app: TestApp;
  let owner: Account;
  before(async () => {
    spamd = await startSpamdStandIn(HAM);
    app = await startApp({ spamdUrl: spamd.url });
    owner = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await spamd.close();
  });

  it('answers 503 upstream_unavailable and changes nothing; notification writes go on', async () => {
    const form = await createForm(app, owner);
    const fresh = await createForm(app, owner);
    const stored = (await app.api('PUT', path(form.id, 'autoresponder'), { token: owner.token, body: { code: POLITE } })).body;
    assert.equal(stored.paused, false);
    await spamd.close(); // its port is now closed

    const refused = await app.api('PUT', path(form.id, 'autoresponder'), { token: owner.token, body: { code: PUSHY } });
    assertProblem(app, refused, 'upstream_unavailable');
    assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
    assert.deepEqual((await app.api('GET', path(form.id, 'autoresponder'), { token: owner.token })).body, stored, 'the stored template is unchanged');

    assertProblem(app, await app.api('PUT', path(fresh.id, 'autoresponder'), { token: owner.token, body: { code: POLITE } }), 'upstream_unavailable');
    assertProblem(app, await app.api('GET', path(fresh.id, 'autoresponder'), { token: owner.token }), 'not_found', {});
    const rows = await app.ctx.database.db.selectFrom('templates').select('formId').where('formId', '=', fresh.id).execute();
    assert.deepEqual(rows, [], 'no autoresponder was turned on');

    const notification = await app.api('PUT', path(form.id, 'notification'), { token: owner.token, body: { code: NOTIFICATION } });
    assert.equal(notification.status, 200, 'notification templates are not content checked');
    assert.equal(notification.body.paused, null);
  });
});

const SKIP_REAL = realSpamdInstalled()
  ? false
  : `SpamAssassin's spamd is not installed (${SPAMD_BINARY} not found): apt-get install -y --no-install-recommends spamd (Debian) runs this test against the real spamd`;

describe('templates API with the real spamd (Debian spamassassin)', { skip: SKIP_REAL }, () => {
  let spamd: RealSpamd;
  let app: TestApp;
  let owner: Account;
  before(async () => {
    spamd = await startRealSpamd();
    app = await startApp({ spamdUrl: spamd.url });
    owner = await createAccount(app);
  });
  after(async () => {
    await app?.close();
    await spamd?.stop();
  });

  it('pauses a template spamd scores as spam (GTUBE) and keeps a polite one on', async () => {
    const form = await createForm(app, owner);
    const spam = await app.api('PUT', path(form.id, 'autoresponder'), { token: owner.token, body: { code: GTUBE } });
    assert.equal(spam.status, 200, JSON.stringify(spam.body));
    assert.equal(spam.body.paused, true, 'the built-in rules find nothing here: spamd paused it');
    const { pausedFor } = await app.ctx.templates.putTemplate(owner.userId, form.id, 'autoresponder', GTUBE);
    assert.match(pausedFor.join('\n'), /^spamd: 10\d\d(\.\d+)? \/ 5 \(.*GTUBE/);

    const polite = await app.api('PUT', path(form.id, 'autoresponder'), { token: owner.token, body: { code: POLITE } });
    assert.equal(polite.status, 200, JSON.stringify(polite.body));
    assert.equal(polite.body.paused, false);
  });
});
