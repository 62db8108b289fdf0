import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FILE_UPLOADS } from '../../src/domain/uploads.js';
import { toFormResource } from '../../src/services/forms.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { CAPTCHA_SECRET, CAPTCHA_TOKEN, startCaptchaProvider, type CaptchaProvider } from '../helpers/captcha-provider.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createToken, DEFAULT_FORM_BEHAVIOUR } from '../helpers/fixtures.js';
import { person, type Person } from '../helpers/members.js';
import { JSON_ACCEPT, post as submit, postJson } from '../helpers/submit.js';
import { eventually } from '../helpers/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { Webhook } from 'standardwebhooks';
import { fieldAnchor, settingsWords } from '../../src/dashboard/form-settings-sections.js';

/** The text of the element with that id (a field's message), entities decoded. */
function textOf(html: string, id: string): string | undefined {
  const match = new RegExp(`id="${id.replace(/[[\]]/g, '\\$&')}"[^>]*>([^<]*)<`).exec(html);
  return match?.[1]
    ?.replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Every settable field, as the page's inputs post them (the lists one input per entry). */
function fieldsOf(settings: Record<string, string | string[] | boolean>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(settings)) {
    if (Array.isArray(value)) for (const v of value) pairs.push([name, v]);
    else if (typeof value === 'boolean') {
      if (value) pairs.push([name, 'on']);
    } else pairs.push([name, value]);
  }
  return pairs;
}

const BLANK = {
  name: 'Contact',
  description: '',
  technology: '',
  notificationEmails: [] as string[],
  emailThreading: false,
  webhookUrl: '',
  slackChannel: '',
  customHoneypot: '',
  customSpamWords: '',
  spamProtection: '',
  allowedOrigins: [] as string[],
  retentionDays: '',
};

