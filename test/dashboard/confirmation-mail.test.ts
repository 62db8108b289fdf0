import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONFIRMATION_SUBJECT } from '../../src/mail/recipient-confirmation-mail.js';
import { INVITATIONS_PER_HOUR, INVITATIONS_PER_INSTANCE_HOUR } from '../../src/services/invitations.js';
import { CONFIRMATIONS_PER_INSTANCE_HOUR, CONFIRMATIONS_PER_WORKSPACE_HOUR } from '../../src/services/recipients.js';
import { SCOPES } from '../../src/domain/scopes.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { createToken, type Account } from '../helpers/fixtures.js';
import { invite, loggedIn, person } from '../helpers/members.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

const LURE = 'WIN $500 at https://prize.evil.example/claim or call +1 555 0100 now!!! Reply to winner@evil.example';

/**
 * Issue 38, item 10: the confirmation email goes to an address a workspace's owner chose, so the
 * owner's words (the workspace's name, with its links) stay out of its subject and are quoted
 * inertly in its body, and fresh open sign-ups cannot add the per-workspace allowance up without
 * limit: the instance sends at most CONFIRMATIONS_PER_INSTANCE_HOUR links an hour for workspaces
 * its admin has not vouched for.
 */
describe(`confirmation emails: no owner's words in the subject, none clickable in the body, a cap per instance (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let admin: Account;
  let strangers = 0;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ signup: 'open', smtpUrl: sink.url, confirmRecipients: 'on', metrics: 'on' }, { delivery: true });
    const first = await app.ctx.users.createUser('admin@operator.example', 'a long enough password');
    admin = { userId: first.user.id, email: first.user.email, workspaceId: first.workspace.id, token: await createToken(app, first.user.id, SCOPES) };
    // team mode: a stranger's FREE workspace has the API too (the setup page's default)
    await app.ctx.instance.setUsage('team');
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  /** A workspace of an account that is not the admin's, on FREE: what open sign-up makes. */
  async function stranger(): Promise<Account> {
    const { user, workspace } = await app.ctx.users.createUser(`stranger-${++strangers}@strangers.example`, 'a long enough password');
    return { userId: user.id, email: user.email, workspaceId: workspace.id, token: await createToken(app, user.id, SCOPES) };
  }

  async function formListing(owner: Account, notificationEmails: string[], name = 'Contact'): Promise<string> {
    const answer = await app.api('POST', '/forms', { token: owner.token, body: { workspaceId: owner.workspaceId, name, notificationEmails } });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body.id;
  }

  const confirmationsTo = (address: string) => sink.messages.filter((m) => m.envelopeTo.includes(address) && m.parsed.subject === CONFIRMATION_SUBJECT);
  const linksSent = async () =>
    Number(
      (
        await app.ctx.database.db
          .selectFrom('recipientConfirmations')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('lastSentAt', 'is not', null)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('has a fixed subject and quotes the workspace and form names in the body with nothing to click', async () => {
    const owner = await stranger();
    assert.equal((await app.api('PATCH', `/workspaces/${owner.workspaceId}`, { token: owner.token, body: { name: LURE } })).status, 200);
    const target = 'target-1@elsewhere.example';
    await formListing(owner, [target], 'Visit www.evil.example/form');
    await until('the confirmation email', () => confirmationsTo(target).length === 1);
    const [mail] = confirmationsTo(target);
    assert.equal(mail!.parsed.subject, 'Do you want form notifications from a workspace on Formgate?');
    const text = mail!.parsed.text ?? '';
    const html = String(mail!.parsed.html);
    assert.match(
      text,
      /of the workspace “WIN \$500 at https\[:\]\[\/\]\[\/\]prize\[\.\]evil\[\.\]example\[\/\]claim or call \+1 555 …”/,
      'one line, 60 characters, every link-maker bracketed',
    );
    assert.match(text, /“Visit www\[\.\]evil\[\.\]example\[\/\]form”/);
    for (const body of [text, html]) {
      assert.doesNotMatch(body, /evil\.example|https:\/\/prize|winner@/, 'no link, host or address of the owner’s in the email');
    }
    assert.ok(text.includes(`${owner.email}, of the workspace`), 'who asked is still named');
  });

  it(`sends at most ${CONFIRMATIONS_PER_INSTANCE_HOUR} links an hour for strangers' workspaces; past it the address waits, the owner is told why, and the admin's still go`, async () => {
    // strangers' workspaces, each within its own hourly allowance, until the instance's is used up
    let sent = await linksSent();
    let n = 0;
    while (sent < CONFIRMATIONS_PER_INSTANCE_HOUR) {
      const owner = await stranger();
      const count = Math.min(CONFIRMATIONS_PER_WORKSPACE_HOUR, CONFIRMATIONS_PER_INSTANCE_HOUR - sent);
      await formListing(
        owner,
        Array.from({ length: count }, () => `filler-${++n}@elsewhere.example`),
      );
      sent = await linksSent();
    }
    assert.equal(sent, CONFIRMATIONS_PER_INSTANCE_HOUR);

    const late = await stranger();
    const target = 'target-2@elsewhere.example';
    const formId = await formListing(late, [target]);
    assert.equal(await linksSent(), CONFIRMATIONS_PER_INSTANCE_HOUR, 'no link past the instance’s allowance');
    const row = await app.ctx.database.db.selectFrom('recipientConfirmations').selectAll().where('email', '=', target).executeTakeFirstOrThrow();
    assert.equal(row.state, 'pending');
    assert.equal(row.lastSentAt, null, 'the form is saved whole; the address waits, unsent');

    // the owner's Send link says why
    const client = await loggedIn(app, late.email);
    const settings = await client.get(`/forms/${formId}/settings`);
    assert.equal(settings.status, 200);
    const resend = await client.post(`/forms/${formId}/settings/recipients/resend`, { resend: target });
    const page = resend.location ? await client.get(resend.location) : resend;
    assert.match(
      page.html,
      new RegExp(`This instance sends at most ${CONFIRMATIONS_PER_INSTANCE_HOUR} confirmation links an hour for workspaces made through open sign-up`),
    );
    assert.equal(await linksSent(), CONFIRMATIONS_PER_INSTANCE_HOUR);

    // the admin's workspace is vouched for: its link goes
    const mine = 'colleague@elsewhere.example';
    await formListing(admin, [mine]);
    await until('the admin’s confirmation email', () => confirmationsTo(mine).length === 1);

    const metrics = await app.fetch('GET', `${app.publicUrl}/metrics`);
    assert.match(String(metrics.body), /formgate_confirmation_links_withheld_total\{by="instance"\} [1-9]/);
  });

  it('an invitation, which also goes to an address of the owner’s choosing, keeps the workspace name out of its subject and quotes it inertly', async () => {
    const owner = await person(app, 'inviter');
    const token = await createToken(app, owner.userId, SCOPES);
    assert.equal((await app.api('PATCH', `/workspaces/${owner.workspaceId}`, { token, body: { name: LURE } })).status, 200);
    const target = 'invited-1@elsewhere.example';
    await invite(owner, target);
    await until('the invitation', () => sink.messages.some((m) => m.envelopeTo.includes(target)));
    const mail = sink.messages.find((m) => m.envelopeTo.includes(target))!;
    assert.equal(mail.parsed.subject, `${owner.email} invited you to a workspace on Formgate`);
    assert.match(mail.parsed.text ?? '', /join the workspace “WIN \$500 at https\[:\]\[\/\]\[\/\]prize\[\.\]evil/);
    for (const body of [mail.parsed.text ?? '', String(mail.parsed.html)]) assert.doesNotMatch(body, /evil\.example|https:\/\/prize/);
  });

  it(`sends at most ${INVITATIONS_PER_INSTANCE_HOUR} invitations an hour for strangers' workspaces; the admin's still go`, async () => {
    const invitationsSent = async () =>
      Number(
        (
          await app.ctx.database.db
            .selectFrom('invitations')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    let n = 0;
    while ((await invitationsSent()) < INVITATIONS_PER_INSTANCE_HOUR) {
      const owner = await stranger();
      const room = Math.min(INVITATIONS_PER_HOUR, INVITATIONS_PER_INSTANCE_HOUR - (await invitationsSent()));
      for (let i = 0; i < room; i++) await app.ctx.invitations.invite(owner.userId, owner.workspaceId, `invitee-${++n}@elsewhere.example`);
    }
    const late = await person(app, 'late-inviter');
    await late.client.get(`/w/${late.workspaceId}/members`);
    const refused = await late.client.post(`/w/${late.workspaceId}/invitations`, { email: 'one-more@elsewhere.example' });
    assert.equal(refused.status, 429, refused.html.slice(0, 300));
    assert.match(
      refused.html,
      new RegExp(`This instance sends at most ${INVITATIONS_PER_INSTANCE_HOUR} invitations an hour for workspaces made through open sign-up`),
    );
    assert.equal(await invitationsSent(), INVITATIONS_PER_INSTANCE_HOUR, 'nothing was recorded or sent');

    await app.ctx.invitations.invite(admin.userId, admin.workspaceId, 'new-colleague@operator.example');
    assert.equal(await invitationsSent(), INVITATIONS_PER_INSTANCE_HOUR + 1, "the admin's workspace is vouched for");
  });
});
