import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertJson, assertProblem, assertValidation } from '../helpers/problems.js';
import { postJson } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Issue 42, item 2: REST-hook subscriptions of automation platforms, their events and their sample. */
describe(`hooks: subscriptions and their events (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let stranger: Account;
  let form: any;
  let other: any;
  const receivers: WebhookReceiver[] = [];

  const receiver = async (mode: Parameters<typeof startWebhookReceiver>[0] = { status: 200 }) => {
    const started = await startWebhookReceiver(mode);
    receivers.push(started);
    return started;
  };
  const subscribe = (body: unknown, token = owner.token) => app.api('POST', '/hooks', { token, body });
  const bodiesOf = (r: WebhookReceiver) => r.requests.map((request) => JSON.parse(request.rawBody));

  before(async () => {
    app = await startApp({ allowPrivateWebhooks: '1', metrics: 'on' }, { delivery: true });
    owner = await createAccount(app);
    stranger = await createAccount(app);
    form = await createForm(app, owner, { name: 'Contact', customSpamWords: 'casino' });
    other = await createForm(app, owner, { name: 'Other' });
  });
  after(async () => {
    await app.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('subscribes, posts each new submission as a Submission signed with the hook’s secret, and lists the hook without its secret', async () => {
    const target = await receiver();
    const made = await subscribe({ targetUrl: target.url, event: 'submission.created', formId: form.id });
    assertJson(made, 201);
    assert.deepEqual(Object.keys(made.body).sort(), ['createdAt', 'event', 'formId', 'id', 'secret', 'targetUrl', 'workspaceId']);
    assert.equal(made.headers.get('location'), `${app.baseUrl}/hooks/${made.body.id}`);
    assert.match(made.body.secret, /^whsec_/);
    assert.equal(made.body.workspaceId, owner.workspaceId);

    const sent = await postJson(app, form.id, { name: 'Ada', email: 'ada@example.com', message: 'Hello there' });
    assert.equal(sent.status, 200);
    await until('the hook’s post', () => target.requests.length === 1);
    const [request] = target.requests;
    const body = JSON.parse(request!.rawBody);
    assert.deepEqual(body, {
      id: sent.body.id,
      formId: form.id,
      data: { name: 'Ada', email: 'ada@example.com', message: 'Hello there' },
      createdAt: body.createdAt,
    });
    assert.match(body.createdAt, /^\d{4}-\d\d-\d\dT/);
    assert.equal(request!.headers['formgate-event'], 'submission.created');
    assert.equal(request!.headers['webhook-id'], `submission.created:${sent.body.id}`);
    // verify throws on a bad signature
    new Webhook(made.body.secret).verify(request!.rawBody, request!.headers as Record<string, string>);
    assert.throws(() => new Webhook(made.body.secret).verify(`${request!.rawBody} `, request!.headers as Record<string, string>));

    const listed = await app.api('GET', '/hooks', { token: owner.token });
    assertJson(listed, 200);
    const mine = listed.body.data.find((hook: any) => hook.id === made.body.id);
    assert.ok(mine);
    assert.equal(mine.secret, undefined, 'the secret is shown once');
    assert.equal(listed.body.hasMore, false);
    assert.equal((await app.api('GET', '/hooks', { token: stranger.token })).body.data.length, 0, 'another account sees none of them');
  });

  it('posts spam to spam subscriptions only, a workspace’s subscription hears every form, and a deletion is posted with its ids', async () => {
    const spamTarget = await receiver();
    const createdTarget = await receiver();
    const deletedTarget = await receiver();
    assertJson(await subscribe({ targetUrl: spamTarget.url, event: 'submission.spam', formId: form.id }), 201);
    assertJson(await subscribe({ targetUrl: createdTarget.url, event: 'submission.created' }), 201);
    assertJson(await subscribe({ targetUrl: deletedTarget.url, event: 'submission.deleted', workspaceId: owner.workspaceId }), 201);

    const spam = await postJson(app, form.id, { message: 'Win at the casino now' });
    const kept = await postJson(app, other.id, { message: 'A question' });
    await until('the spam post and the created post', () => spamTarget.requests.length === 1 && createdTarget.requests.length === 1);
    assert.equal(bodiesOf(spamTarget)[0].id, spam.body.id);
    assert.equal(spamTarget.requests[0]!.headers['formgate-event'], 'submission.spam');
    assert.equal(bodiesOf(createdTarget)[0].id, kept.body.id, 'the workspace’s subscription hears the other form too, and no spam');
    // another workspace's submission makes no job for these subscriptions
    const strangersForm = await createForm(app, stranger, { name: 'Theirs' });
    const theirs = await postJson(app, strangersForm.id, { message: 'not for them' });
    const hookJobs = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'hook').execute();
    assert.ok(!hookJobs.some((job) => JSON.stringify(job.payload).includes(theirs.body.id)), 'no subscription hears another workspace');

    const deleted = await app.api('DELETE', `/submissions/${kept.body.id}`, { token: owner.token });
    assert.equal(deleted.status, 204);
    await until('the deletion’s post', () => deletedTarget.requests.length === 1);
    const body = bodiesOf(deletedTarget)[0];
    assert.deepEqual(Object.keys(body).sort(), ['deletedAt', 'formId', 'id']);
    assert.equal(body.id, kept.body.id);
    assert.equal(body.formId, other.id);
    assert.equal(deletedTarget.requests[0]!.headers['webhook-id'], `submission.deleted:${kept.body.id}`);

    // marked not spam, the spam one enters the inbox: a new submission to the platforms
    assertJson(await app.api('DELETE', `/submissions/${spam.body.id}/spam`, { token: owner.token }), 200);
    await until('the created post of the one let in', () => createdTarget.requests.length === 2);
    assert.equal(bodiesOf(createdTarget)[1].id, spam.body.id);
    assert.equal(createdTarget.requests[1]!.headers['webhook-id'], `submission.created:${spam.body.id}`);

    // an erasure of a person is a deletion too
    const erasable = await postJson(app, form.id, { email: 'erase-me@example.com', message: 'forget me' });
    await until('its created post', () => createdTarget.requests.length === 3);
    // NOTE: the receiver has the post before the worker records it; an erasure leaves a submission
    // whose delivery is under way for a later request (its `remaining`), so wait for the record
    await until('its created post recorded', async () => {
      const underWay = await app.ctx.database.db
        .selectFrom('jobs')
        .select('id')
        .where('submissionId', '=', erasable.body.id)
        .where('status', '=', 'pending')
        .where('leaseUntil', 'is not', null)
        .execute();
      return underWay.length === 0;
    });
    const erased = await app.api('POST', `/workspaces/${owner.workspaceId}/erasure`, { token: owner.token, body: { email: 'erase-me@example.com' } });
    assertJson(erased, 200);
    assert.deepEqual([erased.body.deleted, erased.body.remaining], [1, 0]);
    await until('the erasure’s deletion post', () => deletedTarget.requests.length === 2);
    assert.deepEqual({ id: bodiesOf(deletedTarget)[1].id, formId: bodiesOf(deletedTarget)[1].formId }, { id: erasable.body.id, formId: form.id });
  });

  it('removes a subscription whose target answers 410 Gone, and one whose token was revoked, without posting', async () => {
    const gone = await receiver({ status: 410 });
    const made = await subscribe({ targetUrl: gone.url, event: 'submission.created', formId: other.id });
    await postJson(app, other.id, { message: 'one' });
    await until('the 410', () => gone.requests.length === 1);
    await until(
      'the hook removed',
      async () => !(await app.ctx.database.db.selectFrom('hooks').select('id').where('id', '=', made.body.id).executeTakeFirst()),
    );

    const target = await receiver();
    const { secret: token } = await app.ctx.tokens.createToken(owner.userId, { name: 'zapier', scopes: ['submissions:read'] });
    const byToken = await subscribe({ targetUrl: target.url, event: 'submission.created', formId: other.id }, token);
    assertJson(byToken, 201);
    await app.ctx.tokens.revokeToken(owner.userId, 'zapier');
    await postJson(app, other.id, { message: 'two' });
    await until(
      'the hook removed',
      async () => !(await app.ctx.database.db.selectFrom('hooks').select('id').where('id', '=', byToken.body.id).executeTakeFirst()),
    );
    assert.equal(target.requests.length, 0, 'nothing is posted for a revoked token');
    // the job is recorded failed once the channel is done with it
    const jobOf = async () =>
      (await app.ctx.database.db.selectFrom('jobs').select(['status', 'lastError', 'payload']).where('kind', '=', 'hook').execute()).find((row) =>
        JSON.stringify(row.payload).includes(byToken.body.id),
      );
    await until('the job recorded', async () => (await jobOf())?.status === 'failed');
    assert.match(String((await jobOf())!.lastError), /API token it was made with was revoked/);
    const metrics = (await app.fetch('GET', `${app.publicUrl}/metrics`)).body as string;
    assert.match(metrics, /^formgate_hooks_removed_total\{reason="gone"\} 1$/m);
    assert.match(metrics, /^formgate_hooks_removed_total\{reason="lapsed"\} 1$/m);
    assert.match(metrics, /^formgate_deliveries_total\{channel="hook",outcome="sent"\} [1-9]/m);
    // the audit log says Formgate removed them, and why (issue 43, item 4)
    await until('both removals recorded', async () => {
      const removed = await app.ctx.database.db
        .selectFrom('auditEvents')
        .selectAll()
        .where('action', '=', 'hook.removed')
        .where('via', '=', 'system')
        .execute();
      return [made.body.id, byToken.body.id].every((id) => removed.some((event) => event.targetId === id && event.workspaceId === owner.workspaceId));
    });
  });

  it('refuses what cannot be subscribed, and another account’s form or hook, changing nothing', async () => {
    const before = await app.ctx.database.db.selectFrom('hooks').select('id').execute();
    assertValidation(app, await subscribe({ targetUrl: 'ftp://example.com/x', event: 'submission.created' }), 'targetUrl');
    assertValidation(app, await subscribe({ targetUrl: 'https://example.com/x', event: 'submission.updated' }), 'event');
    assertValidation(app, await subscribe({ targetUrl: 'https://example.com/x', event: 'submission.created', extra: 1 }));
    assertProblem(app, await subscribe({ targetUrl: 'https://example.com/x', event: 'submission.created', formId: form.id }, stranger.token), 'not_found');
    const strangers = await subscribe({ targetUrl: 'https://example.com/x', event: 'submission.created' }, stranger.token);
    assertJson(strangers, 201);
    assertProblem(app, await app.api('DELETE', `/hooks/${strangers.body.id}`, { token: owner.token }), 'not_found');
    assert.equal((await app.api('DELETE', `/hooks/${strangers.body.id}`, { token: stranger.token })).status, 204);
    assertProblem(app, await app.api('DELETE', `/hooks/${strangers.body.id}`, { token: stranger.token }), 'not_found');
    const readOnlyForms = await createAccount(app, { scopes: ['forms:read'] });
    assertProblem(app, await subscribe({ targetUrl: 'https://example.com/x', event: 'submission.created' }, readOnlyForms.token), 'insufficient_scope', {
      requiredScope: 'submissions:read',
    });
    const free = await createAccount(app, { plan: 'FREE' });
    assertProblem(app, await subscribe({ targetUrl: 'https://example.com/x', event: 'submission.created' }, free.token), 'upgrade_required');
    // an account of two workspaces names one
    const second = await app.ctx.workspaces.createWorkspace(owner.userId, 'Second');
    await app.ctx.workspaces.setPlan(second.id, 'BUNDLE_50000', { tellOwners: false });
    assertValidation(app, await subscribe({ targetUrl: 'https://example.com/x', event: 'submission.created' }), 'workspaceId');
    assert.deepEqual(await app.ctx.database.db.selectFrom('hooks').select('id').execute(), before, 'nothing was subscribed');
  });

  it('answers a sample of what a subscription receives: the newest submission, else a made-up one', async () => {
    const sample = await app.api('GET', `/hooks/samples/submission.created?formId=${form.id}`, { token: owner.token });
    assertJson(sample, 200);
    const latest = await app.api('GET', `/forms/${form.id}/submissions?limit=1`, { token: owner.token });
    assert.deepEqual(sample.body.data, latest.body.data);
    const empty = await createForm(app, owner, { name: 'Empty', workspaceId: owner.workspaceId });
    const madeUp = await app.api('GET', `/hooks/samples/submission.created?formId=${empty.id}`, { token: owner.token });
    assert.equal(madeUp.body.data[0].id, 'sample');
    assert.equal(madeUp.body.data[0].formId, empty.id);
    assert.equal(typeof madeUp.body.data[0].data.email, 'string');
    const deletion = await app.api('GET', `/hooks/samples/submission.deleted?formId=${form.id}`, { token: owner.token });
    assert.deepEqual(Object.keys(deletion.body.data[0]).sort(), ['deletedAt', 'formId', 'id']);
    assertProblem(app, await app.api('GET', `/hooks/samples/submission.created?formId=${form.id}`, { token: stranger.token }), 'not_found');
  });
});

describe(`hooks: the address rules of webhooks (${TEST_DIALECT})`, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  it('refuses a target on this machine or a private network, as a form’s webhook', async () => {
    const owner = await createAccount(app);
    for (const targetUrl of ['http://127.0.0.1:9/hook', 'http://10.0.0.8/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest']) {
      assertValidation(app, await app.api('POST', '/hooks', { token: owner.token, body: { targetUrl, event: 'submission.created' } }), 'targetUrl');
    }
  });
});
