import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobStatus } from '../../src/db/schema/job.js';
import { newId } from '../../src/ids.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const HOOK = 'https://hooks.example.com/formgate';
const from = visitorAddresses(61);

/** The text of a page without its tags, entities decoded, spaces collapsed: what a person reads. */
function text(html: string): string {
  return html
    .replace(/<wbr\/?>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

/** How many deliveries a log page lists. */
function rowsOf(html: string): number {
  return (html.match(/<td data-label="Delivery">/g) ?? []).length;
}

/** The address of the page's "Next page" link, if any. */
function nextLink(html: string): string | null {
  const match = /<a href="([^"]+)">Next page<\/a>/.exec(html);
  return match ? match[1]!.replace(/&amp;/g, '&') : null;
}

describe(`dashboard: a form's delivery log over HTTP (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: DashboardClient;
  let outsider: DashboardClient;
  let ownerId: string;
  let formId: string;
  let otherFormId: string;
  let outsiderFormId: string;

  /** Submits to a form and returns the ids of the jobs that enqueued (no worker runs: they stay pending). */
  async function submit(form: string, fields: Record<string, string>): Promise<{ submissionId: string; jobs: { id: string; kind: string; to?: string }[] }> {
    const answer = await postJson(app, form, fields, from());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const rows = await app.ctx.database.db.selectFrom('jobs').select(['id', 'kind', 'payload']).where('submissionId', '=', answer.body.id).execute();
    const jobs = rows.map(({ id, kind, payload }) => ({ id, kind, to: (typeof payload === 'string' ? JSON.parse(payload) : payload).to }));
    return { submissionId: answer.body.id, jobs };
  }

  /** Puts a job where a worker would have left it, with its tries recorded. */
  async function settle(jobId: string, status: JobStatus, tries: { statusCode: number | null; error: string | null }[]): Promise<void> {
    const now = Date.now();
    const last = tries.at(-1);
    await app.ctx.database.db
      .updateTable('jobs')
      .set({ status, attempts: tries.length, lastError: status === 'done' ? null : (last?.error ?? null), runAt: now + 60_000, updatedAt: now })
      .where('id', '=', jobId)
      .execute();
    for (const [i, t] of tries.entries()) {
      const outcome = i < tries.length - 1 ? 'retry' : status === 'done' ? 'ok' : status === 'failed' ? 'failed' : 'retry';
      const startedAt = now - (tries.length - i) * 1000;
      await app.ctx.database.db
        .insertInto('jobAttempts')
        .values({ id: newId(), jobId, startedAt, finishedAt: startedAt + 50, outcome, statusCode: t.statusCode, error: t.error })
        .execute();
    }
  }

  const jobOf = (id: string) =>
    app.ctx.database.db.selectFrom('jobs').select(['status', 'attempts', 'runAt', 'lastError']).where('id', '=', id).executeTakeFirstOrThrow();

  before(async () => {
    app = await startApp();
    owner = new DashboardClient(app);
    await owner.enter('/signup', 'owner@example.com', PASSWORD);
    ownerId = (await app.ctx.users.requireByEmail('owner@example.com')).id;
    const [workspace] = (await app.ctx.workspaces.listForUser(ownerId, { limit: 10, after: null })).rows;
    assert.equal(workspace!.plan, 'FREE', 'the log works on the free plan');
    const form = await app.ctx.forms.createForm(ownerId, workspace!.id, {
      name: 'Contact',
      notificationEmails: ['a@example.com', 'b@example.com'],
      webhookUrl: HOOK,
    });
    formId = form.id;
    otherFormId = (await app.ctx.forms.createForm(ownerId, workspace!.id, { name: 'Other', webhookUrl: HOOK })).id;

    // another account, its own workspace and form
    const { user, workspace: theirs } = await app.ctx.users.createUser('outsider@example.com', PASSWORD);
    outsiderFormId = (await app.ctx.forms.createForm(user.id, theirs.id, { name: 'Theirs', webhookUrl: HOOK })).id;
    outsider = new DashboardClient(app);
  });
  after(() => app?.close());

  it('sends a logged-out visitor to the login page', async () => {
    const answer = await new DashboardClient(app).get(`/forms/${formId}/deliveries`);
    assert.equal(answer.status, 303);
    assert.equal(answer.location, `/login?next=%2Fforms%2F${formId}%2Fdeliveries`);
  });

  it('shows an empty log with where to set deliveries up', async () => {
    const page = await owner.get(`/forms/${formId}/deliveries`);
    assert.equal(page.status, 200);
    assert.match(text(page.html), /No deliveries yet\./);
    assert.match(page.html, new RegExp(`href="/forms/${formId}/settings"`));
    assert.match(page.html, /<a href="[^"]+\/deliveries" aria-current="page">Deliveries<\/a>/, 'the Deliveries tab is the current one');
  });

  it('lists each delivery: what and where, its submission, status, last answer (escaped, long ones cut) and every try', async () => {
    const { submissionId, jobs } = await submit(formId, { name: 'Ada', message: 'first' });
    assert.deepEqual(jobs.map((j) => j.kind).sort(), ['notification', 'notification', 'webhook']);
    const webhook = jobs.find((j) => j.kind === 'webhook')!;
    const mailA = jobs.find((j) => j.to === 'a@example.com');
    const mailB = jobs.find((j) => j.to === 'b@example.com');
    const longError = `connect ECONNREFUSED <script>alert(1)</script> ${'x'.repeat(200)} the end`;
    await settle(webhook.id, 'failed', [
      { statusCode: 500, error: 'the webhook answered 500' },
      { statusCode: 410, error: 'the webhook answered 410' },
    ]);
    await settle(mailA!.id, 'done', [{ statusCode: 250, error: null }]);
    await settle(mailB!.id, 'pending', [{ statusCode: null, error: longError }]);

    const page = await owner.get(`/forms/${formId}/deliveries`);
    assert.equal(page.status, 200);
    const read = text(page.html);
    assert.equal(rowsOf(page.html), 3);
    assert.match(read, /Webhook to https:\/\/hooks\.example\.com\/formgate/);
    assert.match(read, /Notification email to a@example\.com/);
    assert.match(read, /Notification email to b@example\.com/);
    assert.equal((page.html.match(new RegExp(`href="/submissions/${submissionId}"`, 'g')) ?? []).length, 3, 'each links to its submission');
    assert.match(read, /Failed 410 the webhook answered 410 2 tries/);
    assert.match(read, /Failed, tried again later · 500 the webhook answered 500/);
    assert.match(read, /Failed for good · 410 the webhook answered 410/);
    assert.match(read, /Delivered 250 Accepted \d+ \w+ \d{4}, \d\d:\d\d UTC 1 try/);
    assert.match(read, /Waiting Next try \d+ \w+ \d{4}, \d\d:\d\d UTC/);
    // the error is text, never markup; cut in the table, whole in its disclosure
    assert.ok(!page.html.includes('<script>alert(1)'), 'the error is escaped');
    assert.ok(page.html.includes('&lt;script>alert(1)&lt;/script>'));
    assert.match(page.html, /<details class="full-error"><summary>connect ECONNREFUSED [^<]*…<\/summary><p>connect ECONNREFUSED [^<]* the end<\/p><\/details>/);
    // Retry only on the failed one, and Retry all failed since the page has one
    assert.equal((page.html.match(/>Retry<span/g) ?? []).length, 1);
    assert.match(page.html, new RegExp(`action="/forms/${formId}/deliveries/${webhook.id}/retry"`));
    assert.match(page.html, />Retry all failed</);
  });

  it('filters by status with links kept in the address bar; an unknown filter is a clear 400', async () => {
    const failed = await owner.get(`/forms/${formId}/deliveries?status=failed`);
    assert.equal(rowsOf(failed.html), 1);
    assert.match(text(failed.html), /Webhook to/);
    assert.match(failed.html, /aria-current="page">Failed</);
    const delivered = await owner.get(`/forms/${formId}/deliveries?status=delivered`);
    assert.equal(rowsOf(delivered.html), 1);
    assert.match(text(delivered.html), /Notification email to a@example\.com/);
    assert.ok(!delivered.html.includes('Retry all failed'));
    const waiting = await owner.get(`/forms/${formId}/deliveries?status=waiting`);
    assert.equal(rowsOf(waiting.html), 1);
    assert.match(text(waiting.html), /Notification email to b@example\.com/);
    const all = await owner.get(`/forms/${formId}/deliveries?status=all`);
    assert.equal(rowsOf(all.html), 3);

    const bad = await owner.get(`/forms/${formId}/deliveries?status=lost`);
    assert.equal(bad.status, 400);
    assert.match(text(bad.html), /There is no "lost" filter: show all, waiting, failed or delivered deliveries\./);
  });

  it('pages 25 at a time, newest submission first, with signed cursors of this log and filter only', async () => {
    const other = await submit(otherFormId, { name: 'not on this log' });
    const submitted: string[] = [];
    for (let i = 0; i < 9; i++) submitted.push((await submit(formId, { name: `Visitor ${i}`, message: `message ${i}` })).submissionId);
    // 10 submissions × 3 deliveries = 30
    const first = await owner.get(`/forms/${formId}/deliveries`);
    assert.equal(rowsOf(first.html), 25);
    const links = [...first.html.matchAll(/href="\/submissions\/([^"]+)"/g)].map((m) => m[1]!);
    assert.equal(links[0], submitted.at(-1), 'the newest submission first');
    assert.ok(!links.includes(other.submissionId), 'only this form’s deliveries');
    const next = nextLink(first.html);
    assert.ok(next, 'a link to the next page');
    assert.match(next, new RegExp(`^/forms/${formId}/deliveries\\?cursor=`));
    const second = await owner.get(next);
    assert.equal(rowsOf(second.html), 5);
    assert.equal(nextLink(second.html), null, 'the last page');
    assert.match(second.html, /First page/);
    const secondLinks = [...second.html.matchAll(/href="\/submissions\/([^"]+)"/g)].map((m) => m[1]!);
    assert.equal(secondLinks.at(-1), await firstSubmissionOf(formId), 'the oldest last');
    const retries = (html: string) => [...html.matchAll(/deliveries\/([a-z0-9]+)\/retry"/g)].map((m) => m[1]);
    assert.equal(new Set([...retries(first.html), ...retries(second.html)]).size, 1, 'no delivery on two pages (the one failed one)');

    // a cursor changed by hand, or made for another filter, is refused
    const cursor = new URL(next, app.publicUrl).searchParams.get('cursor')!;
    const tampered = await owner.get(`/forms/${formId}/deliveries?cursor=${cursor.slice(0, -2)}AA`);
    assert.equal(tampered.status, 400);
    assert.match(text(tampered.html), /This page of the log is not one this dashboard made\. Start again from the first page\./);
    const otherFilter = await owner.get(`/forms/${formId}/deliveries?status=failed&cursor=${cursor}`);
    assert.equal(otherFilter.status, 400);
    const otherForm = await owner.get(`/forms/${otherFormId}/deliveries?cursor=${cursor}`);
    assert.equal(otherForm.status, 400);
  });

  async function firstSubmissionOf(form: string): Promise<string> {
    const row = await app.ctx.database.db
      .selectFrom('submissions')
      .select('id')
      .where('formId', '=', form)
      .orderBy('createdAt')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  it('Retry queues a failed delivery again with a fresh budget, and says so', async () => {
    const { jobs } = await submit(formId, { name: 'Grace' });
    const webhook = jobs.find((j) => j.kind === 'webhook')!;
    await settle(webhook.id, 'failed', [{ statusCode: 404, error: 'the webhook answered 404' }]);
    await owner.get(`/forms/${formId}/deliveries?status=failed`);
    const back = `/forms/${formId}/deliveries?status=failed`;
    const answer = await owner.post(`/forms/${formId}/deliveries/${webhook.id}/retry`, { back });
    assert.equal(answer.status, 303);
    assert.equal(answer.location, back, 'back to the log as it was filtered');
    const job = await jobOf(webhook.id);
    assert.equal(job.status, 'pending');
    assert.equal(job.attempts, 0);
    assert.ok(job.runAt <= Date.now(), 'due at once');
    const page = await owner.get(back);
    assert.match(
      page.html,
      /class="flash" role="status">Queued again: it will be tried within a few seconds, with the form’s settings as they are now \(a webhook goes to its current URL\)</,
    );
    assert.ok(!page.html.includes(webhook.id), 'no longer among the failed');

    // a return address elsewhere is ignored
    await settle(webhook.id, 'failed', [{ statusCode: 404, error: 'the webhook answered 404' }]);
    await owner.get(back);
    const elsewhere = await owner.post(`/forms/${formId}/deliveries/${webhook.id}/retry`, { back: 'https://evil.example/' });
    assert.equal(elsewhere.location, `/forms/${formId}/deliveries`);
  });

  it('refuses to retry a delivery that is waiting or done (409, the log again with why), changing nothing', async () => {
    const done = await app.ctx.database.db
      .selectFrom('jobs')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select(['jobs.id', 'jobs.attempts'])
      .where('submissions.formId', '=', formId)
      .where('jobs.status', '=', 'done')
      .executeTakeFirstOrThrow();
    await owner.get(`/forms/${formId}/deliveries`);
    const answer = await owner.post(`/forms/${formId}/deliveries/${done.id}/retry`, { back: `/forms/${formId}/deliveries?status=delivered` });
    assert.equal(answer.status, 409);
    assert.match(answer.html, new RegExp(`role="alert">Delivery ${done.id} is done; only a failed delivery can be retried\\.<`));
    assert.match(answer.html, /aria-current="page">Delivered</, 'the log as it was filtered');
    assert.equal((await jobOf(done.id)).status, 'done');
  });

  it('Retry all failed queues every failed delivery of this form, and only of this form', async () => {
    const mine = await submit(formId, { name: 'Hedy' });
    const theirs = await submit(otherFormId, { name: 'Other form' });
    for (const job of [...mine.jobs, ...theirs.jobs]) await settle(job.id, 'failed', [{ statusCode: 503, error: 'the webhook answered 503' }]);
    await owner.get(`/forms/${formId}/deliveries?status=failed`);
    const answer = await owner.post(`/forms/${formId}/deliveries/retry-failed`, { back: `/forms/${formId}/deliveries?status=failed` });
    assert.equal(answer.status, 303);
    for (const job of mine.jobs) assert.equal((await jobOf(job.id)).status, 'pending');
    for (const job of theirs.jobs) assert.equal((await jobOf(job.id)).status, 'failed', 'another form’s failed delivery is left alone');
    const page = await owner.get(answer.location!);
    assert.match(text(page.html), /Queued again: \d+ failed deliveries will be tried within a few seconds/);
    assert.match(text(page.html), /No failed deliveries\./);
    const again = await owner.post(`/forms/${formId}/deliveries/retry-failed`, {});
    assert.equal(again.location, `/forms/${formId}/deliveries`);
    assert.match((await owner.get(again.location!)).html, /No failed deliveries to retry\./);
  });

  it('answers 404 for a delivery of another form or workspace, revealing nothing and changing nothing', async () => {
    const theirs = await submit(outsiderFormId, { name: 'Outsider' });
    const otherForm = await submit(otherFormId, { name: 'Same workspace, other form' });
    const jobs = [...theirs.jobs, ...otherForm.jobs];
    for (const job of jobs) await settle(job.id, 'failed', [{ statusCode: 500, error: 'the webhook answered 500' }]);
    await owner.get(`/forms/${formId}/deliveries`);
    for (const [job, note] of [
      [theirs.jobs[0]!.id, 'another workspace’s delivery'],
      [otherForm.jobs[0]!.id, 'another form’s delivery, through this form'],
      ['nothing-by-that-id', 'an unknown id'],
    ]) {
      const answer = await owner.post(`/forms/${formId}/deliveries/${job}/retry`, {});
      assert.equal(answer.status, 404, note);
      assert.match(answer.html, /There is nothing here, or it is not yours to see\./, note);
    }
    // through the other workspace's form itself
    const direct = await owner.post(`/forms/${outsiderFormId}/deliveries/${theirs.jobs[0]!.id}/retry`, {});
    assert.equal(direct.status, 404);
    const all = await owner.post(`/forms/${outsiderFormId}/deliveries/retry-failed`, {});
    assert.equal(all.status, 404);
    for (const job of jobs) assert.equal((await jobOf(job.id)).status, 'failed', 'nothing changed');
  });

  /** One failed delivery of a form's submissions. */
  function failedJobOf(ofForm: string) {
    return app.ctx.database.db
      .selectFrom('jobs')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select('jobs.id')
      .where('submissions.formId', '=', ofForm)
      .where('jobs.status', '=', 'failed')
      .executeTakeFirstOrThrow();
  }

  it('lets no one else see or retry a form’s deliveries: the 404 page, whether or not the form exists', async () => {
    await outsider.enter('/login', 'outsider@example.com', PASSWORD);
    const failed = await failedJobOf(otherFormId);
    for (const path of [`/forms/${formId}/deliveries`, `/forms/${formId}/deliveries?status=failed`, '/forms/nope/deliveries']) {
      const page = await outsider.get(path);
      assert.equal(page.status, 404, path);
      assert.match(page.html, /There is nothing here, or it is not yours to see\./);
    }
    await outsider.get(`/forms/${outsiderFormId}/deliveries`);
    const one = await outsider.post(`/forms/${otherFormId}/deliveries/${failed.id}/retry`, {});
    assert.equal(one.status, 404);
    const all = await outsider.post(`/forms/${otherFormId}/deliveries/retry-failed`, {});
    assert.equal(all.status, 404);
    assert.equal((await jobOf(failed.id)).status, 'failed');
  });

  it('refuses a retry without the CSRF token or from another site, changing nothing', async () => {
    const failed = await failedJobOf(otherFormId);
    await owner.get(`/forms/${otherFormId}/deliveries`);
    const noToken = await owner.post(`/forms/${otherFormId}/deliveries/${failed.id}/retry`, { _csrf: '' });
    assert.equal(noToken.status, 403);
    const crossSite = await owner.post(`/forms/${otherFormId}/deliveries/retry-failed`, {}, { origin: 'https://evil.example' });
    assert.equal(crossSite.status, 403);
    assert.equal((await jobOf(failed.id)).status, 'failed');
  });
});
