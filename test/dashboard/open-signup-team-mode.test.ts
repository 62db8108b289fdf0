import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSignupWarning } from '../../src/services/instance-settings.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { person } from '../helpers/members.js';

const PASSWORD = 'correct horse battery';

/** Issue 38, item 9: team mode trusts every account; open sign-up lets strangers make them. Setup and the admin page say so. */
describe('dashboard: team mode meets open sign-up', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ signup: 'open' });
  });
  after(async () => {
    await app?.close();
  });

  it('Setup proposes hosting and warns beside team mode; choosing team anyway works and the admin page keeps warning', async () => {
    const visitor = new DashboardClient(app);
    const setup = await visitor.get('/setup');
    assert.equal(setup.status, 200);
    assert.match(setup.html, /<input id="usage-hosting" type="radio" name="usage" value="hosting" checked/);
    assert.doesNotMatch(setup.html, /value="team" checked/);
    assert.match(setup.html, /<p class="notice" id="team-mode-open-signup">FORMGATE_SIGNUP=open lets anyone who receives mail make an account here/);

    const done = await visitor.post('/setup', { email: 'owner@example.com', password: PASSWORD, usage: 'team' });
    assert.equal(done.status, 303, done.html.slice(0, 300));
    assert.equal(app.ctx.instance.usage(), 'team', 'a warning, not a refusal: the admin decides');
    const admin = await visitor.get('/admin');
    assert.match(admin.html, /id="team-mode-open-signup">FORMGATE_SIGNUP=open lets anyone/);
    assert.ok(openSignupWarning(app.ctx.config, 'team'), 'serve warns at start too');

    await app.ctx.instance.setUsage('hosting');
    assert.doesNotMatch((await visitor.get('/admin')).html, /team-mode-open-signup/, 'hosting with open sign-up needs no warning');
    assert.equal(openSignupWarning({ ...app.ctx.config, confirmRecipients: true }, 'hosting'), null);
  });

  it('serve warns of a paid FORMGATE_DEFAULT_PLAN or unconfirmed notification addresses with open sign-up, and of nothing with sign-up by invitation', () => {
    const paid = { signup: 'open', defaultPlan: 'BUNDLE_50000', defaultPlanFromEnvironment: true } as const;
    assert.match(openSignupWarning(paid, 'hosting') ?? '', /every stranger who signs up gets an upgraded workspace/);
    assert.equal(openSignupWarning({ ...paid, signup: 'invite' }, 'team'), null);
    assert.equal(openSignupWarning({ ...paid, defaultPlan: 'FREE' }, 'hosting'), null);
    assert.match(
      openSignupWarning({ ...paid, defaultPlan: 'FREE', confirmRecipients: false }, 'hosting') ?? '',
      /FORMGATE_CONFIRM_RECIPIENTS=off: any stranger/,
    );
    assert.equal(openSignupWarning({ ...paid, defaultPlan: 'FREE', confirmRecipients: true }, 'hosting'), null);
  });

  it("tells a stranger's owner, on the form's Settings and Templates, what waits for the admin; once upgraded, nothing", async () => {
    await app.ctx.instance.setUsage('team');
    const stranger = await person(app, 'stranger');
    const form = await app.ctx.forms.createForm(stranger.userId, stranger.workspaceId, { name: 'Contact' });
    const settings = await stranger.client.get(`/forms/${form.id}/settings`);
    assert.equal(settings.status, 200);
    assert.match(settings.html, /id="behaviour-not-vouched">Anyone can sign up on this installation, so until its admin upgrades this workspace/);
    const templates = await stranger.client.get(`/forms/${form.id}/templates`);
    assert.match(templates.html, /id="autoresponder-not-vouched">Anyone can sign up on this installation/);
    const editor = await stranger.client.get(`/forms/${form.id}/templates/autoresponder`);
    assert.match(editor.html, /id="autoresponder-not-vouched"/);

    await app.ctx.workspaces.setPlan(stranger.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    assert.doesNotMatch((await stranger.client.get(`/forms/${form.id}/settings`)).html, /behaviour-not-vouched/, 'upgraded: vouched for');
    assert.doesNotMatch((await stranger.client.get(`/forms/${form.id}/templates`)).html, /autoresponder-not-vouched/);
  });
});
