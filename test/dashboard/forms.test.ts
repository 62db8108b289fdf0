import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dayOf } from '../../src/db/schema/daily-count.js';
import { DAY_MS } from '../../src/domain/time.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { alertOf, flashOf, type Person, person } from '../helpers/members.js';

let sent = 0;

/** Posts one submission to the form's real address as a `fetch` client would; each one different, so none is a repeat. */
async function submit(app: TestApp, formId: string, fields: Record<string, string> = {}) {
  const answer = await app.fetch('POST', `${app.submitUrl}/${formId}`, {
    body: { name: `Visitor ${++sent}`, email: `visitor${sent}@example.net`, message: `Question number ${sent} about the order`, ...fields },
    headers: { accept: 'application/json' },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as { id: string; createdAt: string };
}

async function newForm(app: TestApp, owner: Person, name: string, settings: Record<string, unknown> = {}) {
  return app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name, ...settings });
}

/** The accessible description of a chart: the sentence its svg's aria-describedby names. */
function chartSummary(html: string, id: string): string | undefined {
  assert.match(html, new RegExp(`<svg class="chart-plot" role="img"[^>]*aria-describedby="${id}-summary"`));
  return new RegExp(`<p class="chart-summary" id="${id}-summary">([^<]*)</p>`).exec(html)?.[1];
}

const decode = (html: string) => html.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

