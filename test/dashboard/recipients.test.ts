import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONFIRMATIONS_PER_ADDRESS_HOUR, CONFIRMATIONS_PER_WORKSPACE_HOUR } from '../../src/services/recipients.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { eventually } from '../helpers/eventually.js';
import { createToken } from '../helpers/fixtures.js';
import { flashOf, person, type Person } from '../helpers/members.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const from = visitorAddresses(31);

/**
 * Issue 24, item 5: an address outside a workspace's team gets that workspace's notifications only
 * once it confirmed a link emailed to it once, and none after declining; members' addresses at once.
 */
describe('notification addresses confirm before they receive', () => {
  let app: TestApp;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url, confirmRecipients: 'on' }, { delivery: true });
  });
  after(async () => {
    await app.close();
    await sink.close();
  });

  /** An owner on an upgraded workspace, logged in, with an API token. */
  async function owner(name: string): Promise<Person & { token: string }> {
    const someone = await person(app, name);
    await app.ctx.workspaces.setPlan(someone.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    return { ...someone, token: await createToken(app, someone.userId, ['forms:read', 'forms:write', 'submissions:read']) };
  }

  async function createForm(by: { token: string; workspaceId: string }, notificationEmails: string[], name = 'Contact'): Promise<{ id: string }> {
    const answer = await app.api('POST', '/forms', { token: by.token, body: { workspaceId: by.workspaceId, name, notificationEmails } });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.notificationEmails, notificationEmails, 'the Form resource keeps its list of strings as set');
    return answer.body;
  }

  const mailsTo = (address: string) => sink.messages.filter((m) => m.envelopeTo.includes(address));
  const confirmationsTo = (address: string) => mailsTo(address).filter((m) => /form notifications from/.test(m.parsed.subject ?? ''));
  const notificationsTo = (address: string) => mailsTo(address).filter((m) => !/form notifications from/.test(m.parsed.subject ?? ''));

  async function confirmationLink(address: string): Promise<string> {
    const mail = await eventually(async () => confirmationsTo(address).at(-1), `a confirmation email to ${address}`);
    const link = /https?:\/\/[^\s]+(\/recipients\/[A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? '');
    assert.ok(link, `the email links to its page: ${mail.parsed.text}`);
    return link[1]!;
  }

  /** The notification job of the submission for `address`, once the worker has finished with it. */
  async function notificationJob(submissionId: string, address: string) {
    return eventually(async () => {
      const jobs = await app.ctx.database.db
        .selectFrom('jobs')
        .select(['status', 'lastError', 'payload'])
        .where('submissionId', '=', submissionId)
        .where('kind', '=', 'notification')
        .where('status', '!=', 'pending')
        .execute();
      return jobs.find((job) => JSON.stringify(job.payload).includes(address));
    }, `the notification of ${submissionId} to ${address} is done or failed`);
  }

  async function submit(formId: string, message: string): Promise<string> {
    const answer = await postJson(app, formId, { message }, from());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id;
  }

  /** Answers a link's page as the person who got it: a browser of its own, no login. */
  async function answer(path: string, choice: 'confirm' | 'decline'): Promise<string> {
    const visitor = new DashboardClient(app);
    const page = await visitor.get(path);
    assert.equal(page.status, 200);
    const posted = await visitor.post(path, { answer: choice });
    assert.equal(posted.status, 303, posted.html.slice(0, 300));
    assert.equal(posted.location, path);
    return (await visitor.get(path)).html;
  }

  it('mails a stranger a link once, sends nothing until it confirms, then every notification, and none after it declines', async () => {
    const ann = await owner('ann');
    const stranger = 'stranger-1@example.net';
    const form = await createForm(ann, [stranger, ann.email]);

    const path = await confirmationLink(stranger);
    const [confirmation] = confirmationsTo(stranger);
    assert.equal(confirmation!.parsed.subject, 'Do you want form notifications from a workspace on Formgate?');
    assert.match(confirmation!.parsed.text!, new RegExp(`${ann.email.replace('.', '\\.')}, of the workspace`), 'the email names who asked');
    assert.match(confirmation!.parsed.text!, /“Contact”/, 'and the forms that list the address');

    // before confirming: the member gets it at once, the stranger not, and the log says why
    const first = await submit(form.id, 'first');
    assert.equal((await notificationJob(first, ann.email)).status, 'done');
    const withheld = await notificationJob(first, stranger);
    assert.equal(withheld.status, 'failed');
    assert.match(withheld.lastError!, /waiting for confirmation/);
    assert.equal(notificationsTo(stranger).length, 0);
    // the owner reads why on the form's delivery log
    const log = await ann.client.get(`/forms/${form.id}/deliveries`);
    assert.match(log.html, new RegExp(`Not sent: waiting for confirmation\\. ${stranger.replace('.', '\\.')} is not a member of this workspace`));
    // the link's secret is not kept in the outbox once the email went out
    await eventually(async () => {
      const jobs = await app.ctx.database.db.selectFrom('jobs').select(['payload', 'status']).where('kind', '=', 'email').execute();
      const mine = jobs.filter((job) => JSON.stringify(job.payload).includes(stranger));
      return mine.length === 1 && mine[0]!.status === 'done' && !JSON.stringify(mine[0]!.payload).includes('/recipients/');
    }, 'the sent confirmation email keeps no link');

    // opening the link (as a mail scanner does) changes nothing; the button does
    const scanner = await fetch(`${app.publicUrl}${path}`);
    assert.equal(scanner.status, 200);
    assert.match(await scanner.text(), /Do you want these form notifications\?/);
    const confirmedPage = await answer(path, 'confirm');
    assert.match(confirmedPage, /You receive these form notifications/);
    assert.equal(flashOf(confirmedPage), 'Confirmed: you will receive these notifications');

    // the one withheld before can be sent now: "Retry all failed" on the delivery log
    assert.equal((await app.ctx.deliveries.retryForMember(ann.userId, form.id, { allFailed: true })).length, 1);
    await eventually(async () => notificationsTo(stranger).find((m) => m.parsed.text?.includes('first')), 'the retried first reaches the stranger');

    const second = await submit(form.id, 'second');
    assert.equal((await notificationJob(second, stranger)).status, 'done');
    const received = await eventually(async () => notificationsTo(stranger).find((m) => m.parsed.text?.includes('second')), 'the stranger gets the second');
    assert.ok(received);

    const declinedPage = await answer(path, 'decline');
    assert.match(declinedPage, /You declined these form notifications/);
    const third = await submit(form.id, 'third');
    const refused = await notificationJob(third, stranger);
    assert.equal(refused.status, 'failed');
    assert.match(refused.lastError!, /declined/);
    assert.equal((await notificationJob(third, ann.email)).status, 'done', 'the member still gets it');
    assert.equal(notificationsTo(stranger).filter((m: ReceivedMail) => m.parsed.text?.includes('third')).length, 0);
    assert.equal(confirmationsTo(stranger).length, 1, 'one link in all');
  });

  it('asks once per workspace: the address on a second form, a PATCH, removed and added again sends no new link', async () => {
    const bea = await owner('bea');
    const stranger = 'stranger-2@example.net';
    const form = await createForm(bea, [stranger]);
    await confirmationLink(stranger);
    await createForm(bea, ['other-2@example.net', stranger.toUpperCase()], 'Quotes');
    assert.equal((await app.api('PATCH', `/forms/${form.id}`, { token: bea.token, body: { notificationEmails: [] } })).status, 200);
    assert.equal((await app.api('PATCH', `/forms/${form.id}`, { token: bea.token, body: { notificationEmails: [stranger] } })).status, 200);
    await confirmationLink('other-2@example.net');
    const rows = await app.ctx.database.db
      .selectFrom('recipientConfirmations')
      .select('email')
      .where('workspaceId', '=', bea.workspaceId)
      .orderBy('email')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.email),
      ['other-2@example.net', stranger],
    );
    assert.equal(confirmationsTo(stranger).length, 1);

    // "Send link again" waits an hour after the last link
    await bea.client.get(`/forms/${form.id}/settings`);
    const resend = await bea.client.post(`/forms/${form.id}/settings/recipients/resend`, { resend: stranger });
    assert.equal(resend.status, 303);
    const settings = await bea.client.get(resend.location!);
    assert.match(flashOf(settings.html)!, /^Not sent: A link went to stranger-2@example\.net less than an hour ago/);
  });

  it("needs no confirmation for a member's address, and asks for one once that member leaves", async () => {
    const cai = await owner('cai');
    const dee = await person(app, 'dee');
    await app.ctx.workspaces.addMember(cai.workspaceId, dee.email);
    const form = await createForm(cai, [dee.email]);
    const first = await submit(form.id, 'while a member');
    assert.equal((await notificationJob(first, dee.email)).status, 'done');
    assert.equal(confirmationsTo(dee.email).length, 0, 'a member is not asked');

    await app.ctx.team.removeMember(cai.userId, cai.workspaceId, dee.userId);
    await confirmationLink(dee.email);
    const second = await submit(form.id, 'after leaving');
    const withheld = await notificationJob(second, dee.email);
    assert.equal(withheld.status, 'failed');
    assert.match(withheld.lastError!, /waiting for confirmation/);
  });

  it("a workspace's link confirms for that workspace only", async () => {
    const eve = await owner('eve');
    const fay = await owner('fay');
    const stranger = 'stranger-3@example.net';
    const eveForm = await createForm(eve, [stranger]);
    const eveLink = await confirmationLink(stranger);
    const fayForm = await createForm(fay, [stranger]);
    const fayLink = await eventually(async () => (confirmationsTo(stranger).length === 2 ? confirmationLink(stranger) : null), 'the second workspace asks too');
    assert.notEqual(fayLink, eveLink);
    assert.match((await new DashboardClient(app).get(fayLink)).html, /Do you want these form notifications\?/);

    await answer(eveLink, 'confirm');
    assert.equal((await notificationJob(await submit(eveForm.id, 'to eve'), stranger)).status, 'done');
    const fays = await notificationJob(await submit(fayForm.id, 'to fay'), stranger);
    assert.equal(fays.status, 'failed', "confirming eve's workspace does not confirm fay's");
    const states = await app.ctx.database.db
      .selectFrom('recipientConfirmations')
      .select(['workspaceId', 'state'])
      .where('email', '=', stranger)
      .orderBy('state')
      .execute();
    assert.deepEqual(states, [
      { workspaceId: eve.workspaceId, state: 'confirmed' },
      { workspaceId: fay.workspaceId, state: 'pending' },
    ]);
    // a made-up or altered link opens nothing
    const altered = `${eveLink.slice(0, -1)}${eveLink.endsWith('A') ? 'B' : 'A'}`;
    assert.equal((await new DashboardClient(app).get(altered)).status, 404);
    const visitor = new DashboardClient(app);
    await visitor.get(eveLink);
    assert.equal((await visitor.post(altered, { answer: 'decline' })).status, 404);
  });

  it('refuses an answer without the CSRF token or from another site, and changes nothing', async () => {
    const gus = await owner('gus');
    const stranger = 'stranger-4@example.net';
    await createForm(gus, [stranger]);
    const link = await confirmationLink(stranger);
    const visitor = new DashboardClient(app);
    await visitor.get(link);
    assert.equal((await visitor.post(link, { _csrf: 'forged', answer: 'confirm' })).status, 403);
    assert.equal((await visitor.post(link, { answer: 'confirm' }, { origin: 'https://evil.example' })).status, 403);
    const row = await app.ctx.database.db.selectFrom('recipientConfirmations').select('state').where('email', '=', stranger).executeTakeFirstOrThrow();
    assert.equal(row.state, 'pending');
  });

  it(`sends at most ${CONFIRMATIONS_PER_WORKSPACE_HOUR} links an hour per workspace; the rest wait, shown on the settings page, and the form is saved whole`, async () => {
    const hal = await owner('hal');
    const addresses = Array.from({ length: CONFIRMATIONS_PER_WORKSPACE_HOUR + 3 }, (_, i) => `many-${i}@example.org`);
    const form = await createForm(hal, addresses);
    const rows = await app.ctx.database.db
      .selectFrom('recipientConfirmations')
      .select(['email', 'lastSentAt'])
      .where('workspaceId', '=', hal.workspaceId)
      .execute();
    assert.equal(rows.length, addresses.length);
    assert.equal(rows.filter((r) => r.lastSentAt !== null).length, CONFIRMATIONS_PER_WORKSPACE_HOUR);
    await eventually(
      async () => addresses.filter((a) => confirmationsTo(a).length > 0).length === CONFIRMATIONS_PER_WORKSPACE_HOUR,
      'the allowed links arrive',
    );

    const page = await hal.client.get(`/forms/${form.id}/settings`);
    assert.equal((page.html.match(/Waiting for confirmation: no link sent yet/g) ?? []).length, 3);
    assert.equal((page.html.match(/Waiting for confirmation: link sent/g) ?? []).length, CONFIRMATIONS_PER_WORKSPACE_HOUR);
    const unsent = rows.find((r) => r.lastSentAt === null)!.email;
    const resend = await hal.client.post(`/forms/${form.id}/settings/recipients/resend`, { resend: unsent });
    assert.match(flashOf((await hal.client.get(resend.location!)).html)!, /^Not sent: A workspace can send at most 20 confirmation links an hour/);
  });

  it(`mails one address at most ${CONFIRMATIONS_PER_ADDRESS_HOUR} links an hour from all workspaces together`, async () => {
    const target = 'popular-6@example.net';
    const owners = [];
    for (let i = 0; i <= CONFIRMATIONS_PER_ADDRESS_HOUR; i++) {
      const someone = await owner(`many-${i}`);
      await createForm(someone, [target]);
      owners.push(someone);
    }
    const rows = await app.ctx.database.db.selectFrom('recipientConfirmations').select(['workspaceId', 'lastSentAt']).where('email', '=', target).execute();
    assert.equal(rows.length, CONFIRMATIONS_PER_ADDRESS_HOUR + 1, 'every workspace records it');
    assert.equal(rows.filter((r) => r.lastSentAt !== null).length, CONFIRMATIONS_PER_ADDRESS_HOUR);
    const last = owners.at(-1)!;
    assert.equal(rows.find((r) => r.workspaceId === last.workspaceId)!.lastSentAt, null, 'the last one waits');
    await eventually(async () => confirmationsTo(target).length === CONFIRMATIONS_PER_ADDRESS_HOUR, 'the allowed links arrive');
  });

  it('shows each address’s state beside it on the settings page', async () => {
    const ida = await owner('ida');
    const confirmed = 'yes-5@example.net';
    const declined = 'no-5@example.net';
    const waiting = 'later-5@example.net';
    const form = await createForm(ida, [ida.email, confirmed, declined, waiting]);
    await answer(await confirmationLink(confirmed), 'confirm');
    await answer(await confirmationLink(declined), 'decline');
    const html = (await ida.client.get(`/forms/${form.id}/settings`)).html;
    assert.match(html, /Member of this workspace: receives notifications\./);
    assert.match(html, /Confirmed: receives notifications\./);
    assert.match(html, /Declined: receives no notifications\./);
    assert.match(html, /Waiting for confirmation: link sent/);
    assert.equal((html.match(/Send link again/g) ?? []).length, 1, 'only the waiting address has the button');
  });
});

describe('FORMGATE_CONFIRM_RECIPIENTS=off', () => {
  it('sends to any address at once and mails no link', async () => {
    const sink = await startSmtpSink();
    const app = await startApp({ smtpUrl: sink.url, confirmRecipients: 'off' }, { delivery: true });
    try {
      const someone = await person(app, 'jo');
      await app.ctx.workspaces.setPlan(someone.workspaceId, 'BUNDLE_50000', { tellOwners: false });
      const token = await createToken(app, someone.userId, ['forms:write']);
      const created = await app.api('POST', '/forms', {
        token,
        body: { workspaceId: someone.workspaceId, name: 'C', notificationEmails: ['anyone@example.net'] },
      });
      assert.equal(created.status, 201);
      assert.equal((await postJson(app, created.body.id, { message: 'hi' }, from())).status, 200);
      const [mail] = await sink.waitFor(1);
      assert.deepEqual(mail!.envelopeTo, ['anyone@example.net']);
      assert.doesNotMatch(mail!.parsed.subject ?? '', /form notifications from/);
      const rows = await app.ctx.database.db.selectFrom('recipientConfirmations').selectAll().execute();
      assert.equal(rows.length, 0);
    } finally {
      await app.close();
      await sink.close();
    }
  });
});
