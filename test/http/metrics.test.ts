import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildConfig, ConfigError } from '../../src/config/config.js';
import { VERSION } from '../../src/version.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson } from '../helpers/submit.js';

const TOKEN = 'scrape-token-0123456789abcdef';

/** The value of one series (`name{labels}` exactly as exposed), or 0 when it is not there. */
function seriesValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('is absent (404) with FORMGATE_METRICS off, the default', async () => {
    const app = await startApp();
    try {
      assert.equal((await app.fetch('GET', `${app.publicUrl}/metrics`)).status, 404);
      assert.equal(app.ctx.metrics, null, 'nothing counts');
    } finally {
      await app.close();
    }
  });

  it('refuses a token too short to be secret at start, naming the variable', () => {
    assert.throws(
      () => buildConfig({ metrics: 'yes' }),
      (error: unknown) => error instanceof ConfigError && /FORMGATE_METRICS/.test(error.message),
    );
    assert.deepEqual(buildConfig({ metrics: 'on' }).metrics, { enabled: true, token: null });
    assert.deepEqual(buildConfig({ metrics: TOKEN }).metrics, { enabled: true, token: TOKEN });
  });

  it('with a token: 401 without it or with another, 200 with it, whatever Host the scraper uses', async () => {
    const app = await startApp({ metrics: TOKEN });
    try {
      const url = `${app.publicUrl}/metrics`;
      const without = await app.fetch('GET', url);
      assert.equal(without.status, 401);
      assert.equal(without.body.code, 'invalid_token');
      assert.equal(without.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      const wrong = await app.fetch('GET', url, { token: `${TOKEN}x` });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="metrics", error="invalid_token"', 'RFC 6750 §3.1: a token was sent and is bad');
      const scraped = await app.fetch('GET', url, { token: TOKEN, headers: { host: 'formgate-1.internal:8080' } });
      assert.equal(scraped.status, 200);
      assert.match(scraped.body, /^# HELP /m);
    } finally {
      await app.close();
    }
  });
});

describe('GET /metrics with FORMGATE_METRICS=on', () => {
  let sink: SmtpSink;
  let app: TestApp;
  let account: Account;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ metrics: 'on', smtpUrl: sink.url, mailFrom: 'forms@example.test' }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  const scrape = async (): Promise<string> => {
    const answer = await app.fetch('GET', `${app.publicUrl}/metrics`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return answer.body as string;
  };

  it('exposes the version, the process, the event loop, the backlog and request durations in Prometheus text format', async () => {
    assert.equal((await app.api('GET', '/me', { token: account.token })).status, 200);
    assert.equal((await app.fetch('GET', `${app.publicUrl}/no-such-page-${process.pid}`)).status, 404);
    const text = await scrape();
    for (const name of [
      'formgate_submissions_total',
      'formgate_deliveries_total',
      'formgate_http_request_duration_seconds',
      'formgate_delivery_backlog',
      'formgate_delivery_oldest_due_age_seconds',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ]) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
    assert.equal(seriesValue(text, `formgate_info{version="${VERSION}"}`), 1);
    assert.equal(seriesValue(text, 'formgate_delivery_backlog{lane="email"}'), 0);
    // labelled by route pattern, never by the raw path
    assert.equal(seriesValue(text, 'formgate_http_request_duration_seconds_count{surface="api",method="GET",route="/public/v1/me",status_class="2xx"}'), 1);
    assert.equal(seriesValue(text, 'formgate_http_request_duration_seconds_count{surface="dashboard",method="GET",route="unmatched",status_class="4xx"}'), 1);
    assert.doesNotMatch(text, /no-such-page/);
  });

  it('counts an accepted, a spam and a refused submission, and the email delivered', async () => {
    const form = await createForm(app, account, { customSpamWords: 'casino', notificationEmails: ['owner@example.com'] });
    const before = await scrape();
    const series = {
      accepted: 'formgate_submissions_total{outcome="accepted",reason=""}',
      spam: 'formgate_submissions_total{outcome="spam",reason=""}',
    };
    assert.equal((await postJson(app, form.id, { message: 'hello' })).status, 200);
    assert.equal((await postJson(app, form.id, { message: 'casino bonus' })).status, 200);
    const refused = await postJson(app, form.id, { message: '   ' });
    assert.equal(refused.status, 400);
    const refusedSeries = `formgate_submissions_total{outcome="refused",reason="${refused.body.code}"}`;
    await sink.waitFor(1);

    const after = await eventually(async () => {
      const text = await scrape();
      return seriesValue(text, 'formgate_deliveries_total{channel="notification",outcome="sent"}') >= 1 && text;
    }, 'the delivery to be counted');
    assert.equal(seriesValue(after, series.accepted) - seriesValue(before, series.accepted), 1);
    assert.equal(seriesValue(after, series.spam) - seriesValue(before, series.spam), 1);
    assert.equal(seriesValue(after, refusedSeries) - seriesValue(before, refusedSeries), 1);
    assert.equal(seriesValue(after, 'formgate_submissions_total{outcome="held",reason=""}'), 0);
    const submitted = 'formgate_http_request_duration_seconds_count{surface="submit",method="POST",route="/:formId",status_class="2xx"}';
    assert.ok(seriesValue(after, submitted) - seriesValue(before, submitted) >= 2, 'the submit surface times its requests by route pattern');
    assert.doesNotMatch(after, new RegExp(form.id), 'no form id in any label');
  });
});
