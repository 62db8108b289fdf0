// Every kind of email Formgate sends, sent for real through SMTP and read back with mailparser
// (issue 39, items 9 and 10): each is automatic mail (`Auto-Submitted`, so an out-of-office reply
// never answers it), has a Message-ID of the public URL's domain (not the default sender's
// `localhost`), HTML that passes html-validate's recommended rules, and a text part whose
// paragraphs are separated by blank lines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { starterTemplate } from '../../src/dashboard/template-starters.js';
import { MailCheckService } from '../../src/services/mail-check.js';
import { quotaNoticeJobs } from '../../src/services/mail-outbox.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { emailHtmlProblems } from '../helpers/email-html.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(191);

describe(`every email Formgate sends (${TEST_DIALECT})`, { timeout: 90_000 }, () => {
  let sink: SmtpSink;
  let app: TestApp;

  before(async () => {
    sink = await startSmtpSink();
    // the default sender, `Formgate <forms@localhost>`, whose domain named the Message-IDs before
    app = await startApp({ smtpUrl: sink.url, confirmRecipients: 'on' }, { delivery: true });
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  it('sends each kind as automatic mail, with a Message-ID of the public URL’s host, valid HTML and paragraphs in its text', async () => {
    const account = await createAccount(app);
    // a submission's emails: the notification in the default layout and in the built-in starting
    // point, the autoresponder in its starting point, and a confirmation link to an outside address
    const leads = await createForm(app, account, { name: 'Leads', notificationEmails: [account.email, 'outside@example.net'] });
    const starter = await createForm(app, account, { name: 'Starter', notificationEmails: [account.email] });
    for (const [form, kind] of [
      [leads, 'autoresponder'],
      [starter, 'notification'],
    ] as const) {
      const put = await app.api('PUT', `/forms/${form.id}/templates/${kind}`, { token: account.token, body: { code: starterTemplate(kind) } });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal(put.body.paused, kind === 'autoresponder' ? false : null);
    }
    const fields = { name: 'Ada', email: 'ada@example.com', message: 'First line\nSecond line' };
    assert.equal((await postJson(app, leads.id, fields, visitor())).status, 200);
    assert.equal((await postJson(app, starter.id, { name: 'Bo', message: 'Hello' }, visitor())).status, 200);
    // the emails queued ready to send: template tests, account and workspace mail
    await app.ctx.templates.sendTest(account.userId, leads.id, 'notification', 'tester@example.com');
    await app.ctx.templates.sendTest(account.userId, leads.id, 'autoresponder', 'tester@example.com');
    await app.ctx.passwordResets.request(account.email);
    await app.ctx.workspaces.setPlan(account.workspaceId, 'DEALIFY', { tellOwners: true });
    await app.ctx.database.transaction((trx) => quotaNoticeJobs(trx, account.workspaceId, app.ctx.config));
    await app.ctx.invitations.invite(account.userId, account.workspaceId, 'invited@example.net');
    await app.ctx.tokens.createToken(account.userId, { name: 'ci', scopes: ['forms:read'], expiresAt: null }, { via: 'command line' });
    await app.ctx.signups.request('newcomer@example.net', async () => true);
    await app.ctx.signups.request(account.email, async () => true);
    // and the admin page's test, sent straight through the transport
    const test = await new MailCheckService(app.ctx.config).sendTest('admin@example.net');
    assert.ok('sent' in test, JSON.stringify(test));

    const kinds = [
      'notification (default layout)',
      'notification (starting point)',
      'autoresponder',
      'recipient confirmation',
      'notification test',
      'autoresponder test',
      'password reset',
      'plan change',
      'quota notice',
      'invitation',
      'token created',
      'sign-up link',
      'sign-up with a known address',
      'admin test',
    ];
    const mails = await sink.waitFor(kinds.length, 30_000);
    assert.equal(sink.messages.length, kinds.length, sink.messages.map((m) => m.parsed.subject).join('; '));

    const host = new URL(app.publicUrl).hostname;
    const findings: string[] = [];
    for (const { parsed } of mails) {
      const name = `${parsed.subject} (to ${addressesOf(parsed)})`;
      const automatic = parsed.headers.get('auto-submitted');
      if (automatic !== 'auto-generated' && automatic !== 'auto-replied') findings.push(`${name}: Auto-Submitted is ${String(automatic)}`);
      if (!parsed.messageId?.endsWith(`@${host}>`)) findings.push(`${name}: Message-ID ${parsed.messageId} is not of ${host}`);
      if (typeof parsed.html !== 'string') findings.push(`${name}: no HTML part`);
      else for (const problem of await emailHtmlProblems(parsed.html)) findings.push(`${name}: ${problem}`);
      if (!/\S\n\n\S/.test(parsed.text ?? '')) findings.push(`${name}: no blank line between paragraphs in the text part`);
    }
    assert.deepEqual(findings, []);

    const answer = mails.find((m) => m.envelopeTo.includes('ada@example.com'))!.parsed;
    assert.equal(answer.headers.get('auto-submitted'), 'auto-replied');
    assert.match(answer.text ?? '', /^Hello Ada,\n\nThank you for writing to us\. .*\n\nYour message:\n\nFirst line\nSecond line$/m);
  });
});

function addressesOf(parsed: ParsedMail): string {
  const to = parsed.to;
  return (Array.isArray(to) ? to : to ? [to] : []).map((a) => a.text).join(', ');
}