describe(`dashboard: a form's settings over HTTP (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let provider: CaptchaProvider;
  let owner: Person;
  let outsider: Person;
  let token: string;

  const newForm = async (name = 'Contact') => (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name })).id;
  const resource = async (formId: string) => toFormResource(await app.ctx.forms.getForm(owner.userId, formId));

  before(async () => {
    provider = await startCaptchaProvider();
    app = await startApp(provider.env);
    owner = await person(app, 'owner');
    outsider = await person(app, 'outsider');
    // upgraded, so that the API answers and its messages can be compared with the page's
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    token = await createToken(app, owner.userId, ['forms:read', 'forms:write']);
  });
  after(async () => {
    await app?.close();
    await provider?.close();
  });

  it('shows every setting of the form, and saves every one of them', async () => {
    const formId = await newForm();
    const page = await owner.client.get(`/forms/${formId}/settings`);
    assert.equal(page.status, 200);
    assert.match(page.html, /<title>Settings · Contact · Formgate<\/title>/);
    assert.match(page.html, /id="field-name"[^>]*value="Contact"/);

    await app.ctx.forms.setSecret(formId, 'HCAPTCHA', 'hcaptcha-key');
    const settings = {
      name: 'Contact us',
      description: 'The form\non the contact page',
      technology: 'Astro',
      notificationEmails: ['ada@example.com', 'grace@example.com'],
      emailThreading: true,
      webhookUrl: 'https://hooks.example.com/formgate',
      slackChannel: '#leads',
      customHoneypot: 'website',
      customSpamWords: 'casino\nlottery',
      spamProtection: 'HCAPTCHA',
      allowedOrigins: ['https://example.com', 'http://localhost:3000'],
    };
    // a textarea's line breaks arrive as CRLF
    const answer = await owner.client.post(
      `/forms/${formId}/settings`,
      fieldsOf({ ...settings, retentionDays: ' 30 ', description: 'The form\r\non the contact page', customSpamWords: 'casino\r\nlottery' }),
    );
    assert.equal(answer.status, 303, answer.html.slice(0, 500));
    assert.equal(answer.location, `/forms/${formId}/settings`);
    const saved = await resource(formId);
    assert.deepEqual(
      { ...saved, id: undefined, workspaceId: undefined, createdAt: undefined, updatedAt: undefined },
      {
        ...settings,
        retentionDays: 30,
        // the File uploads panel was not posted: uploads stay as they were (test/dashboard/uploads.test.ts)
        fileUploads: DEFAULT_FILE_UPLOADS,
        // the behaviour panels were not posted either: as they were (test/dashboard/form-behaviour.test.ts)
        ...DEFAULT_FORM_BEHAVIOUR,
        id: undefined,
        workspaceId: undefined,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );

    const shown = await owner.client.get(`/forms/${formId}/settings`);
    assert.match(shown.html, /class="flash" role="status">Settings saved</);
    assert.match(shown.html, /id="field-notificationEmails-1"[^>]*value="grace@example.com"/);
    assert.match(shown.html, /id="field-allowedOrigins-0"[^>]*value="https:\/\/example.com"/);
    assert.match(shown.html, /id="field-emailThreading"[^>]*checked/);
    assert.match(shown.html, /<option value="HCAPTCHA" selected>hCaptcha \(secret key stored\)<\/option>/);
    assert.match(shown.html, /<textarea id="field-customSpamWords"[^>]*>casino\nlottery<\/textarea>/);
    assert.match(shown.html, /id="field-retentionDays"[^>]*value="30"/);
    assert.match(shown.html, /Now: submissions are deleted 30 days after they arrive\./);

    // clearing: empty texts become null, the lists empty
    const cleared = await owner.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, name: 'Contact us' }));
    assert.equal(cleared.status, 303);
    const after = await resource(formId);
    assert.deepEqual(
      [
        after.description,
        after.technology,
        after.notificationEmails,
        after.emailThreading,
        after.webhookUrl,
        after.spamProtection,
        after.allowedOrigins,
        after.retentionDays,
      ],
      [null, null, [], false, null, null, [], null],
    );
  });

  it('refuses each bad value with the API’s own message beside its field, and changes nothing', async () => {
    const formId = await newForm();
    await owner.client.get(`/forms/${formId}/settings`);
    const before = await resource(formId);
    const cases: [string, Record<string, string | string[] | boolean>, string][] = [
      ['an empty name', { name: '' }, 'name'],
      ['a long description', { description: 'x'.repeat(513) }, 'description'],
      ['a long technology', { technology: 'x'.repeat(129) }, 'technology'],
      ['a second address that is none', { notificationEmails: ['ada@example.com', 'not-an-address'] }, 'notificationEmails[1]'],
      ['an address twice', { notificationEmails: ['ada@example.com', 'ada@example.com'] }, 'notificationEmails'],
      ['a webhook URL that is none', { webhookUrl: 'not a url' }, 'webhookUrl'],
      ['a webhook to localhost', { webhookUrl: 'http://localhost:8080/hook' }, 'webhookUrl'],
      ['a long Slack channel', { slackChannel: '#'.repeat(129) }, 'slackChannel'],
      ['a long honeypot', { customHoneypot: 'h'.repeat(129) }, 'customHoneypot'],
      ['too many spam words', { customSpamWords: 'w'.repeat(2561) }, 'customSpamWords'],
      ['a provider without its secret', { spamProtection: 'TURNSTILE' }, 'spamProtection'],
      ['a provider that does not exist', { spamProtection: 'RECAPTCHA_V9' }, 'spamProtection'],
      ['an origin with a path', { allowedOrigins: ['https://example.com/contact'] }, 'allowedOrigins[0]'],
    ];
    for (const [what, change, field] of cases) {
      const settings = { ...BLANK, ...change };
      const answer = await owner.client.post(`/forms/${formId}/settings`, fieldsOf(settings));
      assert.equal(answer.status, 400, what);
      // the API, sent the same change, says the same
      const patch = Object.fromEntries(Object.entries(change).map(([k, v]) => [k, v === '' && k !== 'name' ? null : Array.isArray(v) ? v : v]));
      const api = await app.api('PATCH', `/forms/${formId}`, { token, body: patch });
      assert.equal(api.status, 400, `${what}: the API refuses it too`);
      const apiLine = (api.body.errors as string[]).find((line) => line.startsWith(`${field}:`));
      assert.ok(apiLine, `${what}: the API names ${field}: ${JSON.stringify(api.body.errors)}`);
      // the API's problem, in plain words about the field (issue 41, item 11), beside it and linked from the top
      const message = settingsWords(field, apiLine.slice(field.length + 2));
      assert.match(message, /^(The|Address|Origin|No) /, `${what}: ${message}`);
      assert.doesNotMatch(message, /NOT|null/, `${what}: ${message}`);
      const banner = /id="settings-problems">(.*?)<\/div>/s.exec(answer.html)?.[1] ?? '';
      assert.ok(banner.includes(`<a href="#${fieldAnchor(field)}">`), `${what}: the banner links to the field`);
      const id = field.includes('[')
        ? `field-${field.replace(/\[(\d+)\]/, '-$1')}-error`
        : ['notificationEmails', 'allowedOrigins'].includes(field)
          ? `${field}-error`
          : `field-${field}-error`;
      assert.equal(textOf(answer.html, id), message, what);
      assert.deepEqual(await resource(formId), before, `${what}: nothing changed`);
    }
  });

  it('refuses a retention that is not a whole number of days from 1 to 3650 beside its field, and changes nothing', async () => {
    const formId = await newForm();
    await owner.client.get(`/forms/${formId}/settings`);
    const before = await resource(formId);
    for (const typed of ['0', '3651', '-5', '1.5', 'thirty', '30 days', '9999999']) {
      const answer = await owner.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, retentionDays: typed }));
      assert.equal(answer.status, 400, typed);
      assert.equal(
        textOf(answer.html, 'field-retentionDays-error'),
        'The number of days to keep submissions must be a whole number from 1 to 3650, or empty to keep submissions until you delete them.',
        typed,
      );
      assert.match(answer.html, new RegExp(`id="field-retentionDays"[^>]*value="${typed.replace('.', '\\.')}"`), `${typed}: shown again as typed`);
      assert.deepEqual(await resource(formId), before, `${typed}: nothing changed`);
    }
    const edge = await owner.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, retentionDays: '3650' }));
    assert.equal(edge.status, 303);
    assert.equal((await resource(formId)).retentionDays, 3650);
  });

  it('refuses a U+0000 as every dashboard page does (the hook the API shares), and changes nothing', async () => {
    const formId = await newForm();
    await owner.client.get(`/forms/${formId}/settings`);
    const answer = await owner.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, name: 'Con\0tact' }));
    assert.equal(answer.status, 400);
    assert.match(answer.html, /The request holds a U\+0000 \(NUL\) character, which cannot be stored\./);
    assert.equal((await resource(formId)).name, 'Contact');
  });

  it('saves one section at a time: its form posts only its own fields, and its save changes nothing else (issue 41, item 11)', async () => {
    const formId = await newForm();
    await app.ctx.forms.updateForm(owner.userId, formId, {
      description: 'Kept',
      notificationEmails: ['ada@example.com'],
      thanksTitle: 'Thanks!',
      retentionDays: 30,
      allowedOrigins: ['https://example.com'],
    });
    const page = await owner.client.get(`/forms/${formId}/settings`);
    const without = ({ updatedAt: _, ...rest }: Awaited<ReturnType<typeof resource>>) => rest;
    // each section's form holds only its own inputs
    const forms = [...page.html.matchAll(/<form method="post" action="[^"]*\/settings" novalidate class="settings-form">(.*?)<\/form>/gs)].map((m) => m[1]!);
    const namesOf = (html: string) => new Set([...html.matchAll(/ name="([^"]+)"/g)].map((m) => m[1]!));
    const general = forms.find((html) => html.includes('name="section" value="general"'))!;
    assert.deepEqual([...namesOf(general)].sort(), ['_csrf', 'action', 'description', 'name', 'section', 'technology']);
    const after = forms.find((html) => html.includes('name="section" value="after-submission"'))!;
    assert.deepEqual([...namesOf(after)].sort(), ['_csrf', 'action', 'behaviourShown', 'redirectUrl', 'section', 'thanksMessage', 'thanksTitle']);
    assert.equal(forms.length, 8, 'eight sections, each its own form');

    // a section's post changes its own fields only, even when it carries another section's
    const before = await resource(formId);
    const saved = await owner.client.post(`/forms/${formId}/settings`, [
      ['section', 'general'],
      ['name', 'Renamed'],
      ['description', 'Kept'],
      ['technology', ''],
      ['thanksTitle', 'Forged'],
      ['retentionDays', ''],
      ['notificationEmails', 'mallory@example.com'],
    ]);
    assert.equal(saved.status, 303, saved.html.slice(0, 300));
    assert.equal(saved.location, `/forms/${formId}/settings?saved=general#general`);
    assert.deepEqual(without(await resource(formId)), { ...without(before), name: 'Renamed' });
    const confirmed = await owner.client.get(saved.location!);
    assert.equal(textOf(confirmed.html, 'general-saved'), 'General settings saved.');

    // a refused section: nothing changes; the top names the section and links to the field; the plain sentence beside it
    const stored = await resource(formId);
    const refused = await owner.client.post(`/forms/${formId}/settings`, [
      ['section', 'after-submission'],
      ['behaviourShown', '1'],
      ['redirectUrl', ''],
      ['thanksTitle', 't'.repeat(201)],
      ['thanksMessage', ''],
    ]);
    assert.equal(refused.status, 400);
    assert.deepEqual(await resource(formId), stored, 'nothing changed');
    const banner = /id="settings-problems">(.*?)<\/div>/s.exec(refused.html)?.[1] ?? '';
    assert.match(banner, /Nothing was saved in After a submission:/);
    assert.match(banner, /<a href="#field-thanksTitle">The thank-you title can be at most 200 characters\.<\/a>/);
    assert.equal(textOf(refused.html, 'field-thanksTitle-error'), 'The thank-you title can be at most 200 characters.');
    assert.match(refused.html, /id="field-thanksTitle"[^>]*aria-invalid="true"/);
    // the other sections show what is stored
    assert.match(refused.html, /id="field-name"[^>]*value="Renamed"/);
    assert.match(refused.html, /id="field-retentionDays"[^>]*value="30"/);
  });

  it('adds to and removes from the lists without saving, and keeps what the Add input holds on save', async () => {
    const formId = await newForm();
    await owner.client.get(`/forms/${formId}/settings`);
    const base = { ...BLANK, notificationEmails: ['ada@example.com'] };
    const added = await owner.client.post(`/forms/${formId}/settings`, [
      ...fieldsOf(base),
      ['addNotificationEmails', 'grace@example.com'],
      ['action', 'add:notificationEmails'],
    ]);
    assert.equal(added.status, 200);
    assert.match(added.html, /id="field-notificationEmails-1"[^>]*value="grace@example.com"/);
    assert.match(added.html, /press <strong>Save notifications<\/strong> to keep it/);
    assert.deepEqual((await resource(formId)).notificationEmails, [], 'nothing saved yet');

    const removed = await owner.client.post(`/forms/${formId}/settings`, [
      ...fieldsOf({ ...base, notificationEmails: ['ada@example.com', 'grace@example.com'] }),
      ['action', 'remove:notificationEmails:0'],
    ]);
    assert.equal(removed.status, 200);
    assert.match(removed.html, /id="field-notificationEmails-0"[^>]*value="grace@example.com"/);
    assert.doesNotMatch(removed.html, /ada@example.com/);

    // Enter in a field saves (the page's first submit button); the Add input's address is kept
    const saved = await owner.client.post(`/forms/${formId}/settings`, [
      ...fieldsOf({ ...base, allowedOrigins: ['https://example.com'] }),
      ['addNotificationEmails', 'grace@example.com'],
      ['addAllowedOrigins', 'https://www.example.com'],
      ['action', 'save'],
    ]);
    assert.equal(saved.status, 303, saved.html.slice(0, 300));
    const form = await resource(formId);
    assert.deepEqual(form.notificationEmails, ['ada@example.com', 'grace@example.com']);
    assert.deepEqual(form.allowedOrigins, ['https://example.com', 'https://www.example.com']);
  });

  it('stores a secret write-only: said to be set, never shown again; replaced, and removed unless in use', async () => {
    const formId = await newForm();
    await owner.client.get(`/forms/${formId}/settings`);
    const secret = 'turnstile-secret-0x4AAAAA-very-private';
    const saved = await owner.client.post(`/forms/${formId}/settings/secrets/TURNSTILE`, { secret: `  ${secret}\n` });
    assert.equal(saved.status, 303);
    assert.equal(saved.location, `/forms/${formId}/settings#secret-keys`);
    const page = await owner.client.get(`/forms/${formId}/settings`);
    assert.match(page.html, /Cloudflare Turnstile secret key saved/);
    assert.ok(!page.html.includes(secret), 'the secret is never in the page');
    assert.match(page.html, /Cloudflare Turnstile \(secret key stored\)/);
    const stored = await app.ctx.database.db
      .selectFrom('formSecrets')
      .select('secret')
      .where('formId', '=', formId)
      .where('provider', '=', 'TURNSTILE')
      .executeTakeFirstOrThrow();
    assert.equal(stored.secret, secret, 'stored trimmed');
    const api = await app.api('GET', `/forms/${formId}`, { token });
    assert.ok(!JSON.stringify(api.body).includes(secret), 'nor in the API');

    // refused shapes: the message beside that provider's input, nothing stored
    for (const [what, value, message] of [
      ['empty', '   ', 'The secret key must be 1 to 1024 characters.'],
      ['too long', 'k'.repeat(1025), 'The secret key must be 1 to 1024 characters.'],
      ['with a space', 'two words', 'The secret key must not contain spaces, line breaks or control characters.'],
    ] as const) {
      const refused = await owner.client.post(`/forms/${formId}/settings/secrets/HCAPTCHA`, { secret: value });
      assert.equal(refused.status, 400, what);
      assert.equal(textOf(refused.html, 'secret-HCAPTCHA-error'), message, what);
    }
    assert.deepEqual(
      (await app.ctx.forms.listSecrets(owner.userId, formId)).map((s) => s.provider),
      ['TURNSTILE'],
    );

    // in use: no Remove button, and a forged removal is refused with the reason
    assert.equal((await owner.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, spamProtection: 'TURNSTILE' }))).status, 303);
    const inUse = await owner.client.get(`/forms/${formId}/settings`);
    assert.doesNotMatch(inUse.html, /action="\/forms\/[^"]+\/secrets\/TURNSTILE\/remove"/);
    const refused = await owner.client.post(`/forms/${formId}/settings/secrets/TURNSTILE/remove`, {});
    assert.equal(refused.status, 409);
    assert.match(textOf(refused.html, 'secret-TURNSTILE-error') ?? '', /^The form requires TURNSTILE on every submission; choose another spam protection/);

    // replaced, then removed once no longer in use
    assert.equal((await owner.client.post(`/forms/${formId}/settings/secrets/TURNSTILE`, { secret: 'replacement' })).status, 303);
    assert.equal((await owner.client.post(`/forms/${formId}/settings`, fieldsOf(BLANK))).status, 303);
    await owner.client.get(`/forms/${formId}/settings`);
    const removed = await owner.client.post(`/forms/${formId}/settings/secrets/TURNSTILE/remove`, {});
    assert.equal(removed.status, 303);
    assert.deepEqual(await app.ctx.forms.listSecrets(owner.userId, formId), []);

    // the Slack token, in use while a channel is set
    await owner.client.post(`/forms/${formId}/settings/secrets/SLACK`, { secret: 'xoxb-123-456' });
    await owner.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, slackChannel: '#leads' }));
    const slack = await owner.client.post(`/forms/${formId}/settings/secrets/SLACK/remove`, {});
    assert.equal(slack.status, 409);
    assert.match(textOf(slack.html, 'secret-SLACK-error') ?? '', /clear the Slack channel/);

    // the webhook's secret is not one of these
    assert.equal((await owner.client.post(`/forms/${formId}/settings/secrets/WEBHOOK`, { secret: 'whsec_x' })).status, 404);
  });

  it('a captcha secret saved here is used by the very next submission', async () => {
    const formId = await newForm();
    provider.reset();
    provider.expect('TURNSTILE', { secret: CAPTCHA_SECRET, token: CAPTCHA_TOKEN });
    // a submission first, so that intake has the form (kept in memory on SQLite)
    assert.equal((await postJson(app, formId, { message: 'before' })).status, 200);
    await owner.client.get(`/forms/${formId}/settings`);
    assert.equal((await owner.client.post(`/forms/${formId}/settings/secrets/TURNSTILE`, { secret: CAPTCHA_SECRET })).status, 303);
    assert.equal((await owner.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, spamProtection: 'TURNSTILE' }))).status, 303);

    const forged = await postJson(app, formId, { message: 'bot', 'cf-turnstile-response': 'forged' });
    assert.equal(forged.status, 400);
    assert.equal(forged.body.code, 'captcha_failed');
    const good = await submit(app, formId, { message: 'person', 'cf-turnstile-response': CAPTCHA_TOKEN }, { accept: JSON_ACCEPT });
    assert.equal(good.status, 200, JSON.stringify(good.body));
    assert.deepEqual(
      provider.requestsFor('TURNSTILE').map((r) => [r.secret, r.token]),
      [
        [CAPTCHA_SECRET, 'forged'],
        [CAPTCHA_SECRET, CAPTCHA_TOKEN],
      ],
    );
    // a replaced secret is used from the next submission on
    await owner.client.post(`/forms/${formId}/settings/secrets/TURNSTILE`, { secret: 'a-new-secret' });
    const stale = await postJson(app, formId, { message: 'person', 'cf-turnstile-response': CAPTCHA_TOKEN });
    assert.equal(stale.status, 400, 'the provider refuses the new (wrong) secret');
    assert.equal(provider.requestsFor('TURNSTILE').at(-1)!.secret, 'a-new-secret');
  });

  it('offers ALTCHA, which needs no secret key, and the Setup page shows its widget served by the submit surface', async () => {
    const formId = await newForm();
    const settings = await owner.client.get(`/forms/${formId}/settings`);
    assert.match(settings.html, /<option value="ALTCHA">ALTCHA \(proof of work, run by Formgate: no key needed\)<\/option>/);
    assert.equal((await owner.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, spamProtection: 'ALTCHA' }))).status, 303);
    assert.equal((await app.ctx.forms.getForm(owner.userId, formId)).spamProtection, 'ALTCHA');
    assert.deepEqual(await app.ctx.forms.listSecrets(owner.userId, formId), [], 'no key was asked for');
    const shown = await owner.client.get(`/forms/${formId}/settings`);
    assert.match(shown.html, /<option value="ALTCHA" selected>/);
    assert.doesNotMatch(shown.html, /secrets\/ALTCHA/, 'ALTCHA has no secret key input');

    const setup = await owner.client.get(`/forms/${formId}/setup`);
    const base = `${app.submitUrl}/altcha`;
    const code = setup.html.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    assert.ok(code.includes(`<altcha-widget challenge="${base}/challenge?form=${formId}"></altcha-widget>`), 'the widget');
    assert.ok(code.includes(`<script type="module" src="${base}/altcha.js"></script>`), 'the script');
    assert.doesNotMatch(setup.html, /YOUR_SITE_KEY/);
  });

  it('reveals the webhook signing secret only in a POST’s answer, and rotates it after a confirmation', async () => {
    const formId = await newForm();
    const page = await owner.client.get(`/forms/${formId}/settings`);
    assert.match(page.html, /Reveal signing secret/);
    const revealed = await owner.client.post(`/forms/${formId}/settings/webhook-secret`, {});
    assert.equal(revealed.status, 200);
    assert.equal(revealed.headers.get('cache-control'), 'no-store');
    const secret = textOf(revealed.html, 'webhook-secret-value');
    assert.match(secret ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(secret, await app.ctx.forms.webhookSecret(formId));
    assert.ok(!(await owner.client.get(`/forms/${formId}/settings`)).html.includes(secret!), 'not on the page otherwise');

    const confirm = await owner.client.get(`/forms/${formId}/settings/webhook-secret/rotate`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /Rotate the webhook signing secret\?/);
    assert.match(confirm.html, /including those already waiting/);
    const rotated = await owner.client.post(`/forms/${formId}/settings/webhook-secret/rotate`, {});
    assert.equal(rotated.status, 200);
    assert.equal(rotated.headers.get('cache-control'), 'no-store');
    const fresh = textOf(rotated.html, 'webhook-secret-value');
    assert.match(fresh ?? '', /^whsec_/);
    assert.notEqual(fresh, secret);
    assert.equal(fresh, await app.ctx.forms.webhookSecret(formId), 'deliveries are signed with the new one');
    assert.match(rotated.html, /Webhook signing secret rotated/);
  });

  it('deletes a form after a confirmation that counts what goes with it', async () => {
    const formId = await newForm('Old survey');
    await app.ctx.forms.updateForm(owner.userId, formId, { notificationEmails: ['ada@example.com'], customSpamWords: 'casino' });
    await app.ctx.forms.setSecret(formId, 'HCAPTCHA', 'k');
    assert.equal((await postJson(app, formId, { message: 'hello' })).status, 200);
    assert.equal((await postJson(app, formId, { message: 'hello again' })).status, 200);
    assert.equal((await postJson(app, formId, { message: 'win at the casino' })).status, 200);
    const confirm = await owner.client.get(`/forms/${formId}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /Delete “Old survey”\?/);
    assert.match(confirm.html, /3 submissions \(2 in the inbox, 1 spam, 0 held\)/);
    assert.match(confirm.html, /0 email templates/);
    assert.match(confirm.html, /1 stored secret key and its webhook signing secret/);
    assert.match(confirm.html, /2 deliveries \(email, webhook, Slack\) waiting to go out: they are not sent/);

    const deleted = await owner.client.post(`/forms/${formId}/delete`, {});
    assert.equal(deleted.status, 303);
    assert.equal(deleted.location, `/w/${owner.workspaceId}`);
    await assert.rejects(app.ctx.forms.getForm(owner.userId, formId), /not found/);
    assert.equal((await owner.client.get(`/forms/${formId}/settings`)).status, 404);
  });

  it('shows an outsider the 404 page on every page and change, and changes nothing', async () => {
    const formId = await newForm();
    await owner.client.post(`/forms/${formId}/settings/secrets/BOTPOISON`, { secret: 'k' });
    const before = await resource(formId);
    for (const path of ['settings', 'settings/webhook-secret/rotate', 'delete']) {
      const answer = await outsider.client.get(`/forms/${formId}/${path}`);
      assert.equal(answer.status, 404, path);
      assert.match(answer.html, /There is nothing here, or it is not yours to see\./);
      assert.equal((await outsider.client.get(`/forms/nope/${path}`)).status, 404, `${path} of no form`);
    }
    await outsider.client.get(`/w/${outsider.workspaceId}`);
    const posts: [string, [string, string][]][] = [
      ['settings', fieldsOf({ ...BLANK, name: 'Mine now' })],
      ['settings', [...fieldsOf(BLANK), ['action', 'add:notificationEmails']]],
      ['settings/secrets/BOTPOISON', [['secret', 'mine']]],
      ['settings/secrets/BOTPOISON/remove', []],
      ['settings/webhook-secret', []],
      ['settings/webhook-secret/rotate', []],
      ['delete', []],
    ];
    const webhook = await app.ctx.forms.webhookSecret(formId);
    for (const [path, fields] of posts) {
      const answer = await outsider.client.post(`/forms/${formId}/${path}`, fields);
      assert.equal(answer.status, 404, path);
      assert.ok(!answer.html.includes(webhook), `${path}: no secret`);
    }
    await assertUnchanged(formId, before, webhook);
  });

  /** Nothing a refused change touches has changed: the form, its webhook secret, its one stored key. */
  async function assertUnchanged(formId: string, before: unknown, webhook: string): Promise<void> {
    assert.deepEqual(await resource(formId), before);
    assert.equal(await app.ctx.forms.webhookSecret(formId), webhook);
    assert.deepEqual(
      (await app.ctx.forms.listSecrets(owner.userId, formId)).map((s) => s.provider),
      ['BOTPOISON'],
    );
  }

  it('refuses every change without the page’s CSRF token', async () => {
    const formId = await newForm();
    await owner.client.post(`/forms/${formId}/settings/secrets/BOTPOISON`, { secret: 'k' });
    const before = await resource(formId);
    const webhook = await app.ctx.forms.webhookSecret(formId);
    const posts: [string, [string, string][]][] = [
      ['settings', fieldsOf({ ...BLANK, name: 'Forged' })],
      ['settings/secrets/TURNSTILE', [['secret', 'forged']]],
      ['settings/secrets/BOTPOISON/remove', []],
      ['settings/webhook-secret', []],
      ['settings/webhook-secret/rotate', []],
      ['delete', []],
    ];
    for (const [path, fields] of posts) {
      const answer = await owner.client.post(`/forms/${formId}/${path}`, [['_csrf', 'forged'], ...fields]);
      assert.equal(answer.status, 403, path);
      assert.ok(!answer.html.includes(webhook), `${path}: no secret`);
    }
    await assertUnchanged(formId, before, webhook);
  });

  it('lets any member (not only the owner) change and delete the form, as the API lets any member’s token', async () => {
    const formId = await newForm();
    const member = await person(app, 'member');
    await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
    await member.client.get(`/forms/${formId}/settings`);
    assert.equal((await member.client.post(`/forms/${formId}/settings`, fieldsOf({ ...BLANK, name: 'Renamed by a member' }))).status, 303);
    assert.equal((await resource(formId)).name, 'Renamed by a member');
    assert.equal((await member.client.post(`/forms/${formId}/delete`, {})).status, 303);
  });
});

describe(`dashboard: a rotated webhook secret signs the next webhook (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let owner: Person;

  before(async () => {
    receiver = await startWebhookReceiver();
    // the receiver is on loopback; deliveries run in this process
    app = await startApp({ allowPrivateWebhooks: 'true' }, { delivery: true });
    owner = await person(app, 'owner');
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
  });

  it('a webhook sent after the rotation verifies with the new secret and not with the old', async () => {
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Hooks', webhookUrl: receiver.url })).id;
    await owner.client.get(`/forms/${formId}/settings`);
    const old = textOf((await owner.client.post(`/forms/${formId}/settings/webhook-secret`, {})).html, 'webhook-secret-value')!;
    const fresh = textOf((await owner.client.post(`/forms/${formId}/settings/webhook-secret/rotate`, {})).html, 'webhook-secret-value')!;
    assert.notEqual(fresh, old);
    assert.equal((await postJson(app, formId, { message: 'after the rotation' })).status, 200);
    const request = await eventually(async () => receiver.requests[0], 'the webhook arrives');
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    assert.deepEqual(new Webhook(fresh).verify(request.rawBody, headers), { message: 'after the rotation' });
    assert.throws(() => new Webhook(old).verify(request.rawBody, headers), /signature/i);
  });
});

describe(`dashboard: every anchor of a form's Settings page is on it (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  before(async () => {
    app = await startApp();
    owner = await person(app, 'anchors');
  });
  after(() => app?.close());

  // Issue 39, item 21: docs/dashboard.md and the chat channels' Remove pointed at `#chat-channels`,
  // which no element had (a panel's id was only its heading's prefix); so did settings#notifications.
  it('the fragments its links, its forms and its redirects name each lead to one element', async () => {
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Anchors', webhookUrl: 'https://hooks.example.com/x' })).id;
    const settingsPath = `/forms/${formId}/settings`;
    const page = await owner.client.get(settingsPath);
    assert.equal(page.status, 200);
    const ids = [...page.html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]!);
    const named = [...page.html.matchAll(/\s(?:href|action|formaction)="([^"]*)#([^"]+)"/gi)]
      .filter(([, path]) => path === '' || path === settingsPath || path!.startsWith(`${settingsPath}/`) || path!.startsWith(`/forms/${formId}/settings`))
      .map((match) => match[2]!);
    // where the pages' actions send the browser back to (routes/form-channels.ts, form-settings.ts), and what the docs name
    const fragments = new Set([...named, 'chat-channels', 'chat-discord', 'webhook-test', 'notifications', 'form-state', 'after-submission', 'allowedOrigins']);
    for (const fragment of fragments) {
      assert.equal(ids.filter((id) => id === fragment).length, 1, `#${fragment}: one element has that id`);
    }
    const removed = await owner.client.post(`/forms/${formId}/settings/chat/discord/remove`, {});
    assert.match(removed.location ?? '', /#chat-channels$/);
  });
});
