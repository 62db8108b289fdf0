import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/domain/time.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { alertOf, flashOf, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(72);

/**
 * Issue 40, item 3: the digest's "Not spam" link works without a login, changes nothing when opened
 * (mail scanners follow links), and its button does the member's "Not spam" once; a link that was
 * changed, expired, or names someone no longer a member changes nothing. And the digest's settings.
 */
describe(`dashboard: the spam digest's Not spam link and settings (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  /** A form that notifies its owner, and spam caught on it. */
  async function caughtSpam(owner: Person): Promise<{ formId: string; submissionId: string }> {
    const form = await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact', notificationEmails: [owner.email] });
    const answer = await postJson(app, form.id, { name: 'Carol', email: 'carol@example.com', message: 'Real question <script>x</script>' }, visitor());
    assert.equal(answer.status, 200);
    return { formId: form.id, submissionId: answer.body.id as string };
  }

  const statusOf = async (id: string) =>
    (await app.ctx.database.db.selectFrom('submissions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const jobsOf = async (id: string) => (await app.ctx.database.db.selectFrom('jobs').select('kind').where('submissionId', '=', id).execute()).length;
  const pathOf = (url: string) => new URL(url).pathname;

  it('GET shows the submission and changes nothing; the button moves it to the inbox and enqueues its deliveries once', async () => {
    const owner = await person(app, 'link-owner');
    const { submissionId } = await caughtSpam(owner);
    const link = pathOf(app.ctx.notSpamLinks.url(submissionId, owner.userId));
    const visitorClient = new DashboardClient(app);

    const page = await visitorClient.get(link);
    assert.equal(page.status, 200);
    assert.match(page.html, /Is this submission spam\?/);
    assert.match(page.html, /<dd>Carol &lt;carol@example.com><\/dd>/);
    assert.match(page.html, /<dd>Real question &lt;script>x&lt;\/script><\/dd>/, 'escaped: no markup of the visitor’s');
    assert.match(page.html, /Not spam: move it to the inbox/);
    await visitorClient.get(link);
    assert.equal(await statusOf(submissionId), 'spam', 'opening the link twice changed nothing');
    assert.equal(await jobsOf(submissionId), 0);

    // without the page's CSRF token (a cross-site form): refused, nothing changed
    const forged = await new DashboardClient(app).post(link, { _csrf: 'forged' });
    assert.equal(forged.status, 403);
    assert.equal(await statusOf(submissionId), 'spam');

    const moved = await visitorClient.post(link, {});
    assert.equal(moved.status, 303);
    assert.equal(moved.location, link);
    const after = await visitorClient.get(link);
    assert.equal(flashOf(after.html), 'Moved to the inbox; its deliveries are on their way');
    assert.match(after.html, /This submission is in the inbox/);
    assert.doesNotMatch(after.html, /Not spam: move it/);
    assert.equal(await statusOf(submissionId), 'accepted');
    assert.equal(await jobsOf(submissionId), 1, 'its notification, once');

    // a second click (another tab, a second member's link): nothing more
    const again = await visitorClient.post(link, {});
    assert.equal(again.status, 303);
    assert.equal(flashOf((await visitorClient.get(link)).html), 'Nothing changed: it had already left the spam folder');
    assert.equal(await jobsOf(submissionId), 1);
  });

  it('refuses a changed, expired or foreign link, and a member who left, with a clear page and nothing changed', async () => {
    const owner = await person(app, 'link-refused');
    const { submissionId } = await caughtSpam(owner);
    const stranger = await person(app, 'link-stranger');
    const member = await person(app, 'link-member');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
    const good = pathOf(app.ctx.notSpamLinks.url(submissionId, owner.userId));
    const [, , token] = good.split('/');
    const [sub, user, expires, mac] = token!.split('.');
    const memberLink = pathOf(app.ctx.notSpamLinks.url(submissionId, member.userId));
    const refused = [
      `/not-spam/${sub}.${user}.${expires}.${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`,
      `/not-spam/${sub}.${stranger.userId}.${expires}.${mac}`,
      `/not-spam/${sub}.${user}.${Number(expires) + 1}.${mac}`,
      pathOf(app.ctx.notSpamLinks.url(submissionId, owner.userId, Date.now() - 15 * DAY_MS)),
      pathOf(app.ctx.notSpamLinks.url(submissionId, stranger.userId)),
      '/not-spam/nonsense',
    ];
    await app.ctx.team.removeMember(owner.userId, owner.workspaceId, member.userId);
    refused.push(memberLink);
    for (const path of refused) {
      const client = new DashboardClient(app);
      const page = await client.get(path);
      assert.equal(page.status, 404, path);
      assert.match(page.html, /Link not valid/);
      assert.match(page.html, /Nothing was changed/);
      // the page of a good link gives a CSRF token; post with it to the refused one
      await client.get(good);
      const post = await client.post(path, {});
      assert.equal(post.status, 404, `POST ${path}`);
    }
    assert.equal(await statusOf(submissionId), 'spam');
    assert.equal(await jobsOf(submissionId), 0);
  });

  it('the settings save the workspace’s frequency and each member’s own choice; a bad one is refused beside its field', async () => {
    const owner = await person(app, 'settings-owner');
    const settings = `/w/${owner.workspaceId}/settings`;
    const page = await owner.client.get(settings);
    assert.match(page.html, /<h2[^>]*>Spam digest<\/h2>/);
    assert.match(page.html, /<option value="daily" selected>Daily<\/option>/);
    assert.match(page.html, /id="field-mine" type="checkbox" name="mine" value="on" checked/);

    const bad = await owner.client.post(`${settings}/spam-digest`, { frequency: 'hourly', mine: 'on' });
    assert.equal(bad.status, 400);
    assert.equal(alertOf(bad.html), 'Must be one of daily, weekly or off.');
    assert.deepEqual(await app.ctx.spamDigests.settings(owner.userId, owner.workspaceId), { frequency: 'daily', mine: true });

    const saved = await owner.client.post(`${settings}/spam-digest`, { frequency: 'weekly' });
    assert.equal(saved.status, 303);
    assert.equal(flashOf((await owner.client.get(settings)).html), 'Spam digest saved: weekly, not sent to you');
    assert.deepEqual(await app.ctx.spamDigests.settings(owner.userId, owner.workspaceId), { frequency: 'weekly', mine: false });

    const forged = await owner.client.post(`${settings}/spam-digest`, { _csrf: 'forged', frequency: 'off' });
    assert.equal(forged.status, 403);
    const stranger = await person(app, 'settings-stranger');
    const foreign = await stranger.client.post(`${settings}/spam-digest`, { frequency: 'off' });
    assert.equal(foreign.status, 404);
    assert.equal((await app.ctx.spamDigests.settings(owner.userId, owner.workspaceId)).frequency, 'weekly');
  });
});
