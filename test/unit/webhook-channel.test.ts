import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { Job } from '../../src/jobs/channels/channel.js';
import { newWebhookSecret, WEBHOOK_KIND, WebhookChannel, type WebhookPayload } from '../../src/jobs/channels/webhook.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveryErrorOf } from '../helpers/delivery-errors.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';

const FIELDS = { name: 'Ada Lovelace', email: 'ada@example.com', tags: ['a', 'b'], car: { color: 'red' }, note: 'héllo "quoted" ✓' };

function jobFor(url: string, overrides: Partial<Job> = {}): Job<WebhookPayload> {
  return {
    id: 'job_1',
    kind: WEBHOOK_KIND,
    payload: { url, formId: 'frm_1', fields: FIELDS },
    attempt: 1,
    submissionId: 'sub_42',
    idempotencyKey: 'sub_42',
    ...overrides,
  } as Job<WebhookPayload>;
}

/** The Standard Webhooks headers of a received request, as a verifier takes them. */
function signedHeaders(request: ReceivedRequest): Record<string, string> {
  const pick = (name: string) => String(request.headers[name] ?? '');
  return { 'webhook-id': pick('webhook-id'), 'webhook-timestamp': pick('webhook-timestamp'), 'webhook-signature': pick('webhook-signature') };
}

describe('WebhookChannel', () => {
  const secret = newWebhookSecret();
  const secretsAskedFor: string[] = [];
  const channel = new WebhookChannel({
    outbound: new OutboundGuard({ allowPrivate: true }),
    signingSecret: async (formId) => {
      secretsAskedFor.push(formId);
      return secret;
    },
  });
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startWebhookReceiver();
  });
  after(() => receiver.close());
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.mode = { status: 200 };
  });

  it('posts the flat fields, signed so that a Standard Webhooks verifier accepts them', async () => {
    await channel.send(jobFor(receiver.url));
    assert.equal(receiver.requests.length, 1);
    const [request] = receiver.requests;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.equal(request!.headers['user-agent'], 'Formgate-Webhook/1');
    assert.deepEqual(JSON.parse(request!.rawBody), FIELDS);
    assert.deepEqual(secretsAskedFor.at(-1), 'frm_1');
    assert.deepEqual(new Webhook(secret).verify(request!.rawBody, signedHeaders(request!)), FIELDS);
  });

  it('uses the idempotency key as webhook-id, the same on every try', async () => {
    receiver.mode = { failures: 2 };
    const job = jobFor(receiver.url, { idempotencyKey: 'sub_7' });
    for (const attempt of [1, 2]) {
      const err = await deliveryErrorOf(channel.send({ ...job, attempt }));
      assert.equal(err.permanent, false);
      assert.equal(err.statusCode, 500);
    }
    await channel.send({ ...job, attempt: 3 });
    assert.deepEqual(
      receiver.requests.map((r) => r.headers['webhook-id']),
      ['sub_7', 'sub_7', 'sub_7'],
    );
    for (const request of receiver.requests) new Webhook(secret).verify(request.rawBody, signedHeaders(request));
  });

  it('a signature does not verify with another secret or a changed body', async () => {
    await channel.send(jobFor(receiver.url));
    const [request] = receiver.requests;
    assert.throws(() => new Webhook(newWebhookSecret()).verify(request!.rawBody, signedHeaders(request!)), WebhookVerificationError);
    assert.throws(() => new Webhook(secret).verify(request!.rawBody.replace('Ada', 'Eve'), signedHeaders(request!)), WebhookVerificationError);
  });

  it('signs with the timestamp it sends', async () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    const fixed = new WebhookChannel({ outbound: new OutboundGuard({ allowPrivate: true }), signingSecret: async () => secret, now: () => at });
    await fixed.send(jobFor(receiver.url, { idempotencyKey: 'sub_9' }));
    const [request] = receiver.requests;
    assert.equal(request!.headers['webhook-timestamp'], String(Math.floor(at.getTime() / 1000)));
    assert.equal(request!.headers['webhook-signature'], new Webhook(secret).sign('sub_9', at, request!.rawBody));
  });

  const OUTCOMES: Array<[number, 'ok' | 'transient' | 'permanent']> = [
    [200, 'ok'],
    [202, 'ok'],
    [204, 'ok'],
    [500, 'transient'],
    [502, 'transient'],
    [503, 'transient'],
    [429, 'transient'],
    [408, 'transient'],
    [400, 'permanent'],
    [401, 'permanent'],
    [404, 'permanent'],
    [410, 'permanent'],
    [422, 'permanent'],
    [301, 'permanent'],
    [302, 'permanent'],
    [307, 'permanent'],
  ];
  for (const [status, outcome] of OUTCOMES) {
    it(`treats an answer ${status} as ${outcome}`, async () => {
      receiver.mode = { status };
      if (outcome === 'ok') return void (await channel.send(jobFor(receiver.url)));
      const err = await deliveryErrorOf(channel.send(jobFor(receiver.url)));
      assert.equal(err.permanent, outcome === 'permanent');
      assert.equal(err.statusCode, status);
      if (status >= 300 && status < 400) assert.match(err.message, /redirects are not followed/);
      assert.equal(receiver.requests.length, 1, 'a redirect is not followed');
    });
  }

  it('refuses a private address when private webhooks are not allowed', async () => {
    const strict = new WebhookChannel({ outbound: new OutboundGuard({ allowPrivate: false }), signingSecret: async () => secret });
    const err = await deliveryErrorOf(strict.send(jobFor(receiver.url)));
    assert.equal(err.permanent, true);
    assert.equal(err.statusCode, undefined);
    assert.match(err.message, /127\.0\.0\.1 is a loopback address/);
    assert.equal(receiver.requests.length, 0);
  });

  it('refuses, without retrying, a job that misses its payload or a secret that is not a secret', async () => {
    for (const payload of [null, {}, { url: receiver.url, formId: 'frm_1' }, { url: 5, formId: 'frm_1', fields: {} }]) {
      const err = await deliveryErrorOf(channel.send({ ...jobFor(receiver.url), payload }));
      assert.equal(err.permanent, true, JSON.stringify(payload));
    }
    const broken = new WebhookChannel({ outbound: new OutboundGuard({ allowPrivate: true }), signingSecret: async () => 'whsec_not base64!' });
    const err = await deliveryErrorOf(broken.send(jobFor(receiver.url)));
    assert.equal(err.permanent, true);
    assert.equal(receiver.requests.length, 0);
  });
});

describe('newWebhookSecret', () => {
  it('makes distinct Standard Webhooks secrets of 32 random bytes', () => {
    const secrets = new Set(Array.from({ length: 20 }, () => newWebhookSecret()));
    assert.equal(secrets.size, 20);
    for (const secret of secrets) {
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
      assert.doesNotThrow(() => new Webhook(secret));
    }
  });
});