describe('dashboard: forms, charts, New form, Setup and test submissions', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  it('counts from daily_counts: accepted (held included) and spam per day, zeros for quiet days, this calendar month (UTC), the last submission', async () => {
    const owner = await person(app, 'stats');
    const contact = await newForm(app, owner, 'Contact', { customSpamWords: 'casino' });
    const other = await newForm(app, owner, 'Other');
    await submit(app, contact.id);
    await submit(app, contact.id);
    await submit(app, contact.id, { message: 'Win big at the casino tonight' });
    // the allowance used up: the next one is held, and counts as accepted (it arrived)
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', owner.workspaceId).execute();
    const held = await submit(app, contact.id);
    await submit(app, other.id);
    const statuses = await app.ctx.database.db.selectFrom('submissions').select('status').where('formId', '=', contact.id).orderBy('createdAt').execute();
    assert.deepEqual(statuses.map((s) => s.status).sort(), ['accepted', 'accepted', 'held', 'spam']);

    const now = Date.now();
    const today = dayOf(now);
    const stats = await app.ctx.stats.workspaceStats(owner.userId, owner.workspaceId, [contact.id, other.id], now);
    const form = stats.forms.get(contact.id)!;
    assert.equal(form.days.length, 30);
    assert.equal(form.days[0]!.day, today - 29);
    assert.deepEqual(form.days.at(-1), { day: today, accepted: 3, spam: 1 });
    assert.ok(
      form.days.slice(0, -1).every((d) => d.accepted === 0 && d.spam === 0),
      'quiet days are zeros',
    );
    assert.equal(form.monthAccepted, 3);
    assert.equal(form.monthSpam, 1);
    assert.equal(form.lastSubmissionAt, Date.parse(held.createdAt), 'the newest submission, held ones included');
    assert.deepEqual(stats.days.at(-1), { day: today, accepted: 4, spam: 1 }, 'the workspace sums its forms');
    assert.equal(stats.forms.get(other.id)!.monthAccepted, 1);
    assert.deepEqual(await app.ctx.stats.formDays(owner.userId, contact.id, now), form.days);

    // a month boundary, from daily_counts alone: 1 March 2026, 00:30 UTC
    const march = Date.UTC(2026, 2, 1, 0, 30);
    const day = dayOf(march);
    const rows = [
      { day, accepted: 2, spam: 1 },
      { day: day - 1, accepted: 5, spam: 3 },
      { day: day - 29, accepted: 7, spam: 0 },
      { day: day - 30, accepted: 100, spam: 100 },
      { day: day + 1, accepted: 100, spam: 100 },
    ];
    const quiet = await newForm(app, owner, 'Boundary');
    await app.ctx.database.db
      .insertInto('dailyCounts')
      .values(rows.map((r) => ({ ...r, formId: quiet.id, workspaceId: owner.workspaceId, lastAt: r.day * 86_400_000 + 1000 })))
      .execute();
    const then = await app.ctx.stats.workspaceStats(owner.userId, owner.workspaceId, [quiet.id], march);
    const boundary = then.forms.get(quiet.id)!;
    assert.equal(boundary.monthAccepted, 2, 'February is not this month');
    assert.equal(boundary.monthSpam, 1);
    assert.deepEqual(
      boundary.days.filter((d) => d.accepted + d.spam > 0),
      [
        { day: day - 29, accepted: 7, spam: 0 },
        { day: day - 1, accepted: 5, spam: 3 },
        { day, accepted: 2, spam: 1 },
      ],
      '30 days, today included; the 31st day back and tomorrow are outside',
    );
    assert.equal(boundary.lastSubmissionAt, (day + 1) * 86_400_000 + 1000, 'the newest day’s newest arrival');
    assert.equal(new Date((day - 29) * DAY_MS).toISOString().slice(0, 10), '2026-01-31');
  });

  it('checks membership: another account gets not_found from the stats service', async () => {
    const owner = await person(app, 'member-stats');
    const form = await newForm(app, owner, 'Private');
    const outsider = await person(app, 'outsider-stats');
    await assert.rejects(app.ctx.stats.formDays(outsider.userId, form.id), { code: 'not_found' });
    await assert.rejects(app.ctx.stats.workspaceStats(outsider.userId, owner.workspaceId, [form.id]), { code: 'not_found' });
    // its own workspace asked about another's form: that form is not counted
    const own = await app.ctx.stats.workspaceStats(outsider.userId, outsider.workspaceId, [form.id]);
    assert.equal(own.forms.get(form.id)!.lastSubmissionAt, null);
  });

  it('lists the forms with this month, spam caught, last submission and a sparkline, and the chart describes the right counts', async () => {
    const owner = await person(app, 'list');
    const empty = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.match(empty.html, /No forms yet\. A form is an address/);
    assert.match(empty.html, new RegExp(`<a class="button" href="/w/${owner.workspaceId}/forms/new">New form</a>`));
    assert.doesNotMatch(empty.html, /Submissions, last 30 days/, 'no chart before there is a form');

    const contact = await newForm(app, owner, 'Contact <us>', { customSpamWords: 'casino' });
    await newForm(app, owner, 'Quiet');
    for (let i = 0; i < 3; i++) await submit(app, contact.id);
    await submit(app, contact.id, { message: 'casino bonus' });
    const page = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.equal(page.status, 200);
    const today = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date());
    assert.equal(chartSummary(page.html, 'workspace-chart'), `3 accepted and 1 spam in the last 30 days; busiest day ${today} with 4.`);
    assert.match(page.html, /Submissions per day, last 30 days: all forms of My workspace/);
    const row = new RegExp(
      `<a href="/forms/${contact.id}">Contact &lt;us></a></td><td data-label="New">.*?</td><td data-label="This month">3</td><td data-label="Spam caught">1</td><td data-label="Last submission"><time`,
    );
    assert.match(page.html, row);
    assert.match(page.html, /aria-label="Last 30 days: 3 accepted, 1 spam"/);
    assert.match(page.html, /<td data-label="Last submission"><span>None yet<\/span><\/td>/, 'the quiet form has none');
    assert.match(page.html, new RegExp(`href="/w/${owner.workspaceId}/submissions">All submissions</a>`));
    assert.match(page.html, /<summary>Show the numbers<\/summary>/);
    assert.match(page.html, new RegExp(`<th scope="row">${today}</th><td>3</td><td>1</td>`), 'the numbers table has today');
  });

  it('pages the forms 50 at a time with a signed cursor of this workspace', async () => {
    const owner = await person(app, 'pager');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    for (let i = 1; i <= 51; i++) {
      await newForm(app, owner, `Form ${String(i).padStart(2, '0')}`);
      // each in a millisecond of its own: two made in the same one are ordered by their random ids
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const first = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.equal((first.html.match(/<a href="\/forms\//g) ?? []).length, 50);
    assert.doesNotMatch(first.html, />Form 01</, 'newest first: the oldest is on page 2');
    const next = /<a href="(\/w\/[^"?]+\?cursor=[^"]+)">Next page<\/a>/.exec(first.html)?.[1];
    assert.ok(next);
    const second = await owner.client.get(decode(next));
    assert.equal(second.status, 200);
    assert.equal((second.html.match(/<a href="\/forms\//g) ?? []).length, 1);
    assert.match(second.html, />Form 01</);
    assert.match(second.html, />First page</);
    assert.doesNotMatch(second.html, />Next page</);
    // a cursor of another workspace's list is refused
    const other = await person(app, 'pager-other');
    const forged = await other.client.get(`/w/${other.workspaceId}?${decode(next).split('?')[1]}`);
    assert.equal(forged.status, 400);
  });

  it('New form: the name’s limits with the API’s message, then Setup with a flash; a FREE workspace makes 10', async () => {
    const owner = await person(app, 'new-form');
    const form = await owner.client.get(`/w/${owner.workspaceId}/forms/new`);
    assert.equal(form.status, 200);
    assert.match(form.html, /<label for="field-name">Name<\/label>/);
    for (const name of ['', 'n'.repeat(129)]) {
      const refused = await owner.client.post(`/w/${owner.workspaceId}/forms/new`, { name });
      assert.equal(refused.status, 400);
      assert.equal(alertOf(refused.html), 'Must be 1 to 128 characters.');
    }
    assert.equal((await app.ctx.workspaces.counts(owner.workspaceId)).formCount, 0, 'nothing made');

    const created = await owner.client.post(`/w/${owner.workspaceId}/forms/new`, { name: '😀'.repeat(128) });
    assert.equal(created.status, 303);
    const [row] = await app.ctx.database.db.selectFrom('forms').select(['id', 'name']).where('workspaceId', '=', owner.workspaceId).execute();
    assert.equal(row!.name, '😀'.repeat(128));
    assert.equal(created.location, `/forms/${row!.id}/setup`);
    const setup = await owner.client.get(created.location!);
    assert.equal(flashOf(setup.html), 'Form created: copy its snippet into your page');
    assert.ok(setup.html.includes(`<h1>${'😀'.repeat(128)}</h1>`));

    for (let i = 2; i <= 10; i++) await newForm(app, owner, `Form ${i}`);
    await owner.client.get(`/w/${owner.workspaceId}/forms/new`);
    const eleventh = await owner.client.post(`/w/${owner.workspaceId}/forms/new`, { name: 'One too many' });
    assert.equal(eleventh.status, 403);
    assert.equal(alertOf(eleventh.html), 'A workspace on the Free plan has at most 10 forms; delete one or upgrade.');
    assert.match(eleventh.html, /value="One too many"/, 'the form keeps what was typed');
    assert.equal((await app.ctx.workspaces.counts(owner.workspaceId)).formCount, 10);
  });

  it('Setup shows the real address in every snippet, the form’s own honeypot, and the captcha tags only when the form asks for one', async () => {
    const owner = await person(app, 'setup');
    const plain = await newForm(app, owner, 'Plain');
    const page = await owner.client.get(`/forms/${plain.id}/setup`);
    assert.equal(page.status, 200);
    const address = `${app.submitUrl}/${plain.id}`;
    const html = decode(page.html);
    assert.match(html, new RegExp(`<code id="submit-address">${address}</code>`));
    assert.ok(html.includes(`<form id="formgate-${plain.id.slice(-8)}" action="${address}" method="post">`), 'the HTML form posts to the address');
    assert.ok(html.includes('<input type="text" name="_gotcha" style="display:none" tabindex="-1" autocomplete="off">'));
    assert.ok(html.includes(`await fetch('${address}', {`) && html.includes("headers: { Accept: 'application/json' }"));
    assert.doesNotMatch(html, /CAPTCHA:|data-sitekey/);
    assert.match(page.html, /aria-current="page">Setup</);

    const guarded = await newForm(app, owner, 'Guarded', { customHoneypot: 'website' });
    await app.ctx.forms.setSecret(guarded.id, 'TURNSTILE', 'secret-key');
    await app.ctx.forms.updateForm(owner.userId, guarded.id, { spamProtection: 'TURNSTILE' });
    const captcha = decode((await owner.client.get(`/forms/${guarded.id}/setup`)).html);
    assert.ok(captcha.includes('<input type="text" name="website" style="display:none"'));
    assert.match(captcha, /<h2 id="[^"]+">CAPTCHA: Cloudflare Turnstile<\/h2>/);
    assert.ok(captcha.includes('<div class="cf-turnstile" data-sitekey="YOUR_SITE_KEY"></div>'));
    assert.ok(captcha.includes('<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>'));
    assert.match(captcha, /Replace YOUR_SITE_KEY with your site key/);
  });

  it('Send a test submission: stored through the real submit surface, its deliveries listed; a form without any says nothing is sent', async () => {
    const owner = await person(app, 'tester');
    const form = await newForm(app, owner, 'Wired', {
      notificationEmails: ['team@example.com', 'boss@example.com'],
      webhookUrl: 'https://hooks.example.com/formgate',
      slackChannel: '#leads',
      allowedOrigins: ['https://www.example.org'],
    });
    await owner.client.get(`/forms/${form.id}/setup`);
    const answer = await owner.client.post(`/forms/${form.id}/test-submission`, {});
    assert.equal(answer.status, 303, answer.html.slice(0, 400));
    const id = new RegExp(`^/forms/${form.id}/test-submission/(\\w+)$`).exec(answer.location ?? '')?.[1];
    assert.ok(id, answer.location ?? '');
    const stored = await app.ctx.database.db.selectFrom('submissions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(stored.status, 'accepted');
    assert.equal(stored.formId, form.id);
    const data = typeof stored.data === 'string' ? JSON.parse(stored.data) : stored.data;
    assert.equal(data.name, 'Formgate test');
    assert.equal(data.email, owner.email);
    assert.match(data.message, /^This is a test submission sent from the dashboard at \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);

    const result = await owner.client.get(answer.location!);
    assert.equal(result.status, 200);
    assert.equal(flashOf(result.html), 'Test submission sent');
    assert.match(result.html, new RegExp(`<a href="/submissions/${id}">Open the submission</a>`));
    // addresses may wrap after their separators (<wbr>): compared without them
    const rows = result.html.replace(/<span class="breakable">|<\/span>|<wbr\/?>/g, '');
    for (const line of [
      'Notification email</td><td data-label="To">team@example.com</td>',
      'Notification email</td><td data-label="To">boss@example.com</td>',
      'Webhook</td><td data-label="To">https://hooks.example.com/formgate</td>',
      'Slack message</td><td data-label="To">#leads</td>',
    ]) {
      assert.ok(rows.includes(line), line);
    }
    assert.equal((result.html.match(/Waiting to be sent/g) ?? []).length, 4);

    const bare = await newForm(app, owner, 'Bare');
    const bareAnswer = await owner.client.post(`/forms/${bare.id}/test-submission`, {});
    const bareResult = await owner.client.get(bareAnswer.location!);
    assert.match(
      bareResult.html,
      new RegExp(`Nothing is sent: no notification address, webhook or Slack channel is set\\. <a href="/forms/${bare.id}/settings">Settings</a>`),
    );
    // counted like any other
    const stats = await app.ctx.stats.workspaceStats(owner.userId, owner.workspaceId, [bare.id]);
    assert.equal(stats.forms.get(bare.id)!.monthAccepted, 1);
  });

  it('a test caught as spam, or held past the allowance, says so and that nothing is sent', async () => {
    const owner = await person(app, 'held-test');
    const spammy = await newForm(app, owner, 'Strict', { customSpamWords: 'formgate', notificationEmails: ['team@example.com'] });
    await owner.client.get(`/forms/${spammy.id}/setup`);
    const spam = await owner.client.get((await owner.client.post(`/forms/${spammy.id}/test-submission`, {})).location!);
    assert.match(
      spam.html,
      new RegExp(
        `in the <strong>spam folder</strong>: the filter took it for spam, so nothing is delivered\\. <a href="/forms/${spammy.id}/spam">Spam folder</a>`,
      ),
    );
    assert.match(spam.html, /<li>[^<]*formgate[^<]*<\/li>/i, 'the reason names the word');
    assert.match(spam.html, /Nothing is sent for a spam submission\./);

    const form = await newForm(app, owner, 'Busy', { notificationEmails: ['team@example.com'] });
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', owner.workspaceId).execute();
    const held = await owner.client.get((await owner.client.post(`/forms/${form.id}/test-submission`, {})).location!);
    assert.match(held.html, /but <strong>held<\/strong>: the workspace has used its allowance/);
    assert.match(held.html, /Nothing is sent for a held submission\./);
    const jobs = await app.ctx.database.db
      .selectFrom('jobs')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select('jobs.id')
      .where('submissions.formId', 'in', [form.id, spammy.id])
      .execute();
    assert.deepEqual(jobs, []);
  });

  it('a test the submit surface refuses (a CAPTCHA it cannot solve) says so with the detail, and stores nothing', async () => {
    const owner = await person(app, 'captcha-test');
    const form = await newForm(app, owner, 'Guarded');
    await app.ctx.forms.setSecret(form.id, 'HCAPTCHA', 'secret-key');
    await app.ctx.forms.updateForm(owner.userId, form.id, { spamProtection: 'HCAPTCHA' });
    await owner.client.get(`/forms/${form.id}/setup`);
    const answer = await owner.client.post(`/forms/${form.id}/test-submission`, {});
    assert.equal(answer.status, 400);
    assert.match(
      answer.html,
      /<strong>The test submission was refused; nothing was stored\.<\/strong> [^:<]+: This form requires a CAPTCHA \(the h-captcha-response field was empty\); complete it and submit again\./,
    );
    const rows = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.deepEqual(rows, []);
  });

  it('an outsider gets the 404 page on every page and post; a post without the CSRF token is refused and changes nothing', async () => {
    const owner = await person(app, 'owner-404');
    const form = await newForm(app, owner, 'Mine');
    await owner.client.post(`/forms/${form.id}/test-submission`, {});
    const [submission] = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    const outsider = await person(app, 'outsider-404');
    for (const path of [
      `/w/${owner.workspaceId}`,
      `/w/${owner.workspaceId}/forms/new`,
      `/forms/${form.id}/setup`,
      `/forms/${form.id}/test-submission/${submission!.id}`,
    ]) {
      const answer = await outsider.client.get(path);
      assert.equal(answer.status, 404, path);
      assert.match(answer.html, /There is nothing here, or it is not yours to see\./);
    }
    // the owner's submission under the outsider's own form is not found either
    const own = await newForm(app, outsider, 'Theirs');
    assert.equal((await outsider.client.get(`/forms/${own.id}/test-submission/${submission!.id}`)).status, 404);
    await outsider.client.get(`/w/${outsider.workspaceId}`);
    for (const [path, fields] of [
      [`/w/${owner.workspaceId}/forms/new`, { name: 'Intruder' }],
      [`/forms/${form.id}/test-submission`, {}],
    ] as const) {
      const answer = await outsider.client.post(path, fields);
      assert.equal(answer.status, 404, path);
    }
    assert.equal((await app.ctx.workspaces.counts(owner.workspaceId)).formCount, 1);
    const count = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.equal(count.length, 1, 'the outsider sent no test');

    for (const [path, fields] of [
      [`/w/${owner.workspaceId}/forms/new`, { name: 'Forged', _csrf: '' }],
      [`/forms/${form.id}/test-submission`, { _csrf: '' }],
    ] as const) {
      const forged = await owner.client.post(path, fields);
      assert.equal(forged.status, 403, path);
      assert.match(forged.html, /Change refused/);
    }
    assert.equal((await app.ctx.workspaces.counts(owner.workspaceId)).formCount, 1);
    assert.equal((await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute()).length, 1);
  });
});
