import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NOT_VOUCHED } from '../../src/jobs/channels/autoresponder.js';
import { SCOPES } from '../../src/domain/scopes.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { createToken } from '../helpers/fixtures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { signUpStranger } from '../helpers/strangers.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const from = visitorAddresses(138);
const REPLY = '<p>Hi {{data.name}}, thanks for writing to us. We will reply within two working days.</p><p>The team</p>';

/**
 * Issue 38, item 9: team mode gives every workspace the autoresponder, and open sign-up gives anyone
 * a workspace, so a stranger's form could mail its words to any address a "visitor" typed. A
 * workspace the admin has not vouched for sends no autoresponder while sign-up is open; the admin's
 * own, and one the admin upgraded, answer as before.
 */
describe(`team mode with open sign-up: the autoresponder is no mail relay (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let adminToken: string;
  let adminWorkspace: string;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ signup: 'open', smtpUrl: sink.url }, { delivery: true });
    const admin = await app.ctx.users.createUser('admin@operator.example', 'a long enough password');
    assert.equal(admin.user.isAdmin, 1);
    await app.ctx.instance.setUsage('team');
    adminToken = await createToken(app, admin.user.id, SCOPES);
    adminWorkspace = admin.workspace.id;
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  async function formWithAutoresponder(token: string, workspaceId: string, notify: string): Promise<string> {
    const form = await app.api('POST', '/forms', { token, body: { workspaceId, name: 'Contact', notificationEmails: [notify] } });
    assert.equal(form.status, 201, JSON.stringify(form.body));
    const put = await app.api('PUT', `/forms/${form.body.id}/templates/autoresponder`, { token, body: { code: REPLY } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.paused, false, 'the content check passes it');
    return form.body.id;
  }

  async function finishedJob(submissionId: string, kind: string) {
    return eventually(
      async () =>
        app.ctx.database.db
          .selectFrom('jobs')
          .select(['status', 'lastError'])
          .where('submissionId', '=', submissionId)
          .where('kind', '=', kind)
          .where('status', 'in', ['done', 'failed'])
          .executeTakeFirst(),
      `the ${kind} job of ${submissionId} finished`,
    );
  }

  const mailsTo = (address: string) => sink.messages.filter((m) => m.envelopeTo.includes(address));

  it("a stranger's autoresponder mails nobody; the delivery log says why", async () => {
    const stranger = await signUpStranger(app, sink);
    const formId = await formWithAutoresponder(stranger.token, stranger.workspaceId, stranger.email);
    const victim = 'victim-1@elsewhere.example';
    const answer = await postJson(app, formId, { name: 'Buy now', email: victim, message: 'x' }, from());
    assert.equal(answer.status, 200, 'the submission is taken as ever');
    const job = await finishedJob(answer.body.id, 'autoresponder');
    assert.equal(job.status, 'failed');
    assert.equal(job.lastError, NOT_VOUCHED);
    // the member's notification went: the worker did run this submission's deliveries
    assert.equal((await finishedJob(answer.body.id, 'notification')).status, 'done');
    assert.equal(mailsTo(victim).length, 0, 'nothing reached the address the visitor typed');
  });

  it("the admin's own autoresponder keeps answering visitors", async () => {
    const formId = await formWithAutoresponder(adminToken, adminWorkspace, 'admin@operator.example');
    const visitor = 'ada-1@customers.example';
    const answer = await postJson(app, formId, { name: 'Ada', email: visitor, message: 'hello' }, from());
    assert.equal((await finishedJob(answer.body.id, 'autoresponder')).status, 'done');
    const [reply] = mailsTo(visitor);
    assert.ok(reply, 'the visitor got the answer');
    assert.match(String(reply.parsed.html), /Hi Ada, thanks for writing/);
  });

  it('a workspace the admin upgraded answers too (the admin vouched for it)', async () => {
    const stranger = await signUpStranger(app, sink, 'vouched');
    const formId = await formWithAutoresponder(stranger.token, stranger.workspaceId, stranger.email);
    await app.ctx.workspaces.setPlan(stranger.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const visitor = 'bob-1@customers.example';
    const answer = await postJson(app, formId, { name: 'Bob', email: visitor, message: 'hello' }, from());
    assert.equal((await finishedJob(answer.body.id, 'autoresponder')).status, 'done');
    assert.equal(mailsTo(visitor).length, 1);
  });
});
