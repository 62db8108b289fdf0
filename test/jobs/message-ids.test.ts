// Every email a job sends keeps one Message-ID across its tries and across a restart (issue 24,
// item 15): the SMTP server reads each first try in full and answers 451, the instance is stopped,
// another one on the same database sends the retries, and each message must come again with the id
// of its first try, so a receiver (or a restored backup's second send) can be recognised as a copy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quotaNoticeJobs } from '../../src/services/mail-outbox.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { letRetryDelaysPass } from '../helpers/outage.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const MAIL_FROM = 'Forms <forms@mail.example.org>';
const POLITE = '<p>Hi {{data.name}}, thanks for writing to us. We will reply within two working days.</p><p>The Acme team</p>';
const visitor = visitorAddresses(184);

describe(`Message-IDs across tries and restarts (${TEST_DIALECT})`, { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let first: TestApp;
  let second: TestApp | null = null;

  before(async () => {
    database = await createTestDatabase();
    sink = await startSmtpSink();
    first = await startApp({ smtpUrl: sink.url, mailFrom: MAIL_FROM }, { delivery: true, database });
  });
  after(async () => {
    await first?.close();
    await second?.close();
    await sink?.close();
    await database?.drop();
  });

  /** Which email it is: every job below sends one message, told apart by recipient and subject. */
  const keyOf = (mail: ReceivedMail) => `${mail.envelopeTo.join(',')} | ${mail.parsed.subject}`;

  it('sends every email of a job (notification, autoresponder, account and workspace mail) with the Message-ID of its first try', async () => {
    sink.mode = 'transientAfterData';
    const account: Account = await createAccount(first);
    const form = await createForm(first, account, { name: 'Support', notificationEmails: ['team@acme.example'] });
    const put = await first.api('PUT', `/forms/${form.id}/templates/autoresponder`, { token: account.token, body: { code: POLITE } });
    assert.equal(put.status, 200, JSON.stringify(put.body));

    // one of each: a submission's notification and autoresponder, and the emails queued ready to send
    const submitted = await postJson(first, form.id, { name: 'Ada', email: 'ada@example.com', message: 'Help!' }, visitor());
    assert.equal(submitted.status, 200);
    await first.ctx.templates.sendTest(account.userId, form.id, 'autoresponder', 'tester@example.com');
    await first.ctx.passwordResets.request(account.email);
    await first.ctx.workspaces.setPlan(account.workspaceId, 'DEALIFY', { tellOwners: true });
    await first.ctx.database.transaction((trx) => quotaNoticeJobs(trx, account.workspaceId, first.ctx.config));
    const jobs = await first.ctx.database.db.selectFrom('jobs').select('kind').execute();
    const expected = jobs.length;
    assert.deepEqual([...new Set(jobs.map((job) => job.kind))].sort(), ['autoresponder', 'email', 'notification']);
    assert.equal(expected, 6);

    await until('every first try is read and refused', () => sink.refused.length >= expected, 20_000);
    const firstTries = new Map(sink.refused.map((mail) => [keyOf(mail), mail.parsed.messageId]));
    assert.equal(firstTries.size, expected, `one message per job: ${[...firstTries.keys()].join('; ')}`);
    const ids = [...firstTries.values()];
    assert.equal(new Set(ids).size, expected, 'a Message-ID of its own per message');
    // the public URL's host names them (issue 39, item 9), not the sender's domain
    const host = new URL(first.publicUrl).hostname;
    for (const id of ids) assert.equal(id?.replace(/^<[a-z0-9.]+@/, '<@'), `<@${host}>`, 'made by Formgate on the public URL’s domain');

    // a restart: this instance stops, another one on the same database sends the retries
    await first.close();
    sink.mode = 'accept';
    second = await startApp({ smtpUrl: sink.url, mailFrom: MAIL_FROM }, { delivery: true, database });
    const restarted = second;
    await until(
      'every retry is delivered',
      async () => {
        await letRetryDelaysPass(restarted);
        return sink.messages.length >= expected;
      },
      30_000,
      200,
    );
    const secondTries = new Map(sink.messages.map((mail) => [keyOf(mail), mail.parsed.messageId]));
    assert.deepEqual(secondTries, firstTries, 'each email keeps the Message-ID of its first try');
  });
});
