import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeliveryError } from '../../src/domain/delivery-error.js';
import { attemptJob } from '../../src/jobs/attempt.js';
import { throwUnlessDelivered, WEBHOOK_KIND, WEBHOOK_TIMEOUT_MS } from '../../src/jobs/channels/webhook.js';
import type { ClaimedJob } from '../../src/jobs/job-queue.js';
import { DEFAULT_RETRY_POLICY, retryDelay, SCHEDULE_JITTER, triesAllowed, WEBHOOK_RETRY_POLICY } from '../../src/jobs/retry-policy.js';
import { retryAfterOf } from '../../src/net/retry-after.js';

const SECOND = 1000;
const HOUR = 3_600_000;

/** A webhook job at its `attempt`-th try, failing as `err` says, judged at a fixed clock. */
async function judged(attempt: number, err: DeliveryError, random = 0.5) {
  const job = { id: 'j', kind: WEBHOOK_KIND, payload: {}, attempt, submissionId: 's', idempotencyKey: 's' } as unknown as ClaimedJob;
  return attemptJob(
    job,
    { [WEBHOOK_KIND]: { send: () => Promise.reject(err) } },
    {
      timeoutMs: 1000,
      retry: DEFAULT_RETRY_POLICY,
      retryByKind: { [WEBHOOK_KIND]: WEBHOOK_RETRY_POLICY },
      now: () => 1_000_000,
      random: () => random,
      log: { warn() {}, error() {} },
    },
  );
}

/** Issue 39, item 2: the webhooks' retry schedule, Retry-After and the timeout, decided by the code's own values and a fixed clock. */
describe('webhook retries (Standard Webhooks)', () => {
  it('follows Standard Webhooks’ schedule: 10 tries over about three days, each wait within the jitter of its step', () => {
    const steps = [5 * SECOND, 5 * 60 * SECOND, 30 * 60 * SECOND, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR];
    assert.deepEqual(WEBHOOK_RETRY_POLICY.scheduleMs, steps);
    assert.equal(triesAllowed(WEBHOOK_RETRY_POLICY), 10);
    steps.forEach((step, i) => {
      assert.equal(
        retryDelay(WEBHOOK_RETRY_POLICY, i + 1, () => 0.5),
        step,
        `after try ${i + 1}`,
      );
      assert.equal(
        retryDelay(WEBHOOK_RETRY_POLICY, i + 1, () => 0),
        Math.round(step * (1 - SCHEDULE_JITTER)),
      );
      assert.equal(
        retryDelay(WEBHOOK_RETRY_POLICY, i + 1, () => 1),
        Math.round(step * (1 + SCHEDULE_JITTER)),
      );
    });
    const span = steps.reduce((a, b) => a + b, 0);
    assert.ok(span > 3 * 24 * HOUR, `the retries span ${span / HOUR} h: days, not hours`);
    // emails keep theirs
    assert.equal(triesAllowed(DEFAULT_RETRY_POLICY), 10);
  });

  it('a webhook job waits its step, fails after its tenth try, and honours Retry-After up to a day', async () => {
    const transient = new DeliveryError('the webhook answered 500', { permanent: false, statusCode: 500 });
    assert.equal((await judged(1, transient)).retryAt, 1_000_000 + 5 * SECOND);
    assert.equal((await judged(9, transient)).retryAt, 1_000_000 + 24 * HOUR);
    assert.equal((await judged(10, transient)).outcome, 'failed');

    const limited = (ms: number) => new DeliveryError('the webhook answered 429', { permanent: false, statusCode: 429, retryAfterMs: ms });
    const asked = await judged(1, limited(300 * SECOND));
    assert.deepEqual([asked.outcome, asked.retryAt, asked.notBefore], ['retry', 1_000_000 + 300 * SECOND, 1_000_000 + 300 * SECOND]);
    // the schedule's wait when it is the longer one; the receiver's wish still noted
    const short = await judged(5, limited(10 * SECOND));
    assert.deepEqual([short.retryAt, short.notBefore], [1_000_000 + 5 * HOUR, 1_000_000 + 10 * SECOND]);
    // a week is capped at a day
    const week = await judged(1, limited(7 * 24 * HOUR));
    assert.deepEqual([week.retryAt, week.notBefore], [1_000_000 + 24 * HOUR, 1_000_000 + 24 * HOUR]);
    // no Retry-After: nothing held
    assert.equal((await judged(1, transient)).notBefore, undefined);
  });

  it('reads Retry-After in seconds and as an HTTP-date on 429 and 503; 410 is final', () => {
    const now = Date.UTC(2026, 10, 29, 8, 0, 0);
    const thrown = (status: number, header: string | null) => {
      try {
        throwUnlessDelivered(status, header, now);
      } catch (err) {
        return err as DeliveryError;
      }
      return assert.fail('delivered');
    };
    assert.equal(thrown(429, '300').retryAfterMs, 300 * SECOND);
    assert.equal(thrown(503, 'Sun, 29 Nov 2026 08:10:00 GMT').retryAfterMs, 600 * SECOND);
    assert.equal(thrown(503, null).retryAfterMs, undefined);
    assert.equal(thrown(404, '300').permanent, true);
    assert.equal(thrown(404, '300').retryAfterMs, undefined, 'a final answer waits for nothing');
    const gone = thrown(410, null);
    assert.equal(gone.permanent, true);
    assert.match(gone.message, /410 Gone/);

    assert.equal(retryAfterOf('120'), 120 * SECOND);
    assert.equal(retryAfterOf(' 1.5 '), 1500);
    assert.equal(retryAfterOf(new Date(now - 60_000).toUTCString(), now), 0, 'a date past is now');
    assert.equal(retryAfterOf('Sunday, 29-Nov-26 08:01:00 GMT', now), 60 * SECOND, 'RFC 850 form');
    for (const bad of ['soon', '-5', '+5', '5 minutes', '', null, undefined]) assert.equal(retryAfterOf(bad, now), undefined, String(bad));
  });

  it('gives a receiver 15 s to answer, within Standard Webhooks’ 15 to 30', () => {
    assert.ok(WEBHOOK_TIMEOUT_MS >= 15_000 && WEBHOOK_TIMEOUT_MS <= 30_000);
  });
});
