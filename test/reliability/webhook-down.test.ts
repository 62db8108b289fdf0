// Webhook receivers down (issue 18): the real service, its worker on, posts each submission to
// its form's webhook. Under a steady stream of submissions to five forms, each form's receiver
// fails its own way at the same time: it never answers (the 10 s timeout ends each try), answers
// 500, destroys the connection as the request arrives, resets it in the middle of a 200's body,
// or is gone (its port closed). Every submission is still acknowledged at once; once the
// receivers are back every acknowledged submission is delivered (answered 200) to its form's
// receiver, once or as a counted duplicate with the same webhook-id. A sixth form's receiver never
// fails: its webhooks are not held up by the others. A state, not a stopwatch (issue 39, item 0):
// one arrives while the receiver that never answers holds all the tries it ever holds, and every
// webhook of its form stored during the outage is delivered while the others still fail; its
// slowest delivery is a figure.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { deliverTheBacklog, triesByOutcome, triesFailedWith } from '../helpers/outage.js';
import { SteadyStream } from '../helpers/steady-stream.js';
import { postJson, storedRows, visitorAddresses } from '../helpers/submit.js';
import { startWebhookReceiver, type ReceiverMode, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// the webhook channel's timeout (src/net/safe-http.ts) is 10 s: the outage lasts past it, so
// that tries to the receiver that never answers end while it is still down
const OUTAGE_MS = 11_000;
const nextVisitor = visitorAddresses(182);
// a sixth form whose receiver never fails: its webhooks do not wait on the failing ones (each
// receiver has a share of the webhook lane, docs/deliveries.md)
const HEALTHY = 'healthy';

interface Target {
  name: string;
  /** How it fails during the outage; `null`: its port is closed. */
  fault: ReceiverMode | null;
  formId: string;
  /** Every receiver that listened at its URL (a closed one and the one started again on its port). */
  receivers: WebhookReceiver[];
}

describe('reliability: webhook receivers down', { timeout: 120_000 }, () => {
  let app: TestApp;
  let stream: SteadyStream;
  const targets: Target[] = [];

  before(async () => {
    app = await startApp({ allowPrivateWebhooks: 'true' }, { delivery: true });
    const account = await createAccount(app);
    const faults: [string, ReceiverMode | null][] = [
      ['never answers', { hang: true }],
      ['answers 500', { status: 500 }],
      ['destroys the connection on request', { destroy: true }],
      ['resets mid-body', { resetMidBody: true }],
      ['port closed', null],
      [HEALTHY, { status: 200 }],
    ];
    for (const [name, fault] of faults) {
      const receiver = await startWebhookReceiver();
      const form = await createForm(app, account, { name, webhookUrl: receiver.url });
      targets.push({ name, fault, formId: form.id, receivers: [receiver] });
    }
    stream = new SteadyStream(
      (i) => postJson(app, targets[i % targets.length]!.formId, { email: 'visitor@example.com', message: `message ${i}` }, nextVisitor()),
      { everyMs: 40, max: 2_000 },
    );
  });

  after(async () => {
    await stream?.stop();
    await app?.close();
    for (const target of targets) for (const receiver of target.receivers) await receiver.close();
  });

  const current = (target: Target) => target.receivers.at(-1)!;
  const requestsOf = (target: Target) => target.receivers.flatMap((r) => r.requests);

  /** The submissions a target's receivers answered 200, each as often as it was. */
  const deliveredTo = (target: Target) => requestsOf(target).flatMap((r) => (r.answered === 200 ? [String(r.headers['webhook-id'])] : []));

  /** The longest a webhook of the target's form took from its submission to the try that delivered it. */
  async function slowestDelivery(target: Target): Promise<number> {
    const rows = await app.ctx.database.db
      .selectFrom('jobs')
      .innerJoin('jobAttempts', 'jobAttempts.jobId', 'jobs.id')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select(['jobs.createdAt', 'jobAttempts.finishedAt'])
      .where('submissions.formId', '=', target.formId)
      .where('jobAttempts.outcome', '=', 'ok')
      .execute();
    return Math.max(0, ...rows.map((row) => Number(row.finishedAt) - Number(row.createdAt)));
  }

  it('acknowledges every submission while the receivers fail, and delivers every webhook once they are back', async () => {
    const started = Date.now();
    stream.phase = 'receivers up';
    stream.start();
    await until('each receiver has a first delivery', () => targets.every((t) => deliveredTo(t).length > 0), 15_000, 50);

    stream.phase = 'receivers failing';
    const faultedBefore = targets.map((t) => requestsOf(t).length);
    // the hanging receiver's tries still open as each of the healthy receiver's requests arrives, and the most it ever held:
    // the healthy webhooks do not wait on the hung tries if some arrive while it holds all it ever holds
    const hanging = current(targets.find((t) => t.fault !== null && 'hang' in t.fault)!);
    const hangingFrom = hanging.requests.length;
    const openHung = () => hanging.requests.slice(hangingFrom).filter((r) => !r.closed).length;
    let mostOpenHung = 0;
    const openHungAtHealthy: number[] = [];
    hanging.onRequest = () => {
      mostOpenHung = Math.max(mostOpenHung, openHung());
    };
    current(targets.find((t) => t.name === HEALTHY)!).onRequest = () => {
      openHungAtHealthy.push(openHung());
    };
    const closedPort = new Map<Target, number>();
    for (const target of targets) {
      if (target.fault) current(target).mode = target.fault;
      else {
        closedPort.set(target, current(target).port);
        await current(target).close();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));

    // still in the outage: the healthy receiver has every webhook of its form stored so far, while
    // the others still fail
    const healthy = targets.find((t) => t.name === HEALTHY)!;
    const healthyStored = (await storedRows(app, healthy.formId)).map((row) => row.id);
    await until('the healthy receiver has every webhook of its form so far, the others still failing', () =>
      healthyStored.every((id) => deliveredTo(healthy).includes(id)),
    );

    stream.phase = 'receivers back';
    hanging.onRequest = undefined;
    healthy.receivers[0]!.onRequest = undefined;
    for (const target of targets) {
      if (target.fault) current(target).mode = { status: 200 };
      else target.receivers.push(await startWebhookReceiver({ status: 200 }, closedPort.get(target)));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await stream.stop();

    stream.assertAnsweredCleanly();
    const acknowledged = stream.acknowledged();
    const expected = new Map<Target, string[]>(targets.map((t) => [t, []]));
    for (const target of targets) {
      const stored = new Set((await storedRows(app, target.formId)).map((row) => row.id));
      for (const id of acknowledged) if (stored.has(id)) expected.get(target)!.push(id);
    }
    const found = [...expected.values()].flat().length;
    assert.equal(found, acknowledged.length, 'every acknowledged submission is stored');

    const allDelivered = () => targets.every((t) => expected.get(t)!.every((id) => deliveredTo(t).includes(id)));
    const complete = await deliverTheBacklog(app, allDelivered);
    const delivered = targets.map((t) => new Set(deliveredTo(t)).size).reduce((a, b) => a + b, 0);
    const duplicated = targets.map((t) => deliveredTo(t).length - new Set(deliveredTo(t)).size).reduce((a, b) => a + b, 0);
    const refused = await triesFailedWith(app, { pattern: /ECONNREFUSED/ });
    const failing = targets.filter((t) => t.name !== HEALTHY);
    const healthyWait = await slowestDelivery(targets.find((t) => t.name === HEALTHY)!);
    const hitDuringOutage = Object.fromEntries(
      failing.map((t) => [
        `requests failed by "${t.name}"`,
        t.fault ? requestsOf(t).filter((r, n) => n >= faultedBefore[targets.indexOf(t)]! && r.answered !== 200).length : refused,
      ]),
    );

    printFigures('webhook receivers down', {
      requestsSent: stream.requestsSent,
      faultsInjected: failing.length,
      submissionsAcknowledged: acknowledged.length,
      submissionsFound: found,
      deliveriesExpected: found,
      delivered,
      duplicated,
      more: {
        ...hitDuringOutage,
        'slowest delivery to the healthy receiver (ms)': healthyWait,
        'most tries the hanging receiver held open': mostOpenHung,
        'tries by outcome': JSON.stringify(await triesByOutcome(app)),
        'answers by status': JSON.stringify(stream.statusCounts()),
        'slowest answer (ms)': stream.slowestMs(),
        'wall time (s)': Math.round((Date.now() - started) / 1000),
      },
    });
    assert.ok(complete, 'every webhook was delivered');
    assert.equal(delivered, found);
    assert.ok(refused > 0, 'tries were refused while a port was closed');
    assert.ok(
      mostOpenHung > 0 && openHungAtHealthy.includes(mostOpenHung),
      `a healthy webhook arrived while the hanging receiver held all the tries it ever held (${mostOpenHung}); at each: ${openHungAtHealthy.join(' ')}`,
    );
    for (const target of failing.filter((t) => t.fault)) {
      const index = targets.indexOf(target);
      assert.ok(requestsOf(target).length > faultedBefore[index]!, `the receiver that ${target.name} was called while it failed`);
    }
  });
});
