// A submission whose deliveries were purged (FORMGATE_DELIVERY_RETENTION_DAYS) says so on its page; the pages keep working.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { purgeDeliveryRecords } from '../../src/jobs/delivery-purge.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const DAY = 86_400_000;
const from = visitorAddresses(62);

describe(`dashboard: deliveries past their retention (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: DashboardClient;
  let formId: string;
  let quietFormId: string;

  async function submit(form: string): Promise<string> {
    const answer = await postJson(app, form, { name: 'Ada' }, from());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id;
  }

  /** Moves a submission and its jobs `days` into the past, the jobs delivered then. */
  async function age(submissionId: string, days: number): Promise<void> {
    const at = Date.now() - days * DAY;
    await app.ctx.database.db.updateTable('submissions').set({ createdAt: at }).where('id', '=', submissionId).execute();
    await app.ctx.database.db.updateTable('jobs').set({ status: 'done', runAt: at, updatedAt: at }).where('submissionId', '=', submissionId).execute();
  }

  before(async () => {
    app = await startApp();
    owner = new DashboardClient(app);
    await owner.enter('/signup', 'owner@example.com', 'correct horse battery');
    const userId = (await app.ctx.users.requireByEmail('owner@example.com')).id;
    const [workspace] = (await app.ctx.workspaces.listForUser(userId, { limit: 10, after: null })).rows;
    formId = (await app.ctx.forms.createForm(userId, workspace!.id, { name: 'Contact', webhookUrl: 'https://hooks.example.com/formgate' })).id;
    quietFormId = (await app.ctx.forms.createForm(userId, workspace!.id, { name: 'Quiet' })).id;
  });
  after(() => app?.close());

  it('shows an old submission’s removed deliveries as no longer recorded, and a recent one’s as before', async () => {
    const old = await submit(formId);
    const recent = await submit(formId);
    const quiet = await submit(quietFormId);
    await age(old, 40);
    await age(recent, 2);
    const removed = await purgeDeliveryRecords(app.ctx.database, app.ctx.config);
    assert.equal(removed?.jobs, 1);

    const oldPage = await owner.get(`/submissions/${old}`);
    assert.equal(oldPage.status, 200);
    assert.match(oldPage.html, /No longer recorded: finished deliveries are kept for 30 days/);

    const recentPage = await owner.get(`/submissions/${recent}`);
    assert.equal(recentPage.status, 200);
    assert.match(recentPage.html, /<td data-label="Delivery">/);
    assert.doesNotMatch(recentPage.html, /No longer recorded/);

    const quietPage = await owner.get(`/submissions/${quiet}`);
    assert.match(quietPage.html, /None: the form sends no email notification/);

    const log = await owner.get(`/forms/${formId}/deliveries`);
    assert.equal(log.status, 200);
    assert.equal((log.html.match(/<td data-label="Delivery">/g) ?? []).length, 1, 'the log lists what is left');
  });
});
