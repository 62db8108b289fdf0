import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AddressObject } from 'mailparser';
import { notificationMessageId } from '../../src/mail/notification.js';
import { messageIdDomain } from '../../src/mail/message-id.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, storedRows, visitorAddresses } from '../helpers/submit.js';

const from = visitorAddresses(7);

/** The addresses of a parsed To: or Cc: header. */
function addressesIn(header: AddressObject | AddressObject[] | undefined): string[] {
  return (Array.isArray(header) ? header : header ? [header] : []).flatMap((h) => h.value.map((a) => a.address ?? ''));
}

describe('submit surface: deliveries of accepted submissions', () => {
  let app: TestApp;
  let sink: SmtpSink;
  let account: Account;
  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url, mailFrom: 'Forms <forms@mail.example.org>' }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await sink.close();
  });

  async function jobsOf(formId: string) {
    return app.ctx.database.db
      .selectFrom('jobs')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select(['jobs.kind', 'jobs.submissionId'])
      .where('submissions.formId', '=', formId)
      .execute();
  }

  it("emails an accepted submission to the form's recipients, with the email controls applied", async () => {
    const form = await createForm(app, account, { name: 'Quotes', notificationEmails: ['sales@example.com', 'boss@example.com'], emailThreading: true });
    const before = sink.messages.length;
    const answer = await postJson(
      app,
      form.id,
      { name: 'Ada', email: 'ada@example.com', message: 'A quote for <b>two</b> engines, please.', _email: { subject: 'Quote request', from: 'Website' } },
      from(),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const mails = (await sink.waitFor(before + 2)).slice(before);
    // one message per recipient, each addressed to that recipient alone
    assert.deepEqual(mails.map((m) => m.envelopeTo.join(',')).sort(), ['boss@example.com', 'sales@example.com']);
    for (const mail of mails) {
      const [recipient] = mail.envelopeTo;
      assert.deepEqual(addressesIn(mail.parsed.to), [recipient], 'To: names only its own recipient');
      assert.equal(mail.parsed.cc, undefined);
      assert.equal(mail.parsed.subject, 'Quote request');
      assert.deepEqual(mail.parsed.from?.value[0], { name: 'Website', address: 'forms@mail.example.org' });
      assert.equal(mail.parsed.replyTo?.value[0]?.address, 'ada@example.com');
      // ids take the public URL's host, not the sender's (issue 39, item 9)
      const idDomain = messageIdDomain(app.ctx.config.publicUrl);
      assert.equal(mail.parsed.messageId, notificationMessageId(answer.body.id, recipient!, idDomain));
      assert.equal(mail.parsed.inReplyTo, `<form-${form.id}@${idDomain}>`);
      assert.equal(mail.parsed.references, `<form-${form.id}@${idDomain}>`);
      assert.ok(String(mail.parsed.html).includes('&lt;b&gt;two&lt;/b&gt;'), 'values are escaped');
      assert.match(mail.parsed.text ?? '', /^message: A quote for <b>two<\/b> engines, please\.$/m);
    }
    assert.notEqual(mails[0]!.parsed.messageId, mails[1]!.parsed.messageId, 'a Message-ID per message');
  });

  it('retries a recipient whose server refuses alone: the others get the notification once, and the log shows each', async () => {
    const form = await createForm(app, account, {
      name: 'Team',
      notificationEmails: ['ann@example.com', 'busy@example.com', 'cy@example.com', 'Ann@Example.com'],
    });
    sink.busyRecipients.add('busy@example.com');
    const before = sink.messages.length;
    const answer = await postJson(app, form.id, { name: 'Ada' }, from());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const jobs = await app.ctx.database.db.selectFrom('jobs').select(['id', 'payload', 'idempotencyKey']).where('submissionId', '=', answer.body.id).execute();
    assert.equal(jobs.length, 3, 'one job per distinct recipient (Ann listed twice gets one)');
    assert.equal(new Set(jobs.map((j) => j.idempotencyKey)).size, 3, 'each with its own idempotency key');
    const busyJob = jobs.find((j) => JSON.stringify(j.payload).includes('busy@example.com'))!;

    await sink.waitFor(before + 2);
    const refused = await eventually(
      () =>
        app.ctx.database.db
          .selectFrom('jobs')
          .selectAll()
          .where('id', '=', busyJob.id)
          .where('attempts', '=', 1)
          .where('leaseUntil', 'is', null)
          .executeTakeFirst(),
      'the refused recipient’s first try',
    );
    assert.equal(refused.status, 'pending');
    assert.match(refused.lastError ?? '', /450/);

    sink.busyRecipients.delete('busy@example.com');
    await app.ctx.database.db.updateTable('jobs').set({ runAt: Date.now() }).where('id', '=', busyJob.id).execute();
    await sink.waitFor(before + 3);
    await eventually(
      () =>
        app.ctx.database.db
          .selectFrom('jobs')
          .select('id')
          .where('submissionId', '=', answer.body.id)
          .where('status', '=', 'done')
          .execute()
          .then((done) => done.length === 3),
      'every recipient’s job done',
    );
    const received = sink.messages.slice(before).map((m) => m.envelopeTo.join(','));
    assert.deepEqual(received.sort(), ['ann@example.com', 'busy@example.com', 'cy@example.com'], 'each recipient once, none twice');

    const db = app.ctx.config.database;
    const env = cliEnv({ url: db.dialect === 'sqlite' ? `sqlite:${db.file}` : db.url, dataDir: app.ctx.config.dataDir, drop: async () => undefined });
    const listed = await runCli(env, ['deliveries', 'list', '--form', form.id, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const deliveries = (JSON.parse(listed.stdout) as { deliveries: { kind: string; recipient: string | null; tries: unknown[] }[] }).deliveries;
    assert.deepEqual(deliveries.map((d) => `${d.kind} ${d.recipient} ${d.tries.length}`).sort(), [
      'notification ann@example.com 1',
      'notification busy@example.com 2',
      'notification cy@example.com 1',
    ]);
    const text = await runCli(env, ['deliveries', 'list', '--form', form.id]);
    assert.match(text.stdout, /notification {2}done .* to busy@example\.com/);
  });

  it("lays the email out with the form's notification template when it has one, and with the default again once it is deleted", async () => {
    const form = await createForm(app, account, { name: 'Bookings', notificationEmails: ['desk@example.com'] });
    const path = `/forms/${form.id}/templates/notification`;
    const code = '<h1 style="color:#123">Booking from {{data.name}}</h1>{{#each data.nights}}<p>Night {{this}}</p>{{/each}}';
    assert.equal((await app.api('PUT', path, { token: account.token, body: { code } })).status, 200);
    const before = sink.messages.length;
    await postJson(app, form.id, { name: '<Ada>', nights: ['Fri', 'Sat'] }, from());
    const mail = (await sink.waitFor(before + 1)).at(-1)!;
    assert.equal(mail.parsed.subject, 'New submission: Bookings');
    assert.match(String(mail.parsed.html), /<h1 style="color:#123">Booking from &lt;Ada&gt;<\/h1><p>Night Fri<\/p><p>Night Sat<\/p>/);
    // a heading and paragraphs, each followed by a blank line, as in the HTML (issue 39, item 10)
    assert.equal(mail.parsed.text?.trim(), 'Booking from <Ada>\n\nNight Fri\n\nNight Sat');

    assert.equal((await app.api('DELETE', path, { token: account.token })).status, 204);
    await postJson(app, form.id, { name: 'Grace' }, from());
    const plain = (await sink.waitFor(before + 2)).at(-1)!;
    assert.match(String(plain.parsed.html), /New submission to Bookings/);
    assert.match(plain.parsed.text ?? '', /^name: Grace$/m);
  });

  it('delivers nothing for spam, nothing for a form without recipients, and a held submission only once released', async () => {
    const quiet = await createForm(app, account);
    assert.equal((await postJson(app, quiet.id, { name: 'No one to tell' }, from())).status, 200);
    assert.deepEqual(await jobsOf(quiet.id), []);

    const guarded = await createForm(app, account, { notificationEmails: ['x@example.com'], customSpamWords: 'casino' });
    assert.equal((await postJson(app, guarded.id, { message: 'casino bonus' }, from())).status, 200);
    assert.deepEqual(await jobsOf(guarded.id), []);

    const free = await createAccount(app);
    const form = await createForm(app, free, { notificationEmails: ['owner@example.com'] });
    await app.ctx.workspaces.setPlan(free.workspaceId, 'FREE', { tellOwners: false });
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', free.workspaceId).execute();
    assert.equal((await postJson(app, form.id, { name: 'Waiting' }, from())).status, 200);
    assert.deepEqual(
      (await storedRows(app, form.id)).map((r) => r.status),
      ['held'],
    );
    assert.deepEqual(await jobsOf(form.id), [], 'held: not delivered');
    await app.ctx.workspaces.setPlan(free.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const [row] = await storedRows(app, form.id);
    assert.deepEqual(await jobsOf(form.id), [{ kind: 'notification', submissionId: row!.id }], 'released: delivered, to its one recipient');
  });
});
