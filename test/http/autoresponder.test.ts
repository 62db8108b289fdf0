import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const POLITE = '<p>Hi {{data.name}}, thanks for writing to us. We will reply within two working days.</p><p>The Acme team</p>';
const PUSHY = '<p>LIMITED TIME OFFER!!! Buy now and get 50% off: http://deals.example.com/promo click here http://deals.example.com/x</p>';

const from = visitorAddresses(9);

describe('autoresponder', () => {
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

  async function formWithAutoresponder(code: string) {
    const form = await createForm(app, account, { name: 'Support', notificationEmails: ['help@acme.example', 'boss@acme.example'] });
    const put = await app.api('PUT', `/forms/${form.id}/templates/autoresponder`, { token: account.token, body: { code } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    return form;
  }
  async function kindsOf(submissionId: string) {
    const jobs = await app.ctx.database.db.selectFrom('jobs').select('kind').where('submissionId', '=', submissionId).execute();
    return jobs.map((j) => j.kind).sort();
  }

  it('answers the submitter from the template, replying to the first recipient', async () => {
    const form = await formWithAutoresponder(POLITE);
    const before = sink.messages.length;
    const answer = await postJson(app, form.id, { name: 'Ada <3', email: 'ada@example.com', message: 'Help!' }, from());
    assert.equal(answer.status, 200);
    assert.deepEqual(await kindsOf(answer.body.id), ['autoresponder', 'notification', 'notification'], 'a notification per recipient');
    const mails = await sink.waitFor(before + 3);
    const reply = mails.slice(before).find((m) => m.envelopeTo.includes('ada@example.com'))!;
    assert.ok(reply, 'the submitter got an answer');
    assert.deepEqual(reply.envelopeTo, ['ada@example.com']);
    assert.equal(reply.parsed.replyTo?.value[0]?.address, 'help@acme.example');
    assert.ok(String(reply.parsed.html).includes('Hi Ada &lt;3, thanks'), String(reply.parsed.html));
    assert.equal(reply.parsed.headers.get('auto-submitted'), 'auto-replied');
    // the recipients' notifications link to the submission's page; the visitor's answer never does
    const page = `${app.ctx.config.publicUrl}/submissions/${answer.body.id}`;
    for (const notification of mails.slice(before).filter((m) => m !== reply))
      assert.ok((notification.parsed.text ?? '').includes(`Open in Formgate: ${page}`));
    for (const part of [String(reply.parsed.html), reply.parsed.text ?? '']) {
      assert.ok(!part.includes('/submissions/') && !part.includes('Open in Formgate'), part);
    }
  });

  it('prints nothing for {{submissionUrl}} in the autoresponder: the visitor never gets a link into the dashboard', async () => {
    const form = await formWithAutoresponder(`${POLITE}<p>Your reference: [{{submissionUrl}}]</p>`);
    const before = sink.messages.length;
    const answer = await postJson(app, form.id, { name: 'Grace', email: 'grace@example.com', message: 'Hello' }, from());
    assert.equal(answer.status, 200);
    const reply = await sink.waitFor(before + 3).then((mails) => mails.slice(before).find((m) => m.envelopeTo.includes('grace@example.com'))!);
    assert.ok(String(reply.parsed.html).includes('<p>Your reference: []</p>'), String(reply.parsed.html));
    assert.match(reply.parsed.text ?? '', /^Your reference: \[\]$/m);
    assert.ok(!String(reply.parsed.html).includes('/submissions/'));
    // and its previews fill in nothing either
    const preview = await app.api('POST', `/forms/${form.id}/templates/autoresponder/preview`, { token: account.token, body: {} });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.ok(preview.body.html.includes('<p>Your reference: []</p>'), preview.body.html);
    const email = await app.ctx.templates.previewEmail(account.userId, form.id, 'autoresponder');
    assert.ok(email.html.includes('<p>Your reference: []</p>') && !email.text.includes('/submissions/'), email.html);
  });

  it('sends nothing when paused, when deleted (off), without a submitter address, or on a free workspace', async () => {
    const paused = await formWithAutoresponder(PUSHY);
    const a = await postJson(app, paused.id, { email: 'x@example.com', message: 'one' }, from());
    assert.deepEqual(await kindsOf(a.body.id), ['notification', 'notification']);

    const off = await formWithAutoresponder(POLITE);
    assert.equal((await app.api('DELETE', `/forms/${off.id}/templates/autoresponder`, { token: account.token })).status, 204);
    const b = await postJson(app, off.id, { email: 'y@example.com', message: 'two' }, from());
    assert.deepEqual(await kindsOf(b.body.id), ['notification', 'notification']);

    const on = await formWithAutoresponder(POLITE);
    const c = await postJson(app, on.id, { message: 'no address given' }, from());
    assert.deepEqual(await kindsOf(c.body.id), ['notification', 'notification']);

    const freeAccount = await createAccount(app);
    const freeForm = await createForm(app, freeAccount, { notificationEmails: ['f@example.com'] });
    await app.api('PUT', `/forms/${freeForm.id}/templates/autoresponder`, { token: freeAccount.token, body: { code: POLITE } });
    await app.ctx.workspaces.setPlan(freeAccount.workspaceId, 'FREE', { tellOwners: false });
    const d = await postJson(app, freeForm.id, { email: 'z@example.com', message: 'three' }, from());
    assert.deepEqual(await kindsOf(d.body.id), ['notification'], 'the autoresponder is a feature of upgraded workspaces');
  });
});
