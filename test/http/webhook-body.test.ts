import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ProblemError } from '../../src/errors.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const from = visitorAddresses(20);

const SLACK = '{"text": "New message from {{data.name}}", "email": "{{data.email}}", "tags": {{data.tags}}, "car": {{data.car}}}';

describe('webhook body templates', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let account: Account;
  before(async () => {
    receiver = await startWebhookReceiver();
    app = await startApp({ allowPrivateWebhooks: 'true' }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  async function verified(formId: string, request: ReceivedRequest): Promise<void> {
    const secret = await app.ctx.forms.webhookSecret(formId);
    // the signature is over the exact bytes received (the library's verify parses JSON, which a form body is not)
    const at = new Date(Number(request.headers['webhook-timestamp']) * 1000);
    assert.equal(request.headers['webhook-signature'], new Webhook(secret).sign(String(request.headers['webhook-id']), at, request.rawBody));
  }

  async function received(submissionId: string): Promise<ReceivedRequest> {
    return eventually(async () => receiver.requests.find((r) => r.headers['webhook-id'] === submissionId), 'the webhook');
  }

  async function refusal(promise: Promise<unknown>): Promise<string[]> {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof ProblemError, String(error));
      assert.equal(error.code, 'validation_error');
      return error.extra.errors as string[];
    }
    assert.fail('saved, but it should have been refused');
  }

  it('posts the JSON a template makes, JSON-escaped, signed over the exact bytes, as application/json', async () => {
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    await app.ctx.webhookBodies.putForMember(account.userId, form.id, 'json-template', SLACK);
    const name = 'Ada "the" Lovelace\n</script> 😀';
    const answer = await postJson(app, form.id, { name, email: 'ada@example.com', tags: ['a', 'b'], car: { color: 'red' } }, from());
    assert.equal(answer.status, 200);
    const request = await received(answer.body.id);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(
      request.rawBody,
      `{"text": "New message from Ada \\"the\\" Lovelace\\n</script> 😀", "email": "ada@example.com", "tags": ["a","b"], "car": {"color":"red"}}`,
    );
    assert.deepEqual(JSON.parse(request.rawBody), { text: `New message from ${name}`, email: 'ada@example.com', tags: ['a', 'b'], car: { color: 'red' } });
    await verified(form.id, request);
  });

  it('posts form fields as application/x-www-form-urlencoded, signed', async () => {
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    await app.ctx.webhookBodies.putForMember(account.userId, form.id, 'urlencoded-template', 'entry.1={{data.name}}\nentry.2={{data.message}}');
    const answer = await postJson(app, form.id, { name: 'Grace & co', message: 'a=b\nc' }, from());
    const request = await received(answer.body.id);
    assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(request.rawBody, 'entry.1=Grace+%26+co&entry.2=a%3Db%0Ac');
    assert.deepEqual(Object.fromEntries(new URLSearchParams(request.rawBody)), { 'entry.1': 'Grace & co', 'entry.2': 'a=b\nc' });
    await verified(form.id, request);
  });

  it('without a template, or back on json, posts the flat fields exactly as before', async () => {
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    await app.ctx.webhookBodies.putForMember(account.userId, form.id, 'json-template', SLACK);
    await app.ctx.webhookBodies.putForMember(account.userId, form.id, 'json', SLACK);
    const setting = await app.ctx.webhookBodies.getForMember(account.userId, form.id);
    assert.deepEqual(setting, { format: 'json', template: null, storedTemplate: SLACK }, 'the template typed is kept, unused');
    const answer = await postJson(app, form.id, { name: 'Hedy', tags: ['x'] }, from());
    const request = await received(answer.body.id);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.rawBody, '{"name":"Hedy","tags":["x"]}');
    await verified(form.id, request);
  });

  it('refuses at save time what cannot make a valid body with the example data, naming the field; nothing is stored', async () => {
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    const [invalid] = await refusal(app.ctx.webhookBodies.putForMember(account.userId, form.id, 'json-template', '{"a": "{{data.name}}",}'));
    assert.match(invalid!, /^webhookBodyTemplate: the body is not valid JSON: .* \(with the sample data\)$/);
    assert.deepEqual(await refusal(app.ctx.webhookBodies.putForMember(account.userId, form.id, 'json-template', '{"a": "{{upper data.name}}"}')), [
      'webhookBodyTemplate: line 1, column 8: unknown helper "upper"',
    ]);
    assert.deepEqual(await refusal(app.ctx.webhookBodies.putForMember(account.userId, form.id, 'yaml', 'a: b')), [
      'webhookBodyFormat: must be one of json, json-template, urlencoded-template',
    ]);
    assert.deepEqual(await refusal(app.ctx.webhookBodies.putForMember(account.userId, form.id, 'urlencoded-template', 'just words')), [
      'webhookBodyTemplate: the body\'s part "just words" is not a name=value pair (with the sample data)',
    ]);
    assert.deepEqual(await refusal(app.ctx.webhookBodies.putForMember(account.userId, form.id, 'json-template', 'x'.repeat(16_385))), [
      'webhookBodyTemplate: must be at most 16384 characters',
    ]);
    const stored = await app.ctx.webhookBodies.getForMember(account.userId, form.id);
    assert.deepEqual(stored, { format: 'json', template: null, storedTemplate: null });
  });

  it('checks against the form’s latest submission once it has one, and previews with it', async () => {
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    await postJson(app, form.id, { company: 'Acme "Ltd"', size: 12 }, from());
    const preview = await app.ctx.webhookBodies.previewForMember(account.userId, form.id, 'json-template', '{"org": "{{data.company}}", "n": {{data.size}}}');
    assert.ok(preview.ok);
    assert.equal(preview.example.from, 'latest');
    assert.deepEqual(JSON.parse(preview.body), { org: 'Acme "Ltd"', n: 12 });
    assert.equal(preview.contentType, 'application/json');
  });

  it('fails a delivery for good, with a clear message, when the template cannot make this submission’s body', async () => {
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    // valid with the sample (name is text); with a list of two names, the loop writes two items with no comma between
    await app.ctx.webhookBodies.putForMember(account.userId, form.id, 'json-template', '[{{#each data.name}}"{{this}}"{{/each}}]');
    const answer = await postJson(app, form.id, { name: ['a', 'b'] }, from());
    const failed = await eventually(
      () =>
        app.ctx.database.db
          .selectFrom('jobs')
          .selectAll()
          .where('submissionId', '=', answer.body.id)
          .where('kind', '=', 'webhook')
          .where('status', '=', 'failed')
          .executeTakeFirst(),
      'the failed delivery',
    );
    assert.equal(failed.attempts, 1, 'not retried: the same submission renders the same');
    assert.match(
      failed.lastError ?? '',
      /^the webhook body template could not make this submission’s body: the body is not valid JSON: .*; fix it on the form’s Settings page \(Webhook body\), then retry$/,
    );
    assert.equal(receiver.requests.filter((r) => r.headers['webhook-id'] === answer.body.id).length, 0, 'nothing was sent');
  });

  it('"Send a test webhook" sends the template filled in with the example data, signed', async () => {
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    await app.ctx.webhookBodies.putForMember(account.userId, form.id, 'json-template', '{"text": "Test from {{data.name}}"}');
    const before = receiver.requests.length;
    const outcome = await app.ctx.chatChannels.sendTestWebhook(account.userId, form.id);
    assert.equal(outcome.sent, true, JSON.stringify(outcome));
    const request = receiver.requests[before]!;
    assert.match(String(request.headers['webhook-id']), /^test_/);
    assert.equal(request.rawBody, '{"text": "Test from Jane Doe"}');
    await verified(form.id, request);
  });

  it('shows only a member the setting, and changes nothing for anyone else', async () => {
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    const outsider = await createAccount(app);
    await assert.rejects(
      app.ctx.webhookBodies.putForMember(outsider.userId, form.id, 'json-template', '{"a": 1}'),
      (e: unknown) => e instanceof ProblemError && e.code === 'not_found',
    );
    await assert.rejects(app.ctx.webhookBodies.getForMember(outsider.userId, form.id), (e: unknown) => e instanceof ProblemError && e.code === 'not_found');
    assert.equal((await app.ctx.webhookBodies.getForMember(account.userId, form.id)).format, 'json');
  });
});
