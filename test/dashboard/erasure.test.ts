// Erasing a person in the dashboard (issue 27): an address, the count, a confirmation, the deletion;
// a workspace of another account is a 404 and loses nothing; every step needs the page's CSRF token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { insertSubmission } from '../helpers/export.js';
import { alertOf, flashOf, person, type Person } from '../helpers/members.js';

/** The text of the element with that id, entities decoded. */
function textOf(html: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1]?.replace(/&#39;|&rsquo;/g, '’');
}

describe(`dashboard: erasing a person (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  let outsider: Person;

  before(async () => {
    app = await startApp();
    owner = await person(app, 'owner');
    outsider = await person(app, 'outsider');
  });
  after(() => app?.close());

  const exists = async (id: string) => (await app.ctx.database.db.selectFrom('submissions').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  const formOf = async (who: Person) => app.ctx.forms.createForm(who.userId, who.workspaceId, { name: 'Contact' });

  it('counts the submissions holding the address, asks, then deletes them and says how many', async () => {
    const form = await formOf(owner);
    const theirs = await formOf(outsider);
    const holding = [
      await insertSubmission(app, form, { email: 'Ann@Example.com' }, Date.now()),
      await insertSubmission(app, form, { message: 'reach me at ann@example.com' }, Date.now(), 'spam'),
    ];
    const kept = await insertSubmission(app, form, { email: 'joann@example.com' }, Date.now());
    const others = await insertSubmission(app, theirs, { email: 'ann@example.com' }, Date.now());

    const settings = await owner.client.get(`/w/${owner.workspaceId}/settings`);
    assert.match(settings.html, new RegExp(`href="/w/${owner.workspaceId}/erase"`), 'the workspace settings link to it');
    const page = await owner.client.get(`/w/${owner.workspaceId}/erase`);
    assert.equal(page.status, 200);
    assert.match(page.html, /<title>Erase a person’s submissions · Formgate<\/title>/);

    const found = await owner.client.post(`/w/${owner.workspaceId}/erase/preview`, { email: ' ANN@example.com ' });
    assert.equal(found.status, 200);
    assert.match(found.html, /2 submissions of this workspace hold <strong>ann@example.com<\/strong>/);
    assert.match(found.html, /This cannot be undone\./);
    assert.match(found.html, /<button type="submit" class="danger">Delete 2 submissions<\/button>/);
    for (const id of [...holding, kept, others]) assert.equal(await exists(id), true, 'counting deletes nothing');

    const erased = await owner.client.post(`/w/${owner.workspaceId}/erase`, { email: 'ann@example.com' });
    assert.equal(erased.status, 303);
    assert.equal(erased.location, `/w/${owner.workspaceId}/erase`);
    assert.equal(flashOf((await owner.client.get(erased.location!)).html), 'Erased: 2 submissions deleted.');
    for (const id of holding) assert.equal(await exists(id), false);
    assert.equal(await exists(kept), true, 'joann@ is another person');
    assert.equal(await exists(others), true, 'another account’s workspace is untouched');

    const none = await owner.client.post(`/w/${owner.workspaceId}/erase/preview`, { email: 'ann@example.com' });
    assert.match(none.html, /No submission of this workspace holds <strong>ann@example.com<\/strong>/);
    assert.doesNotMatch(none.html, /class="danger"/);
  });

  it('refuses what is not an email address beside the field, and deletes nothing', async () => {
    const form = await formOf(owner);
    const id = await insertSubmission(app, form, { note: 'ann' }, Date.now());
    for (const path of ['erase/preview', 'erase']) {
      for (const email of ['', 'ann', 'ann@example']) {
        const answer = await owner.client.post(`/w/${owner.workspaceId}/${path}`, { email });
        assert.equal(answer.status, 400, `${path} ${email}`);
        assert.match(textOf(answer.html, 'field-email-error') ?? '', /^Must be an email address|^Enter the email address/);
        assert.match(answer.html, /id="field-email"[^>]*aria-invalid="true"/);
      }
    }
    assert.equal(await exists(id), true);
  });

  it('shows another account’s workspace as the 404 page, and deletes nothing there', async () => {
    const theirs = await formOf(outsider);
    const id = await insertSubmission(app, theirs, { email: 'victim@example.com' }, Date.now());
    assert.equal((await owner.client.get(`/w/${outsider.workspaceId}/erase`)).status, 404);
    for (const path of ['erase/preview', 'erase']) {
      const answer = await owner.client.post(`/w/${outsider.workspaceId}/${path}`, { email: 'victim@example.com' });
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.html, /victim@example\.com/);
    }
    assert.equal(await exists(id), true);
  });

  it('refuses every step without the page’s CSRF token', async () => {
    const form = await formOf(owner);
    const id = await insertSubmission(app, form, { email: 'forged@example.com' }, Date.now());
    for (const path of ['erase/preview', 'erase']) {
      const answer = await owner.client.post(`/w/${owner.workspaceId}/${path}`, [
        ['_csrf', 'forged'],
        ['email', 'forged@example.com'],
      ]);
      assert.equal(answer.status, 403, path);
    }
    assert.equal(await exists(id), true);
    assert.equal(alertOf((await owner.client.get(`/w/${owner.workspaceId}/erase`)).html), undefined);
  });
});
