import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Job } from '../../src/jobs/channels/channel.js';
import { DeliveryError } from '../../src/domain/delivery-error.js';
import { SlackChannel, slackText } from '../../src/jobs/channels/slack.js';
import { DeliveryFiles } from '../../src/jobs/channels/submission-files.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startSlackStandIn, type SlackStandIn } from '../helpers/slack-stand-in.js';
import { closedPort } from '../helpers/spamd-stand-in.js';
import { postJson } from '../helpers/submit.js';

const TOKEN = 'xoxb-stand-in';

describe('Slack deliveries', () => {
  let slack: SlackStandIn;
  let app: TestApp;
  let account: Account;
  before(async () => {
    slack = await startSlackStandIn(TOKEN);
    app = await startApp({ slackApiUrl: slack.url }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await slack.close();
  });

  async function slackForm(channel = '#leads') {
    const form = await createForm(app, account, { name: 'Leads & <friends>', slackChannel: channel });
    await app.ctx.forms.setSecret(form.id, 'SLACK', TOKEN);
    return form;
  }

  it('posts an accepted submission to the form’s channel with the stored token, readable and escaped', async () => {
    const form = await slackForm();
    const before = slack.posts.length;
    const answer = await postJson(app, form.id, { name: 'Ada <@U123>', message: 'Call me & soon' }, { localAddress: '127.0.8.1' });
    assert.equal(answer.status, 200);
    const deadline = Date.now() + 10_000;
    // the worker polls; wait for the post with a deadline
    while (slack.posts.length === before && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    const post = slack.posts.at(-1)!;
    assert.ok(post, 'Slack received the post');
    assert.equal(post.authorization, `Bearer ${TOKEN}`);
    assert.equal(post.body.channel, '#leads');
    // the last line links to the submission's page in the dashboard, in Slack's `<url|text>`
    const page = `${app.ctx.config.publicUrl}/submissions/${answer.body.id}`;
    assert.equal(
      post.body.text,
      `New submission to *Leads &amp; &lt;friends&gt;*\n*name:* Ada &lt;@U123&gt;\n*message:* Call me &amp; soon\n<${page}|Open in Formgate>`,
    );
    // the delivery log records Slack's answer of a try that went through, as of one that failed
    const tried = await eventually(
      () =>
        app.ctx.database.db
          .selectFrom('jobAttempts')
          .innerJoin('jobs', 'jobs.id', 'jobAttempts.jobId')
          .select(['jobAttempts.outcome', 'jobAttempts.statusCode'])
          .where('jobs.submissionId', '=', answer.body.id)
          .where('jobs.kind', '=', 'slack')
          .executeTakeFirst(),
      'the recorded try',
    );
    assert.deepEqual({ ...tried }, { outcome: 'ok', statusCode: 200 });
  });

  it('fails for good on a refused token or a missing channel, and retries on 429 or 5xx', async () => {
    const form = await slackForm('#sales');
    const answer = await postJson(app, form.id, { name: 'Grace' }, { localAddress: '127.0.8.2' });
    const job: Job = { id: 'j', kind: 'slack', payload: { formId: form.id }, attempt: 1, submissionId: answer.body.id, idempotencyKey: answer.body.id };
    const channel = new SlackChannel(app.ctx.database, slack.url, new DeliveryFiles(app.ctx.database, app.ctx.fileLinks), app.ctx.config);
    const outcome = async () =>
      channel.send(job).then(
        () => 'ok',
        (err: DeliveryError) => (err.permanent ? `permanent ${err.message}` : `transient ${err.statusCode}`),
      );

    slack.mode = { ok: true };
    assert.equal(await outcome(), 'ok');
    slack.mode = { error: 'channel_not_found' };
    assert.match(await outcome(), /^permanent .*channel_not_found/);
    slack.mode = { status: 429 };
    assert.equal(await outcome(), 'transient 429');
    slack.mode = { status: 503 };
    assert.equal(await outcome(), 'transient 503');
    slack.mode = { ok: true };
    await app.ctx.forms.setSecret(form.id, 'SLACK', 'xoxb-wrong');
    assert.match(await outcome(), /^permanent .*invalid_auth/);
    await app.ctx.database.db.deleteFrom('formSecrets').where('formId', '=', form.id).execute();
    assert.match(await outcome(), /^permanent .*no Slack token/);
  });

  it('retries when Slack cannot be reached or its answer breaks off, without ending the process', async () => {
    const form = await slackForm('#ops');
    const answer = await postJson(app, form.id, { name: 'Edsger' }, { localAddress: '127.0.8.3' });
    const job: Job = { id: 'j2', kind: 'slack', payload: { formId: form.id }, attempt: 1, submissionId: answer.body.id, idempotencyKey: answer.body.id };
    const transient = async (apiUrl: string) => {
      const err = await new SlackChannel(app.ctx.database, apiUrl, new DeliveryFiles(app.ctx.database, app.ctx.fileLinks), app.ctx.config).send(job).then(
        () => assert.fail('delivered'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof DeliveryError, String(err));
      assert.equal(err.permanent, false, err.message);
      return err.message;
    };
    assert.match(await transient(`http://127.0.0.1:${await closedPort()}/api`), /Slack could not be reached/);

    // answers 200 with a body it never finishes: the connection drops halfway through
    const breaking = createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"ok":tr'));
    });
    await new Promise<void>((resolve) => breaking.listen(0, '127.0.0.1', resolve));
    try {
      assert.match(await transient(`http://127.0.0.1:${(breaking.address() as AddressInfo).port}/api`), /Slack refused the message: HTTP 200/);
    } finally {
      await new Promise((resolve) => breaking.close(resolve));
    }
  });

  it('formats nested fields as dotted names', () => {
    assert.equal(slackText('F', { car: { color: 'red' }, tags: ['a', 'b'] }), 'New submission to *F*\n*car.color:* red\n*tags:* a, b');
  });

  it('escapes the link to the submission’s page as Slack reads it: &, < and > as entities, | as %7C', () => {
    const url = 'https://forms.example/submissions/a?b=1&c=<2>|3';
    assert.equal(
      slackText('F', { name: 'Ada' }, [], () => '', url),
      'New submission to *F*\n*name:* Ada\n<https://forms.example/submissions/a?b=1&amp;c=&lt;2&gt;%7C3|Open in Formgate>',
    );
  });
});
