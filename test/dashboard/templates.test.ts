import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromJson } from '../../src/db/database.js';
import type { TemplateKind } from '../../src/db/schema/template.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { flashOf, type Person, person } from '../helpers/members.js';
import { HAM, startSpamdStandIn, type SpamdStandIn } from '../helpers/spamd-stand-in.js';
import { post } from '../helpers/submit.js';

/** HTML text as the page shows it: entities decoded. */
function decoded(html: string): string {
  return html
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

describe(`dashboard: templates over HTTP (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let spamd: SpamdStandIn;
  let owner: Person;
  let formId: string;

  const stored = (id: string, kind: TemplateKind) =>
    app.ctx.database.db.selectFrom('templates').selectAll().where('formId', '=', id).where('kind', '=', kind).executeTakeFirst();
  const testJobs = async (to: string) =>
    (await app.ctx.database.db.selectFrom('jobs').select(['kind', 'payload']).where('kind', '=', 'email').execute())
      .map((job) => fromJson<{ to: string[]; subject: string; html: string; text: string; replyTo?: string }>(job.payload))
      .filter((payload) => payload.to.includes(to));

  async function newForm(who: Person, upgraded = true): Promise<string> {
    if (upgraded) await app.ctx.workspaces.setPlan(who.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const form = await app.ctx.forms.createForm(who.userId, who.workspaceId, { name: 'Contact', notificationEmails: ['team@example.com'] });
    return form.id;
  }

  before(async () => {
    spamd = await startSpamdStandIn();
    app = await startApp({ spamdUrl: spamd.url });
    owner = await person(app, 'owner');
    formId = await newForm(owner);
    const sent = await post(app, formId, { 'first name': 'Ada', email: 'ada@example.com', message: 'Hello\nthere', 'car.color': 'red' });
    assert.equal(sent.status, 303);
  });
  after(async () => {
    await app?.close();
    await spamd?.close();
  });

  it('lists both templates with their state and links to each editor', async () => {
    const page = await owner.client.get(`/forms/${formId}/templates`);
    assert.equal(page.status, 200);
    assert.match(page.html, /<title>Templates · Contact · Formgate<\/title>/);
    assert.match(page.html, /aria-current="page">Templates</);
    assert.match(page.html, /class="badge">Default layout</);
    assert.match(page.html, /class="badge neutral">Off</);
    assert.match(page.html, new RegExp(`href="/forms/${formId}/templates/notification"`));
    assert.match(page.html, new RegExp(`href="/forms/${formId}/templates/autoresponder"`));
  });

  it('opens an editor with a starting point, the form’s fields as placeholders in the engine’s syntax, and the standard ones', async () => {
    const page = await owner.client.get(`/forms/${formId}/templates/notification`);
    assert.equal(page.status, 200);
    const html = decoded(page.html);
    assert.match(html, /<label for="code">Template code<\/label>/);
    assert.match(html, /<textarea id="code" name="code" class="code-editor" rows="22" spellcheck="false"[^>]*>[^<]*<!DOCTYPE html>/);
    assert.match(html, /{{#each data}}/, 'the default layout written as a template');
    for (const placeholder of ['{{data.[first name]}}', '{{data.email}}', '{{data.message}}', '{{data.car}}', '{{data.car.color}}', '{{data}}']) {
      assert.ok(html.includes(`<code>${placeholder}</code>`), `lists ${placeholder}`);
      assert.ok(html.includes(`data-insert="${placeholder}"`), `an Insert button for ${placeholder}`);
    }
    assert.match(html, /name="template-preview" title="Preview of the email" sandbox src=/);
    assert.match(html, /{{#if files}}/, 'the starting point lists the files too');
    assert.ok(html.includes('<code>{{#each files}}<a href="{{url}}">{{name}}</a> ({{sizeText}})\n{{/each}}</code>'), 'the files’ placeholder');
    const autoresponder = await owner.client.get(`/forms/${formId}/templates/autoresponder`);
    assert.ok(!decoded(autoresponder.html).includes('{{#each files}}'), 'not offered to the autoresponder');
    assert.equal((await owner.client.get(`/forms/${formId}/templates/newsletter`)).status, 404, 'no third kind');
  });

  it('saves the code (line ends as typed), then shows it as custom; the API reads the same template', async () => {
    await owner.client.get(`/forms/${formId}/templates/notification`);
    const answer = await owner.client.post(`/forms/${formId}/templates/notification`, {
      code: '<h1>New: {{data.[first name]}}</h1>\r\n<p>{{data.message}}</p>',
    });
    assert.equal(answer.status, 303);
    assert.equal(answer.location, `/forms/${formId}/templates/notification`);
    assert.equal((await stored(formId, 'notification'))?.code, '<h1>New: {{data.[first name]}}</h1>\n<p>{{data.message}}</p>');
    const page = await owner.client.get(answer.location);
    assert.equal(flashOf(page.html), 'Notification template saved');
    assert.match(page.html, /class="badge">Custom</);
    assert.ok(decoded(page.html).includes('>New: {{data.[first name]}}</h1>\n<p>{{data.message}}</p></textarea>'));
    const list = await owner.client.get(`/forms/${formId}/templates`);
    assert.match(list.html, /class="badge">Custom</);
  });

  it('refuses code that does not compile: its problems at their lines, linked to the editor; nothing stored', async () => {
    const before = (await stored(formId, 'notification'))?.code;
    await owner.client.get(`/forms/${formId}/templates/notification`);
    const broken = '<p>\n{{#if data.name}}\nHello {{data.name}}\n';
    const answer = await owner.client.post(`/forms/${formId}/templates/notification`, { code: broken });
    assert.equal(answer.status, 400);
    const html = decoded(answer.html);
    assert.match(html, /<div class="alert" role="alert" id="code-errors"><p>Not saved: the template has a problem\. The saved template is kept\.<\/p>/);
    assert.match(html, /<a href="#code" data-line="4">Line 4<\/a>: A block is not closed: add its {{\/…}} before the end\./);
    assert.match(html, /aria-describedby="code-errors code-hint" aria-invalid="true"/);
    assert.ok(html.includes(`>${broken}</textarea>`), 'the code typed is kept');
    const helper = await owner.client.post(`/forms/${formId}/templates/notification`, { code: 'a\n\n{{lookup data "x"}}\n{{{data.raw}}}' });
    assert.equal(helper.status, 400);
    assert.match(decoded(helper.html), /Line 3<\/a>: Unknown helper "lookup"\.[\s\S]*Line 4<\/a>: Unescaped output/);
    assert.equal((await stored(formId, 'notification'))?.code, before, 'the stored template is kept');
  });

  it('stores a paused autoresponder with the check’s reasons, and shows them on the editor and the templates page', async () => {
    await owner.client.get(`/forms/${formId}/templates/autoresponder`);
    const answer = await owner.client.post(`/forms/${formId}/templates/autoresponder`, {
      code: '<p>Buy now: a limited time discount!!! See https://shop.example.com</p>',
    });
    assert.equal(answer.status, 303);
    const row = await stored(formId, 'autoresponder');
    assert.equal(row?.paused, 1);
    const reasons = fromJson<string[]>(row!.pausedReasons);
    assert.ok(reasons.some((r) => /marketing phrasing/.test(r)) && reasons.includes('1 bare link(s)'), reasons.join('; '));
    const page = await owner.client.get(answer.location!);
    assert.match(flashOf(page.html) ?? '', /^Saved, but paused by the content check/);
    assert.match(page.html, /class="badge warning">Paused</);
    for (const reason of reasons) assert.ok(decoded(page.html).includes(`<li>${reason}</li>`), `shows “${reason}”`);
    assert.match(page.html, /each save checks the template again/);
    const list = await owner.client.get(`/forms/${formId}/templates`);
    assert.match(list.html, /class="badge warning">Paused</);
    assert.ok(decoded(list.html).includes('<li>1 bare link(s)</li>'));
    // rewritten: on, the reasons gone
    await owner.client.post(`/forms/${formId}/templates/autoresponder`, { code: '<p>Thank you, {{data.name}}.</p>' });
    const rewritten = await stored(formId, 'autoresponder');
    assert.equal(rewritten?.paused, 0);
    assert.equal(rewritten?.pausedReasons, null);
    assert.match((await owner.client.get(`/forms/${formId}/templates`)).html, /class="badge">On</);
  });

  it('says so when the content checker cannot be reached, keeps the code typed, and stores nothing', async () => {
    const before = await stored(formId, 'autoresponder');
    spamd.reply = () => 'not a spamd answer\r\n';
    try {
      await owner.client.get(`/forms/${formId}/templates/autoresponder`);
      const answer = await owner.client.post(`/forms/${formId}/templates/autoresponder`, { code: '<p>Thanks!</p>' });
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.get('retry-after'), '30');
      assert.match(answer.html, /role="alert">The content checker could not be reached; nothing was stored\. Try again in a moment\.</);
      assert.match(answer.html, /&lt;p>Thanks!&lt;\/p><\/textarea>/);
    } finally {
      spamd.reply = HAM;
    }
    assert.deepEqual(await stored(formId, 'autoresponder'), before);
  });

  it('previews unsaved code through the sending code, subject and text included, in a document only the dashboard may frame', async () => {
    await owner.client.get(`/forms/${formId}/templates/autoresponder`);
    const answer = await owner.client.post(`/forms/${formId}/templates/autoresponder/preview`, {
      code: '<p>Dear {{data.[first name]}}, thanks for: <b>{{data.message}}</b></p>',
    });
    assert.equal(answer.status, 200);
    const csp = answer.headers.get('content-security-policy') ?? '';
    assert.match(csp, /(^|; )default-src 'none'(;|$)/);
    assert.match(csp, /(^|; )frame-ancestors 'self'(;|$)/);
    assert.match(csp, /(^|; )sandbox(;|$)/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(answer.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    const html = decoded(answer.html);
    assert.match(html, /<dt>Subject<\/dt><dd>We received your message<\/dd>/);
    assert.match(html, /<dt>To<\/dt><dd>ada@example\.com<\/dd>/);
    assert.match(html, /<dt>Reply-To<\/dt><dd>team@example\.com<\/dd>/);
    assert.match(html, /Unsaved changes, filled in with the latest submission/);
    // the email sits, escaped, in a sandboxed frame of its own
    assert.match(answer.html, /<iframe title="The email" sandbox srcdoc="&lt;p>Dear Ada, thanks for: &lt;b>Hello\nthere&lt;\/b>&lt;\/p>"/);
    assert.match(html, /<summary>Plain-text alternative<\/summary><pre>Dear Ada, thanks for: Hello\nthere<\/pre>/);
    assert.equal((await stored(formId, 'autoresponder'))?.code, '<p>Thank you, {{data.name}}.</p>', 'a preview stores nothing');
    // the dashboard's own pages still refuse every frame
    const editor = await owner.client.get(`/forms/${formId}/templates/autoresponder`);
    assert.match(editor.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  });

  it('shows the problems of unsaved code in the preview at their lines, and the stored template or default layout on GET', async () => {
    await owner.client.get(`/forms/${formId}/templates/notification`);
    const broken = await owner.client.post(`/forms/${formId}/templates/notification/preview`, { code: '<p>ok</p>\n{{#each data}}\n{{/with}}' });
    assert.equal(broken.status, 400);
    assert.match(broken.headers.get('content-security-policy') ?? '', /sandbox/);
    assert.match(decoded(broken.html), /<li>Line 2: Each doesn't match with\.<\/li>/);
    const saved = await owner.client.get(`/forms/${formId}/templates/notification/preview`);
    assert.equal(saved.status, 200);
    assert.match(decoded(saved.html), /<dt>Subject<\/dt><dd>New submission: Contact<\/dd>/);
    assert.match(decoded(saved.html), /The saved template, filled in/);
    assert.match(saved.html, /srcdoc="&lt;h1>New: Ada&lt;\/h1>/);
    const other = await person(app, 'fresh');
    const fresh = await newForm(other);
    const layout = decoded((await other.client.get(`/forms/${fresh}/templates/notification/preview`)).html);
    assert.match(layout, /The default layout, filled in with sample data\./);
    assert.match(layout, /Jane Doe/);
    const starter = decoded((await other.client.get(`/forms/${fresh}/templates/autoresponder/preview`)).html);
    assert.match(starter, /Hello Jane Doe,/, 'an autoresponder not written yet previews the starting point the editor holds');
  });

  it('sends the saved template as a test to the logged-in person only, through the outbox, “[Test]” first and no Reply-To', async () => {
    const tester = await person(app, 'tester');
    const form = await newForm(tester);
    await tester.client.get(`/forms/${form}/templates/notification`);
    const answer = await tester.client.post(`/forms/${form}/templates/notification/test`, {});
    assert.equal(answer.status, 303);
    // no SMTP server here: the test is only written to a file, and the flash says so (issue 39, item 6)
    assert.equal(
      flashOf((await tester.client.get(answer.location!)).html),
      `A test to ${tester.email} is written to the mail folder, not sent: no SMTP server is configured`,
    );
    const [job, ...more] = await testJobs(tester.email);
    assert.equal(more.length, 0);
    assert.deepEqual(job!.to, [tester.email]);
    assert.equal(job!.subject, '[Test] New submission: Contact');
    assert.equal(job!.replyTo, undefined);
    assert.match(job!.text, /name: Jane Doe/, 'the default layout with the sample');
    assert.equal((await testJobs('team@example.com')).length, 0, 'the form’s recipients get nothing');
    // no autoresponder yet: nothing to test
    const none = await tester.client.post(`/forms/${form}/templates/autoresponder/test`, {});
    assert.equal(flashOf((await tester.client.get(none.location!)).html), 'No test sent: save the autoresponder first.');
    // at most 10 an hour
    for (let i = 0; i < 9; i++) await tester.client.post(`/forms/${form}/templates/notification/test`, {});
    assert.equal((await testJobs(tester.email)).length, 10);
    const refused = await tester.client.post(`/forms/${form}/templates/notification/test`, {});
    assert.match(
      flashOf((await tester.client.get(refused.location!)).html) ?? '',
      /^No test sent: you have sent 10 tests in the last hour\. Try again in \d+ minutes?\.$/,
    );
    assert.equal((await testJobs(tester.email)).length, 10);
  });

  it('deletes after a confirmation: the notification returns to the default layout, the autoresponder turns off', async () => {
    const confirm = await owner.client.get(`/forms/${formId}/templates/notification/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /The notification returns to the default layout/);
    assert.ok(await stored(formId, 'notification'), 'the confirmation changes nothing');
    const answer = await owner.client.post(`/forms/${formId}/templates/notification/delete`, {});
    assert.equal(answer.status, 303);
    assert.equal(answer.location, `/forms/${formId}/templates`);
    assert.equal(await stored(formId, 'notification'), undefined);
    const page = await owner.client.get(answer.location!);
    assert.equal(flashOf(page.html), 'Notification template deleted: notifications use the default layout again');
    assert.match(page.html, /class="badge">Default layout</);
    const auto = await owner.client.get(`/forms/${formId}/templates/autoresponder/delete`);
    assert.match(auto.html, /The autoresponder is turned off/);
    await owner.client.post(`/forms/${formId}/templates/autoresponder/delete`, {});
    assert.equal(await stored(formId, 'autoresponder'), undefined);
    assert.match((await owner.client.get(`/forms/${formId}/templates`)).html, /class="badge neutral">Off</);
    // again: nothing to delete, said so
    const again = await owner.client.get(`/forms/${formId}/templates/autoresponder/delete`);
    assert.equal(again.status, 303);
  });

  it('refuses every change without the CSRF token; nothing stored, nothing sent', async () => {
    await owner.client.get(`/forms/${formId}/templates/notification`);
    for (const action of ['', '/preview', '/test', '/delete']) {
      const answer = await owner.client.post(`/forms/${formId}/templates/notification${action}`, { code: '<p>forged</p>', _csrf: '' });
      assert.equal(answer.status, 403, action);
      assert.match(answer.html, /Change refused/);
    }
    assert.equal(await stored(formId, 'notification'), undefined);
    const crossSite = await owner.client.post(`/forms/${formId}/templates/notification`, { code: '<p>x</p>' }, { origin: 'https://evil.example' });
    assert.equal(crossSite.status, 403);
    assert.equal(await stored(formId, 'notification'), undefined);
  });

  it('shows an outsider the 404 page everywhere and changes nothing', async () => {
    await owner.client.post(`/forms/${formId}/templates/notification`, { code: '<p>mine</p>' });
    const outsider = await person(app, 'outsider');
    const base = `/forms/${formId}/templates`;
    for (const path of [base, `${base}/notification`, `${base}/autoresponder`, `${base}/notification/preview`, `${base}/notification/delete`]) {
      const answer = await outsider.client.get(path);
      assert.equal(answer.status, 404, path);
      assert.match(answer.html, /There is nothing here, or it is not yours to see\./);
      assert.doesNotMatch(answer.html, /mine/);
    }
    for (const path of [`${base}/notification`, `${base}/notification/preview`, `${base}/notification/test`, `${base}/notification/delete`]) {
      const answer = await outsider.client.post(path, { code: '<p>theirs</p>' });
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.html, /mine/);
    }
    assert.equal((await stored(formId, 'notification'))?.code, '<p>mine</p>');
    assert.equal((await testJobs(outsider.email)).length, 0);
    assert.equal((await outsider.client.get('/forms/no-such-form/templates')).status, 404);
  });

  it('works on a FREE workspace, and says the autoresponder is not sent there', async () => {
    const free = await person(app, 'free');
    const form = await newForm(free, false);
    await free.client.get(`/forms/${form}/templates/autoresponder`);
    const saved = await free.client.post(`/forms/${form}/templates/autoresponder`, { code: '<p>Thank you!</p>' });
    assert.equal(saved.status, 303);
    assert.equal((await stored(form, 'autoresponder'))?.paused, 0);
    for (const path of [`/forms/${form}/templates`, `/forms/${form}/templates/autoresponder`]) {
      assert.match((await free.client.get(path)).html, /This workspace is on the Free plan, which does not send the autoresponder\./, path);
    }
    assert.equal((await free.client.post(`/forms/${form}/templates/autoresponder/preview`, { code: '<p>x</p>' })).status, 200);
    assert.equal((await free.client.post(`/forms/${form}/templates/autoresponder/test`, {})).status, 303);
    assert.equal((await testJobs(free.email)).length, 1);
  });
});
