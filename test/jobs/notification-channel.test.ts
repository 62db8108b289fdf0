import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/database.js';
import type { Job } from '../../src/jobs/channels/channel.js';
import { DeliveryError } from '../../src/domain/delivery-error.js';
import { NotificationChannel } from '../../src/jobs/channels/notification.js';
import { DeliveryFiles } from '../../src/jobs/channels/submission-files.js';
import { createMailer, type Mailer } from '../../src/mail/transport.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

/** The database, counting the queries run on it (a plugin sees every result). */
function counting(database: Database): { database: Database; queries: () => number } {
  let queries = 0;
  const db = database.db.withPlugin({
    transformQuery: ({ node }) => node,
    transformResult: async ({ result }) => {
      queries++;
      return result;
    },
  });
  return { database: Object.assign(Object.create(database), { db }) as Database, queries: () => queries };
}

describe(`notification deliveries (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let mailer: Mailer;
  const visitor = visitorAddresses(31);
  before(async () => {
    sink = await startSmtpSink();
    app = await startApp();
    mailer = createMailer({
      smtpUrl: sink.url,
      mailFrom: 'forms@example.test',
      publicUrl: 'https://forms.example.test',
      dataDir: '/nonexistent',
      database: { dialect: 'sqlite', file: '/nonexistent/formgate.db' },
    });
  });
  after(async () => {
    mailer.close();
    await app.close();
    await sink.close();
  });

  const jobFor = (submissionId: string): Job => ({
    id: `job-${submissionId}`,
    kind: 'notification',
    payload: null,
    attempt: 1,
    submissionId,
    idempotencyKey: submissionId,
  });

  it('looks up the jobs that start together in one query, and a later one afresh', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { name: 'Batch', notificationEmails: ['first@example.com'] });
    const ids: string[] = [];
    for (const name of ['Ada', 'Grace', 'Alan', 'Edsger']) ids.push((await postJson(app, form.id, { name }, visitor())).body.id);
    await app.ctx.database.db.deleteFrom('submissions').where('id', '=', ids[2]!).execute();
    const { database, queries } = counting(app.ctx.database);
    const channel = new NotificationChannel(database, mailer, 'example.test', false, app.ctx.recipients, {
      store: new DeliveryFiles(database, app.ctx.fileLinks),
      config: app.ctx.config,
    });

    const outcomes = await Promise.allSettled(ids.slice(0, 3).map((id) => channel.send(jobFor(id))));
    assert.equal(queries(), 1, 'one query for the three jobs');
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'fulfilled', 'rejected'],
    );
    const gone = (outcomes[2] as PromiseRejectedResult).reason;
    assert.ok(gone instanceof DeliveryError && gone.permanent, 'a deleted submission fails for good');
    const names = (await sink.waitFor(2)).map((mail) => mail.parsed.text?.match(/name: (\w+)/)?.[1]);
    assert.deepEqual(names.sort(), ['Ada', 'Grace']);

    // nothing is kept between batches: the next job reads the form's recipients as they are now
    await app.ctx.database.db
      .updateTable('forms')
      .set({ notificationEmails: JSON.stringify(['second@example.com']) })
      .where('id', '=', form.id)
      .execute();
    await channel.send(jobFor(ids[3]!));
    assert.equal(queries(), 2);
    const [, , last] = await sink.waitFor(3);
    assert.deepEqual(last!.envelopeTo, ['second@example.com']);
  });

  it('links every notification to the submission’s page: “Open in Formgate” in the default layout, {{submissionUrl}} in a template', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { name: 'Links', notificationEmails: ['links@example.com'] });
    const id = (await postJson(app, form.id, { name: 'Ada' }, visitor())).body.id as string;
    const channel = new NotificationChannel(app.ctx.database, mailer, 'example.test', false, app.ctx.recipients, {
      store: new DeliveryFiles(app.ctx.database, app.ctx.fileLinks),
      config: app.ctx.config,
    });
    const page = `${app.ctx.config.publicUrl}/submissions/${id}`;
    assert.match(page, /^http:\/\/[^/]+\/submissions\/[a-z0-9]{20}$/);
    const before = sink.messages.length;

    await channel.send(jobFor(id));
    const plain = (await sink.waitFor(before + 1)).at(-1)!;
    assert.match(plain.parsed.text ?? '', new RegExp(`\nname: Ada\n\nOpen in Formgate: ${page}\n`));
    const html = String(plain.parsed.html);
    assert.deepEqual(
      [...html.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]),
      [[page, 'Open in Formgate']],
    );

    // a template places the link where it likes; one that does not name it gets none added
    const put = async (code: string) =>
      assert.equal((await app.api('PUT', `/forms/${form.id}/templates/notification`, { token: account.token, body: { code } })).status, 200);
    await put('<p>{{data.name}} wrote. <a href="{{submissionUrl}}">Read it in Formgate</a></p>');
    await channel.send(jobFor(id));
    const templated = (await sink.waitFor(before + 2)).at(-1)!;
    assert.equal(String(templated.parsed.html), `<p>Ada wrote. <a href="${page}">Read it in Formgate</a></p>`);
    await put('<p>{{data.name}} wrote.</p>');
    await channel.send(jobFor(id));
    const unchanged = (await sink.waitFor(before + 3)).at(-1)!;
    assert.equal(String(unchanged.parsed.html), '<p>Ada wrote.</p>', 'an existing template is sent as it was');
  });

  it('sends a job to its one recipient, fails it for good once that recipient is removed, and splits a job queued without one', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { name: 'Split', notificationEmails: ['one@example.com', 'two@example.com'] });
    const id = (await postJson(app, form.id, { name: 'Ada' }, visitor())).body.id as string;
    const channel = new NotificationChannel(app.ctx.database, mailer, 'example.test', false, app.ctx.recipients, {
      store: new DeliveryFiles(app.ctx.database, app.ctx.fileLinks),
      config: app.ctx.config,
    });
    const before = sink.messages.length;

    await channel.send({ ...jobFor(id), payload: { formId: form.id, to: 'TWO@example.com' } });
    assert.deepEqual((await sink.waitFor(before + 1)).at(-1)!.envelopeTo, ['TWO@example.com'], 'the address as queued, matched without case');

    // a job queued before one job per recipient: every current recipient, each in a message of its own
    await channel.send({ ...jobFor(id), payload: { formId: form.id } });
    const split = (await sink.waitFor(before + 3)).slice(before + 1);
    assert.deepEqual(
      split.map((mail) => mail.envelopeTo.join(',')),
      ['one@example.com', 'two@example.com'],
    );

    await app.ctx.database.db
      .updateTable('forms')
      .set({ notificationEmails: JSON.stringify(['one@example.com']) })
      .where('id', '=', form.id)
      .execute();
    await assert.rejects(channel.send({ ...jobFor(id), payload: { formId: form.id, to: 'two@example.com' } }), (err: unknown) => {
      assert.ok(err instanceof DeliveryError && err.permanent);
      assert.match(err.message, /two@example\.com is no longer one of the form's notification recipients/);
      return true;
    });
    assert.equal(sink.messages.length, before + 3, 'nothing sent to a removed recipient');
  });
});
