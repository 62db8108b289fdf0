import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import { BACKLOG_DEGRADED_AFTER_SECONDS } from '../../src/services/health.js';
import { VERSION } from '../../src/version.js';
import { startApp, type Answer, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { freePort, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson } from '../helpers/submit.js';

/** `/healthz` on both surfaces, which answer the same checks (a background check may end between the two: only their shape is compared). */
async function healthOf(app: TestApp): Promise<Answer> {
  const [api, submit] = await Promise.all([app.fetch('GET', `${app.publicUrl}/healthz`), app.fetch('GET', `${app.submitUrl}/healthz`)]);
  assert.equal(submit.status, api.status, 'both surfaces answer alike');
  assert.deepEqual(Object.keys(submit.body.checks), Object.keys(api.body.checks));
  assert.equal(submit.body.version, api.body.version);
  return api;
}

describe('/healthz', () => {
  let sink: SmtpSink;
  let app: TestApp;
  let account: Account;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url, mailFrom: 'forms@example.test' }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  it('is ok with the version and every check when all answers, and learns that SMTP answers', async () => {
    const answer = await eventually(async () => {
      const health = await healthOf(app);
      // PostgreSQL: and its change feed listening (it starts with the app)
      return health.body.checks.smtp.answers === true && health.body.checks.database.changeFeed !== 'connecting' && health;
    }, 'the SMTP server to be asked');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.equal(answer.body.status, 'ok', JSON.stringify(answer.body));
    assert.equal(answer.body.version, VERSION);
    assert.deepEqual(answer.body.checks.database, {
      status: 'ok',
      reads: 'ok',
      writes: 'ok',
      ...(TEST_DIALECT === 'postgres' ? { changeFeed: 'listening' } : {}),
    });
    assert.equal(answer.body.checks.smtp.status, 'ok');
    assert.equal(answer.body.checks.smtp.mode, 'smtp');
    assert.equal(answer.body.checks.redis, undefined, 'no Redis configured, none checked');
    assert.equal(answer.body.checks.deliveries.status, 'ok');
    assert.equal(answer.body.checks.deliveries.oldestDueAgeSeconds, 0);
  });

  it('says degraded (200, smtp_delivery_failed) after the SMTP server refused an email, and ok again once one goes out', async () => {
    const form = await createForm(app, account, { notificationEmails: ['owner@example.com'] });
    sink.mode = 'permanent';
    try {
      assert.equal((await postJson(app, form.id, { message: 'refused' })).status, 200);
      const degraded = await eventually(async () => {
        const health = await healthOf(app);
        return health.body.checks.smtp.reason === 'smtp_delivery_failed' && health;
      }, 'the refusal to show');
      assert.equal(degraded.status, 200, 'SMTP refusing takes no instance out');
      assert.equal(degraded.body.status, 'degraded');
      assert.equal(degraded.body.checks.smtp.status, 'degraded');
      assert.equal(degraded.body.checks.smtp.lastDelivery.outcome, 'failed');
      assert.equal(degraded.body.checks.smtp.lastDelivery.statusCode, 550);
    } finally {
      sink.mode = 'accept';
    }
    const before = sink.messages.length;
    assert.equal((await postJson(app, form.id, { message: 'accepted' })).status, 200);
    await sink.waitFor(before + 1);
    const healed = await eventually(async () => {
      const health = await healthOf(app);
      return health.body.checks.smtp.lastDelivery?.outcome === 'sent' && health;
    }, 'the delivery to show');
    assert.equal(healed.body.checks.smtp.status, 'ok');
    assert.equal(healed.body.status, 'ok');
  });

  it('says degraded (backlog_old) while a due delivery has waited past the threshold', async () => {
    const now = Date.now();
    const runAt = now - (BACKLOG_DEGRADED_AFTER_SECONDS + 60) * 1000;
    // a webhook nobody can deliver yet: held by a lease that outlives the test
    await app.ctx.database.db
      .insertInto('jobs')
      .values({
        id: newId(),
        kind: 'webhook',
        lane: 'webhook',
        payload: '{}',
        status: 'pending',
        runAt,
        leaseUntil: now + 3_600_000,
        lastError: null,
        destination: 'http://backlog.invalid',
        submissionId: null,
        idempotencyKey: newId(),
        createdAt: runAt,
        updatedAt: runAt,
      })
      .execute();
    const answer = await eventually(
      async () => {
        const health = await healthOf(app);
        return health.body.checks.deliveries.reason === 'backlog_old' && health;
      },
      'the old backlog to show',
      10_000,
      200,
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'degraded');
    assert.ok(answer.body.checks.deliveries.oldestDueAgeSeconds >= BACKLOG_DEGRADED_AFTER_SECONDS + 60, JSON.stringify(answer.body.checks.deliveries));
    assert.ok(answer.body.checks.deliveries.due.webhook >= 1);
  });
});

describe('/healthz without SMTP, and with an SMTP server that does not answer', () => {
  it('says mail is written to files when no SMTP server is configured', async () => {
    const app = await startApp();
    try {
      const answer = await healthOf(app);
      assert.equal(answer.body.status, 'ok');
      assert.equal(answer.body.checks.smtp.mode, 'files');
      assert.match(answer.body.checks.smtp.outbox, /outbox$/);
    } finally {
      await app.close();
    }
  });

  it('says degraded (smtp_not_answering) when nothing listens at FORMGATE_SMTP_URL', async () => {
    const app = await startApp({ smtpUrl: `smtp://127.0.0.1:${await freePort()}` });
    try {
      const answer = await eventually(async () => {
        const health = await healthOf(app);
        return health.body.checks.smtp.answers === false && health;
      }, 'the SMTP check to end');
      assert.equal(answer.status, 200);
      assert.equal(answer.body.status, 'degraded');
      assert.equal(answer.body.checks.smtp.reason, 'smtp_not_answering');
    } finally {
      await app.close();
    }
  });
});

describe('/healthz with Redis', () => {
  let redis: PrivateRedis;
  let app: TestApp;
  before(async () => {
    redis = await startPrivateRedis();
    app = await startApp({ redisUrl: redis.url });
  });
  after(async () => {
    await app?.close();
    await redis?.close();
  });

  it('checks Redis while it answers, and says degraded (redis_unreachable, 200) once it is gone', async () => {
    const up = await healthOf(app);
    assert.equal(up.body.status, 'ok', JSON.stringify(up.body));
    assert.deepEqual(up.body.checks.redis, { status: 'ok' });
    await redis.stop('SIGKILL');
    const down = await eventually(async () => {
      const health = await healthOf(app);
      return health.body.checks.redis.status === 'degraded' && health;
    }, 'Redis to be missed');
    assert.equal(down.status, 200, 'the instance serves on its own counters');
    assert.equal(down.body.status, 'degraded');
    assert.equal(down.body.checks.redis.reason, 'redis_unreachable');
  });
});
