import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { flashOf, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const visitor = visitorAddresses(62);
const REPLY = '<p>Thanks, {{data.name}}: we will write back.</p>';

/**
 * Issue 39, item 1: a submission that was in the inbox, marked as spam and then "Not spam", goes
 * back as it was: the deliveries it got when it first came (autoresponder, notification, webhook)
 * are not sent again and it is not counted against the allowance a second time. One the filter
 * caught still gets its deliveries and counts, once, however many clicks arrive at once.
 */
describe(`dashboard: Not spam sends only what never went out (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await startWebhookReceiver();
    app = await startApp({ allowPrivateWebhooks: 'true' }, { delivery: true });
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
  });

  /** An upgraded owner (the autoresponder is a paid feature) with a form that notifies the owner, answers the visitor and posts a webhook. */
  async function deliveringForm(name: string): Promise<{ owner: Person; formId: string }> {
    const owner = await person(app, name);
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const form = await app.ctx.forms.createForm(owner.userId, owner.workspaceId, {
      name: 'Contact',
      notificationEmails: [owner.email],
      webhookUrl: receiver.url,
    });
    await app.ctx.templates.putTemplate(owner.userId, form.id, 'autoresponder', REPLY);
    return { owner, formId: form.id };
  }

  async function submit(formId: string, fields: Record<string, unknown>): Promise<string> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id as string;
  }

  /** Each of the submission's deliveries as "kind status", sorted. */
  async function deliveriesOf(submissionId: string): Promise<string[]> {
    const jobs = await app.ctx.database.db.selectFrom('jobs').select(['kind', 'status']).where('submissionId', '=', submissionId).execute();
    return jobs.map((job) => `${job.kind} ${job.status}`).sort();
  }

  const webhooksOf = (submissionId: string) => receiver.requests.filter((r) => r.headers['webhook-id'] === submissionId).length;
  const used = async (owner: Person) => (await app.ctx.workspaces.getForMember(owner.userId, owner.workspaceId)).submissionsUsed;

  /** Waits until every delivery of the submission is done. */
  async function delivered(submissionId: string): Promise<void> {
    await eventually(async () => {
      const kinds = await deliveriesOf(submissionId);
      return kinds.length === 3 && kinds.every((kind) => kind.endsWith(' done'));
    }, `the deliveries of ${submissionId}`);
  }

  /**
   * Nothing more goes out for `submissionId`: a later submission's webhook has arrived, so the worker
   * has claimed since, and the receiver still has the one webhook of the first.
   */
  async function nothingMoreSentFor(formId: string, submissionId: string): Promise<void> {
    const later = await submit(formId, { name: 'Later', email: 'later@example.com' });
    await delivered(later);
    assert.equal(webhooksOf(later), 1);
    assert.equal(webhooksOf(submissionId), 1, 'one webhook, not a second');
  }

  it('a delivered submission marked as spam and then Not spam (its page) is neither sent nor counted again', async () => {
    const { owner, formId } = await deliveringForm('notspam-once');
    const id = await submit(formId, { name: 'Ada', email: 'ada@example.com', message: 'Hello' });
    await delivered(id);
    const counted = await used(owner);
    const before = await deliveriesOf(id);
    assert.deepEqual(before, ['autoresponder done', 'notification done', 'webhook done']);

    await owner.client.get(`/submissions/${id}`);
    assert.equal((await owner.client.post(`/submissions/${id}/spam`, {})).status, 303);
    await owner.client.get(`/forms/${formId}/spam`);
    const moved = await owner.client.post(`/submissions/${id}/not-spam`, { back: `/submissions/${id}` });
    assert.equal(moved.status, 303);
    const page = await owner.client.get(`/submissions/${id}`);
    assert.equal(flashOf(page.html), 'Moved back to the inbox; its deliveries were made when it first came and are not sent again');
    assert.match(page.html, /<span class="badge">Accepted<\/span>/);

    assert.deepEqual(await deliveriesOf(id), before, 'no delivery queued again');
    assert.equal(await used(owner), counted, 'counted once against the allowance');
    await nothingMoreSentFor(formId, id);
  });

  it('the inbox’s bulk Mark as spam, then Not spam: each goes back as it was, even with the allowance used up meanwhile', async () => {
    const { owner, formId } = await deliveringForm('notspam-bulk');
    const ids = [await submit(formId, { name: 'Grace', email: 'grace@example.com' }), await submit(formId, { name: 'Hedy', email: 'hedy@example.com' })];
    for (const id of ids) await delivered(id);
    const counted = await used(owner);

    await owner.client.get(`/forms/${formId}`);
    const marked = await owner.client.post(`/forms/${formId}/bulk`, [...ids.map((id): [string, string] => ['id', id]), ['action', 'spam']]);
    assert.equal(marked.status, 303);
    assert.equal(flashOf((await owner.client.get(`/forms/${formId}`)).html), '2 submissions moved to the spam folder');
    // the allowance used up since: they were counted when they came, so they are not held now
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 50_000 }).where('id', '=', owner.workspaceId).execute();
    for (const id of ids) {
      await owner.client.get(`/forms/${formId}/spam`);
      assert.equal((await owner.client.post(`/submissions/${id}/not-spam`, {})).status, 303);
    }
    for (const id of ids) {
      const row = await app.ctx.database.db.selectFrom('submissions').select('status').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.status, 'accepted');
      assert.deepEqual(await deliveriesOf(id), ['autoresponder done', 'notification done', 'webhook done']);
    }
    assert.equal(await used(owner), 50_000, 'nothing counted');
    const notices = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
    assert.equal(notices.filter((job) => JSON.stringify(job.payload).includes(owner.email)).length, 0, 'no allowance notice');
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: counted }).where('id', '=', owner.workspaceId).execute();
    for (const id of ids) assert.equal(webhooksOf(id), 1);
  });

  it('spam the filter caught: Not spam counts it and queues its deliveries once, however many clicks arrive at once; again after a second Mark as spam, nothing', async () => {
    const { owner, formId } = await deliveringForm('notspam-caught');
    const id = await submit(formId, { name: 'Kim', email: 'kim@example.com', message: 'See <script>quokka()</script>' });
    const row = await app.ctx.database.db.selectFrom('submissions').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'spam');
    const counted = await used(owner);

    await owner.client.get(`/forms/${formId}/spam`);
    const answers = await Promise.all([1, 2, 3].map(() => owner.client.post(`/submissions/${id}/not-spam`, {})));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [303, 409, 409], 'one click moves it, the others find it moved');
    await delivered(id);
    assert.equal(await used(owner), counted + 1, 'counted once');

    await owner.client.get(`/submissions/${id}`);
    await owner.client.post(`/submissions/${id}/spam`, {});
    await owner.client.get(`/forms/${formId}/spam`);
    assert.equal((await owner.client.post(`/submissions/${id}/not-spam`, {})).status, 303);
    assert.deepEqual(await deliveriesOf(id), ['autoresponder done', 'notification done', 'webhook done']);
    assert.equal(await used(owner), counted + 1);
    await nothingMoreSentFor(formId, id);
  });
});
