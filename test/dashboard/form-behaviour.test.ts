import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toFormResource } from '../../src/services/forms.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { person, type Person } from '../helpers/members.js';
import { postJson } from '../helpers/submit.js';

/** The settings form as the page posts it: every panel, the behaviour's with what is given. */
function settingsFields(name: string, behaviour: Record<string, string>): [string, string][] {
  return [['action', 'save'], ['name', name], ['behaviourShown', '1'], ...Object.entries(behaviour)];
}

describe(`dashboard: a form's behaviour and state over HTTP (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  let outsider: Person;

  const newForm = async (name = 'Contact') => (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name })).id;
  const resource = async (formId: string) => toFormResource(await app.ctx.forms.getForm(owner.userId, formId));

  before(async () => {
    app = await startApp();
    owner = await person(app, 'owner');
    outsider = await person(app, 'outsider');
  });
  after(async () => {
    await app?.close();
  });

  it('saves the redirect, the thank-you wording, the emails’ subjects and names, the closing time and the cap', async () => {
    const formId = await newForm();
    const page = await owner.client.get(`/forms/${formId}/settings`);
    for (const label of [
      'Redirect to',
      'Thank-you page title',
      'Notification subject',
      'Autoresponder sender name',
      'Close the form at (UTC)',
      'Most submissions',
    ]) {
      assert.ok(page.html.includes(`>${label}</label>`), label);
    }
    assert.ok(page.html.includes('Open: the form takes submissions.'));
    const answer = await owner.client.post(
      `/forms/${formId}/settings`,
      settingsFields('Contact', {
        redirectUrl: ' https://example.com/thanks ',
        thanksTitle: 'Merci',
        thanksMessage: 'Line one\r\nLine two',
        notificationSubject: 'Lead',
        notificationFromName: 'Website',
        autoresponseSubject: 'Got it',
        autoresponseFromName: 'Acme',
        closesAt: '2031-03-01T09:30',
        maxSubmissions: '250',
      }),
    );
    assert.equal(answer.status, 303, answer.html.slice(0, 300));
    const saved = await resource(formId);
    assert.equal(saved.redirectUrl, 'https://example.com/thanks');
    assert.equal(saved.thanksMessage, 'Line one\nLine two');
    assert.equal(saved.notificationFromName, 'Website');
    assert.equal(saved.closesAt, '2031-03-01T09:30:00.000Z');
    assert.equal(saved.maxSubmissions, 250);
    const shown = await owner.client.get(`/forms/${formId}/settings`);
    assert.match(shown.html, /id="field-closesAt"[^>]*value="2031-03-01T09:30"/);
    assert.match(shown.html, /id="field-maxSubmissions"[^>]*value="250"/);

    // typed and shown in the viewer's time zone (the account's setting): 09:30 in Oslo in March is 08:30 UTC
    assert.equal((await owner.client.post('/account/time-zone', { timeZone: 'Europe/Oslo' })).status, 303);
    const oslo = await owner.client.get(`/forms/${formId}/settings`);
    assert.ok(oslo.html.includes('>Close the form at (Europe/Oslo)</label>'));
    assert.match(oslo.html, /id="field-closesAt"[^>]*value="2031-03-01T10:30"/);
    assert.equal((await owner.client.post(`/forms/${formId}/settings`, settingsFields('Contact', { closesAt: '2031-07-01T09:30' }))).status, 303);
    assert.equal((await resource(formId)).closesAt, '2031-07-01T07:30:00.000Z', 'summer time: two hours ahead');
    await owner.client.post('/account/time-zone', { timeZone: '' });

    // emptied: back to the defaults
    assert.equal(
      (await owner.client.post(`/forms/${formId}/settings`, settingsFields('Contact', { redirectUrl: '', closesAt: '', maxSubmissions: '' }))).status,
      303,
    );
    const cleared = await resource(formId);
    assert.equal(cleared.redirectUrl, null);
    assert.equal(cleared.closesAt, null);
    assert.equal(cleared.maxSubmissions, null);
  });

  it('shows a refusal beside its field and saves nothing', async () => {
    const formId = await newForm();
    const bad = await owner.client.post(
      `/forms/${formId}/settings`,
      settingsFields('Renamed', { redirectUrl: 'ftp://example.com/x', notificationSubject: 'Hi\nBcc: x@example.com' }),
    );
    assert.equal(bad.status, 400);
    assert.match(bad.html, /id="field-redirectUrl-error"[^>]*>The redirect address must be an absolute http or https URL/);
    assert.match(bad.html, /id="field-notificationSubject-error"[^>]*>The notification subject must be one line/);
    const cap = await owner.client.post(`/forms/${formId}/settings`, settingsFields('Renamed', { maxSubmissions: 'ten' }));
    assert.equal(cap.status, 400);
    assert.match(cap.html, /id="field-maxSubmissions-error"[^>]*>The limit on submissions must be a whole number/);
    const when = await owner.client.post(`/forms/${formId}/settings`, settingsFields('Renamed', { closesAt: 'soon' }));
    assert.match(when.html, /id="field-closesAt-error"[^>]*>The closing time must be a date and time/);
    const form = await resource(formId);
    assert.equal(form.name, 'Contact', 'nothing saved');
    assert.equal(form.redirectUrl, null);
  });

  it('pauses and resumes; the badge shows on the forms list and the form’s pages; an outsider changes nothing', async () => {
    const formId = await newForm('Newsletter');
    const paused = await owner.client.post(`/forms/${formId}/settings/pause`, { paused: '1', name: 'ignored' });
    assert.equal(paused.status, 303);
    assert.equal(paused.location, `/forms/${formId}/settings#form-state`);
    assert.equal((await resource(formId)).paused, true);
    assert.equal((await resource(formId)).name, 'Newsletter', 'the button saves nothing else');
    assert.equal((await postJson(app, formId, { email: 'a@example.com' })).body.code, 'form_closed');

    const list = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.match(list.html, /Newsletter<\/a><span class="badge warning form-state-badge">Paused<\/span>/);
    const setup = await owner.client.get(`/forms/${formId}/setup`);
    assert.ok(setup.html.includes('>Paused</span>'));
    assert.match(
      setup.html,
      /<button type="submit" disabled="" aria-describedby="test-blocked">Send a test submission<\/button>|<button type="submit" disabled aria-describedby="test-blocked">/,
    );
    assert.ok(setup.html.includes('This form is paused'));
    const settings = await owner.client.get(`/forms/${formId}/settings`);
    assert.ok(settings.html.includes('Resume the form'));

    const intruder = await outsider.client.post(`/forms/${formId}/settings/pause`, { paused: '0' });
    assert.equal(intruder.status, 404);
    assert.equal((await resource(formId)).paused, true);
    assert.equal((await owner.client.post(`/forms/${formId}/settings/pause`, { paused: 'maybe' })).status, 400);

    assert.equal((await owner.client.post(`/forms/${formId}/settings/pause`, { paused: '0' })).status, 303);
    assert.equal((await resource(formId)).paused, false);
    assert.equal((await postJson(app, formId, { email: 'b@example.com' })).status, 200);
  });

  it('a full or closed form says so; the test submission is refused as closed if sent anyway', async () => {
    const full = await newForm('Raffle');
    await app.ctx.forms.updateForm(owner.userId, full, { maxSubmissions: 1 });
    assert.equal((await postJson(app, full, { email: 'c@example.com' })).status, 200);
    const list = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.match(list.html, /Raffle<\/a><span class="badge warning form-state-badge">Full<\/span>/);
    const sent = await owner.client.post(`/forms/${full}/test-submission`, {});
    assert.equal(sent.status, 403);
    assert.ok(sent.html.includes('Form closed'), sent.html.slice(0, 2000));

    const closed = await newForm('Survey');
    await app.ctx.forms.updateForm(owner.userId, closed, { closesAt: '2020-01-01T00:00:00Z' });
    const page = await owner.client.get(`/forms/${closed}`);
    assert.ok(page.html.includes('>Closed</span>'));
  });

  it('a chosen CAPTCHA provider is warned about on Settings and Setup, and the test submission is disabled', async () => {
    const formId = await newForm('Signup');
    await app.ctx.forms.setSecret(formId, 'TURNSTILE', 'secret-key');
    await app.ctx.forms.updateForm(owner.userId, formId, { spamProtection: 'TURNSTILE' });
    const settings = await owner.client.get(`/forms/${formId}/settings`);
    assert.ok(settings.html.includes('Every submission must now carry a solved Cloudflare Turnstile challenge.'));
    assert.ok(settings.html.includes('Other secret keys (5)'), 'the providers not in use wait behind a disclosure');
    const setup = await owner.client.get(`/forms/${formId}/setup`);
    assert.ok(setup.html.includes('This form refuses every submission without a solved Cloudflare Turnstile challenge.'));
    assert.ok(setup.html.includes('which a test cannot solve'));
    assert.match(setup.html, /disabled[^>]*aria-describedby="test-blocked"/);
  });
});
