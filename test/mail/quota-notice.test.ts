import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openContext, type AppContext } from '../../src/context.js';
import { fromJson } from '../../src/db/database.js';
import { EmailChannel, type EmailPayload } from '../../src/jobs/channels/email.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { createMailer } from '../../src/mail/transport.js';
import { quotaNoticeMessage } from '../../src/mail/quota-notice.js';
import { quotaNoticeJobs } from '../../src/services/mail-outbox.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

describe(`quota notice (${TEST_DIALECT})`, () => {
  let sink: SmtpSink;
  let testDb: TestDatabase;
  let ctx: AppContext;

  before(async () => {
    sink = await startSmtpSink();
    testDb = await createTestDatabase();
    ctx = await openContext(testConfig(testDb, { smtpUrl: sink.url, mailFrom: 'Formgate <forms@example.test>' }));
  });
  after(async () => {
    await ctx?.close();
    await testDb?.drop();
    await sink?.close();
  });

  it('enqueues one email per workspace owner (not its members) saying submissions are held, not lost', async () => {
    const stamp = `${process.pid}-${Date.now()}`;
    const { user, workspace } = await ctx.users.createUser(`owner-${stamp}@example.com`);
    const coOwner = await ctx.users.createUser(`co-owner-${stamp}@example.com`);
    await ctx.database.db
      .insertInto('workspaceMembers')
      .values({ workspaceId: workspace.id, userId: coOwner.user.id, role: 'owner', createdAt: Date.now() })
      .execute();
    await ctx.users.createUser(`member-${stamp}@example.com`);
    await ctx.workspaces.addMember(workspace.id, `member-${stamp}@example.com`);
    await ctx.database.db.updateTable('workspaces').set({ name: 'Acme <b>& "Co"' }).where('id', '=', workspace.id).execute();

    const jobIds = await ctx.database.transaction((trx) => quotaNoticeJobs(trx, workspace.id, ctx.config));
    assert.equal(jobIds.length, 2);
    const jobs = await ctx.database.db.selectFrom('jobs').selectAll().execute();
    assert.equal(jobs.length, 2, 'one job per owner');
    assert.ok(jobs.every((job) => job.kind === 'email' && job.status === 'pending'));
    const payloads = jobs.map((job) => fromJson<EmailPayload>(job.payload));
    assert.deepEqual(payloads.map((p) => p.to.join(',')).sort(), [user.email, coOwner.user.email].sort(), 'each addressed to one owner alone');
    const payload = payloads[0]!;
    assert.equal(payload.subject, 'Workspace "Acme <b>& "Co"" reached its allowance of 250 submissions');
    assert.match(payload.text, /reached its allowance of 250 accepted submissions on the Free plan/);
    assert.match(payload.text, /stored as held, not lost/);
    assert.match(payload.text, /released in the order they arrived, then listed and delivered/);
    assert.match(payload.text, new RegExp(workspace.id));
    assert.ok(payload.html?.includes('Acme &lt;b&gt;&amp; &quot;Co&quot;'), 'the name is escaped in HTML');
    assert.ok(!payload.html?.includes('<b>&'), 'no markup from the name');

    const mailer = createMailer(ctx.config);
    try {
      const worker = new JobWorker(ctx.database, { email: new EmailChannel(mailer, 'example.test') });
      assert.equal(await worker.runOnce(), 2);
    } finally {
      mailer.close();
    }
    const mails = await sink.waitFor(2);
    assert.deepEqual(mails.map((m) => m.envelopeTo.join(',')).sort(), [user.email, coOwner.user.email].sort());
    assert.deepEqual(
      mails.map((m) => (m.parsed.to as { text: string }).text).sort(),
      [user.email, coOwner.user.email].sort(),
      'To: names its own recipient only',
    );
    const mail = mails[0];
    assert.equal(mail!.parsed.subject, payload.subject);
    assert.equal(mail!.parsed.headers.get('auto-submitted'), 'auto-generated');
    assert.match(mail!.parsed.text ?? '', /not lost/);
  });

  it('keeps the subject one line whatever the workspace name holds, and escapes it in HTML', () => {
    const name = '<b>Acme</b>\r\nBcc: x@example.com\u2028\u0085\u000b end';
    const message = quotaNoticeMessage({ name, id: 'w1', plan: 'FREE', allowance: 250, held: 250, url: 'http://localhost:8080' });
    assert.equal(message.subject, 'Workspace "<b>Acme</b> Bcc: x@example.com end" reached its allowance of 250 submissions');
    assert.ok(!message.html.includes('<b>Acme'));
  });

  it('enqueues nothing for a workspace that does not exist', async () => {
    assert.deepEqual(await ctx.database.transaction((trx) => quotaNoticeJobs(trx, 'no-such-workspace', ctx.config)), []);
  });
});
