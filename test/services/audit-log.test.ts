import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { startSubmissionRetention } from '../../src/jobs/submission-retention.js';
import { until } from '../helpers/eventually.js';
import { insertSubmission } from '../helpers/export.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { collectingLogger } from '../helpers/log-lines.js';

/** Issue 43, item 4: what an event holds of its request, and a change whose event cannot be written. */
describe(`the audit log's recording (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
  });
  after(() => app.close());

  const newest = () => app.ctx.database.db.selectFrom('auditEvents').selectAll().orderBy('at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();

  it('keeps the client’s address and its user agent, cut to 256 characters', async () => {
    const agent = `Agent/${'x'.repeat(400)}`;
    const made = await app.api('POST', '/forms', {
      token: owner.token,
      headers: { 'user-agent': agent },
      body: { workspaceId: owner.workspaceId, name: 'Agent' },
    });
    assert.equal(made.status, 201);
    const event = await newest();
    assert.equal(event.action, 'form.created');
    assert.equal(event.ip, '127.0.0.1');
    assert.equal([...(event.userAgent ?? '')].length, 256);
    assert.ok(event.userAgent?.startsWith('Agent/xxx') && event.userAgent.endsWith('…'));
  });

  it('names no one outside a request: a job of `serve` is the system', async () => {
    await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'By a job' });
    const event = await newest();
    assert.deepEqual({ via: event.via, actorUserId: event.actorUserId, ip: event.ip }, { via: 'system', actorUserId: null, ip: null });
  });

  it('records a form’s retention as Formgate’s deletion, with how many went', async () => {
    const form = await createForm(app, owner, { retentionDays: 1 });
    for (const age of [2, 3]) await insertSubmission(app, form, { message: 'old' }, Date.now() - age * 86_400_000);
    const stop = startSubmissionRetention(app.ctx, collectingLogger().logger);
    try {
      await until('the retention’s event', async () => (await newest()).action === 'submissions.deleted');
    } finally {
      stop();
    }
    const event = await newest();
    assert.deepEqual(
      {
        via: event.via,
        actorUserId: event.actorUserId,
        workspaceId: event.workspaceId,
        targetId: event.targetId,
        details: JSON.parse(event.details ?? 'null'),
      },
      { via: 'system', actorUserId: null, workspaceId: owner.workspaceId, targetId: form.id, details: { count: 2, by: 'retention' } },
    );
  });

  it('fails the change when its event cannot be written, and the change is not kept', async () => {
    const before = await app.ctx.database.db.selectFrom('forms').select('id').execute();
    await sql`DROP TABLE audit_events`.execute(app.ctx.database.db);
    const refused = await app.api('POST', '/forms', { token: owner.token, body: { workspaceId: owner.workspaceId, name: 'Unrecorded' } });
    assert.equal(refused.status, 500);
    assert.equal(refused.body.code, 'internal_error');
    assert.deepEqual(await app.ctx.database.db.selectFrom('forms').select('id').execute(), before, 'the form was not made: it went with its event');
  });
});
