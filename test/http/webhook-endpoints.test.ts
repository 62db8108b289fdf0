import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { flashOf, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(63);

/** What a path of the receiver answers: a status and its headers. */
type Answer = { status: number; headers?: Record<string, string> };

/**
 * A real receiver on loopback whose every path answers as the test says (200 when it says nothing),
 * recording the paths called with their webhook-id: several forms' webhooks on one origin.
 */
async function startReceiver(): Promise<{ origin: string; answers: Map<string, Answer>; calls: { path: string; id: string }[]; close: () => Promise<void> }> {
  const answers = new Map<string, Answer>();
  const calls: { path: string; id: string }[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const path = request.url ?? '';
      calls.push({ path, id: String(request.headers['webhook-id']) });
      const answer = answers.get(path) ?? { status: 200 };
      response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { origin, answers, calls, close };
}

/**
 * Issue 39, items 2 and 3: webhooks as Standard Webhooks recommends (Retry-After honoured, also
 * when the same origin answers another form; 410 Gone turns the form's webhook off and tells its
 * owners until its settings are saved again), and every try, a retry too, goes to the form's
 * webhook URL as it is then, the delivery log saying which.
 */
describe(`webhooks: Retry-After, 410 Gone and the current URL (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    receiver = await startReceiver();
    app = await startApp({ allowPrivateWebhooks: 'true' }, { delivery: true });
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
  });

  async function formWithWebhook(owner: Person, path: string): Promise<string> {
    return (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: `Hook ${path}`, webhookUrl: `${receiver.origin}${path}` })).id;
  }

  async function submit(formId: string, fields: Record<string, unknown> = { name: 'Ada' }): Promise<string> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id as string;
  }

  /** The submission's webhook job once its `attempts`-th try is recorded. */
  function webhookAfter(submissionId: string, attempts: number, what: string) {
    return eventually(
      () =>
        app.ctx.database.db
          .selectFrom('jobs')
          .selectAll()
          .where('submissionId', '=', submissionId)
          .where('kind', '=', 'webhook')
          .where('attempts', '=', attempts)
          .where('leaseUntil', 'is', null)
          .where('tryStartedAt', 'is', null)
          .executeTakeFirst(),
      what,
    );
  }

  async function triesOf(jobId: string) {
    return app.ctx.database.db.selectFrom('jobAttempts').selectAll().where('jobId', '=', jobId).orderBy('startedAt').execute();
  }

  it('429 with Retry-After in seconds: tried again no sooner than asked, even when the same origin answers another form meanwhile', async () => {
    const owner = await person(app, 'retry-after');
    receiver.answers.set('/limited', { status: 429, headers: { 'retry-after': '300' } });
    const limited = await formWithWebhook(owner, '/limited');
    const other = await formWithWebhook(owner, '/fine');

    const id = await submit(limited);
    const job = await webhookAfter(id, 1, 'the first, limited try');
    const [try1] = await triesOf(job.id);
    assert.equal(job.status, 'pending');
    assert.equal(try1!.statusCode, 429);
    assert.match(try1!.error ?? '', /429 \(Retry-After: asked to wait 300 s\)/);
    // the schedule's first wait is 5 s: the receiver's 300 s wins, to the millisecond of the recorded try
    assert.equal(Number(job.runAt) - Number(try1!.finishedAt), 300_000);
    assert.equal(Number(job.notBefore), Number(job.runAt));

    // another form's webhook to the same origin goes through: the limited one still waits as asked
    const fine = await submit(other);
    const delivered = await webhookAfter(fine, 1, 'the other form’s webhook');
    assert.equal(delivered.status, 'done');
    const still = await app.ctx.database.db.selectFrom('jobs').select(['runAt', 'status']).where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.equal(Number(still.runAt), Number(job.runAt), 'not brought forward by a success elsewhere on the origin');
    assert.equal(receiver.calls.filter((call) => call.id === id).length, 1);

    // the log says when the next try is
    const log = await owner.client.get(`/forms/${limited}/deliveries`);
    assert.match(log.html, /Next try/);
  });

  it('503 with Retry-After as an HTTP-date: not before that date; one without Retry-After is still brought forward by a success', async () => {
    const owner = await person(app, 'retry-date');
    const asked = Math.ceil((Date.now() + 3_600_000) / 1000) * 1000;
    receiver.answers.set('/busy', { status: 503, headers: { 'retry-after': new Date(asked).toUTCString() } });
    receiver.answers.set('/down', { status: 500 });
    const busy = await formWithWebhook(owner, '/busy');
    const down = await formWithWebhook(owner, '/down');
    const other = await formWithWebhook(owner, '/fine-too');

    const busyJob = await webhookAfter(await submit(busy), 1, 'the busy try');
    assert.ok(Number(busyJob.runAt) >= asked, `due ${busyJob.runAt}, asked ${asked}`);
    assert.ok(Number(busyJob.notBefore) >= asked);
    const downJob = await webhookAfter(await submit(down), 1, 'the failed try');
    assert.equal(downJob.notBefore, null);
    assert.ok(Number(downJob.runAt) > Date.now(), 'waits its backoff');

    receiver.answers.set('/down', { status: 200 });
    await webhookAfter(await submit(other), 1, 'a success at the origin');
    // the plain failure is brought forward (and sent), the one that asked for a date is not
    await eventually(
      async () => (await app.ctx.database.db.selectFrom('jobs').select('status').where('id', '=', downJob.id).executeTakeFirstOrThrow()).status === 'done',
      'the failed webhook brought forward',
    );
    const busyNow = await app.ctx.database.db.selectFrom('jobs').select('runAt').where('id', '=', busyJob.id).executeTakeFirstOrThrow();
    assert.equal(Number(busyNow.runAt), Number(busyJob.runAt));
  });

  it('410 Gone turns the form’s webhook off, emails the owner once and says so in the dashboard; saving the settings turns it on again', async () => {
    const owner = await person(app, 'gone');
    receiver.answers.set('/gone', { status: 410 });
    const formId = await formWithWebhook(owner, '/gone');
    const first = await submit(formId);
    const job = await webhookAfter(first, 1, 'the 410');
    assert.equal(job.status, 'failed');
    assert.match(job.lastError ?? '', /410 Gone/);

    const form = await app.ctx.database.db
      .selectFrom('forms')
      .select(['webhookDisabledAt', 'webhookDisabledReason'])
      .where('id', '=', formId)
      .executeTakeFirstOrThrow();
    assert.notEqual(form.webhookDisabledAt, null);
    assert.equal(form.webhookDisabledReason, `${receiver.origin}/gone answered 410 Gone`);
    const mails = async () =>
      (await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute())
        .map((row) => JSON.parse(typeof row.payload === 'string' ? row.payload : JSON.stringify(row.payload)))
        .filter((mail) => mail.to?.[0] === owner.email && /webhook of the form "Hook \/gone" was turned off/.test(mail.subject));
    assert.equal((await mails()).length, 1, 'the owner is emailed');
    const settings = await owner.client.get(`/forms/${formId}/settings`);
    assert.match(settings.html, /The webhook is turned off since/);
    assert.match(settings.html, /<strong>Save notifications<\/strong> turns it on again/);
    const log = await owner.client.get(`/forms/${formId}/deliveries`);
    assert.match(log.html, /The webhook is turned off since/);

    // the next submission's webhook is not tried: it fails at once, naming why, and no second email goes
    const calls = receiver.calls.length;
    const second = await submit(formId);
    const skipped = await webhookAfter(second, 1, 'the webhook of the next submission');
    assert.equal(skipped.status, 'failed');
    assert.match(skipped.lastError ?? '', /not sent: the form’s webhook is turned off/);
    assert.equal(receiver.calls.length, calls, 'nothing posted while it is off');
    assert.equal((await mails()).length, 1);

    // saving the webhook setting (the same URL) turns it on; Retry all failed sends what was missed
    receiver.answers.set('/gone', { status: 200 });
    await app.ctx.forms.updateForm(owner.userId, formId, { webhookUrl: `${receiver.origin}/gone` });
    const on = await app.ctx.database.db.selectFrom('forms').select('webhookDisabledAt').where('id', '=', formId).executeTakeFirstOrThrow();
    assert.equal(on.webhookDisabledAt, null);
    assert.doesNotMatch((await owner.client.get(`/forms/${formId}/settings`)).html, /The webhook is turned off/);
    await owner.client.get(`/forms/${formId}/deliveries`);
    await owner.client.post(`/forms/${formId}/deliveries/retry-failed`, {});
    for (const id of [first, second]) {
      await eventually(async () => receiver.calls.some((call) => call.id === id && call.path === '/gone'), `the webhook of ${id} sent again`);
    }
  });

  it('Retry of a failed webhook goes to the URL the owner set since, and the log says where each try went', async () => {
    const owner = await person(app, 'moved');
    receiver.answers.set('/old', { status: 404 });
    const formId = await formWithWebhook(owner, '/old');
    const id = await submit(formId);
    const job = await webhookAfter(id, 1, 'the refused try');
    assert.equal(job.status, 'failed');

    await app.ctx.forms.updateForm(owner.userId, formId, { webhookUrl: `${receiver.origin}/new` });
    await owner.client.get(`/forms/${formId}/deliveries?status=failed`);
    const retried = await owner.client.post(`/forms/${formId}/deliveries/${job.id}/retry`, { back: `/forms/${formId}/deliveries` });
    assert.equal(retried.status, 303);
    const done = await webhookAfter(id, 1, 'the retry');
    assert.equal(done.status, 'done');
    assert.equal(done.destination, receiver.origin);
    assert.deepEqual(
      receiver.calls.filter((call) => call.id === id).map((call) => call.path),
      ['/old', '/new'],
    );
    assert.deepEqual(
      (await triesOf(job.id)).map((t) => [t.outcome, t.statusCode, t.target]),
      [
        ['failed', 404, `${receiver.origin}/old`],
        ['ok', 200, `${receiver.origin}/new`],
      ],
    );
    const log = await owner.client.get(`/forms/${formId}/deliveries`);
    assert.match(flashOf(log.html) ?? '', /with the form’s settings as they are now \(a webhook goes to its current URL\)/);
    const read = log.html.replace(/<[^>]+>/g, '');
    assert.ok(read.includes(`Webhook to ${receiver.origin}/new`), 'the row names the address the retry went to');
    assert.ok(read.includes(`· to ${receiver.origin}/old`), 'the first try names the old one');
    assert.ok(read.includes(`· to ${receiver.origin}/new`), 'the retry names the new one');
  });

  it('an automatic retry goes to the current URL too; a webhook removed meanwhile sends nothing', async () => {
    const owner = await person(app, 'auto');
    receiver.answers.set('/flaky', { status: 500 });
    const formId = await formWithWebhook(owner, '/flaky');
    const id = await submit(formId);
    const job = await webhookAfter(id, 1, 'the failed try');
    await app.ctx.forms.updateForm(owner.userId, formId, { webhookUrl: `${receiver.origin}/fixed` });
    await app.ctx.database.db.updateTable('jobs').set({ runAt: Date.now() }).where('id', '=', job.id).execute();
    const done = await webhookAfter(id, 2, 'the automatic retry');
    assert.equal(done.status, 'done');
    assert.deepEqual(
      receiver.calls.filter((call) => call.id === id).map((call) => call.path),
      ['/flaky', '/fixed'],
    );

    receiver.answers.set('/fixed', { status: 500 });
    const later = await submit(formId);
    const waiting = await webhookAfter(later, 1, 'another failed try');
    await app.ctx.forms.updateForm(owner.userId, formId, { webhookUrl: null });
    await app.ctx.database.db.updateTable('jobs').set({ runAt: Date.now() }).where('id', '=', waiting.id).execute();
    const dropped = await webhookAfter(later, 2, 'the retry of a removed webhook');
    assert.equal(dropped.status, 'failed');
    assert.match(dropped.lastError ?? '', /no webhook URL any more/);
    assert.equal(receiver.calls.filter((call) => call.id === later).length, 1);
  });
});
