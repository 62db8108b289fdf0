import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { assertProblem } from '../helpers/problems.js';

const PASSWORD = 'correct horse battery';

/** The text of the element with that id (a field's message), entities decoded. */
function textOf(html: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html);
  return match?.[1]
    ?.replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe(`dashboard: API tokens over HTTP (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: DashboardClient;
  let ownerId: string;

  const tokenCount = async (userId: string) => (await app.ctx.tokens.listTokens(userId)).length;

  before(async () => {
    app = await startApp();
    owner = new DashboardClient(app);
    await owner.enter('/signup', 'owner@example.com', PASSWORD);
    ownerId = (await app.ctx.users.requireByEmail('owner@example.com')).id;
  });
  after(() => app?.close());

  it('sends a logged-out visitor to the login page and back', async () => {
    const answer = await new DashboardClient(app).get('/account/tokens');
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/login?next=%2Faccount%2Ftokens');
  });

  it('shows an empty state and, while no workspace is upgraded, that the free plan cannot use the API', async () => {
    const page = await owner.get('/account/tokens');
    assert.equal(page.status, 200);
    assert.match(page.html, /No tokens yet/);
    assert.match(page.html, /None of your workspaces is upgraded/);
    assert.ok(page.html.includes(app.baseUrl), 'names the API’s base URL');
  });

  it('shows the form again with a message beside each field, and creates nothing', async () => {
    await owner.get('/account/tokens');
    const cases: [string, Record<string, string>, string, RegExp][] = [
      ['no name', { name: '  ', scopes: 'forms:read' }, 'field-name-error', /^Must be 1 to 128 characters\.$/],
      ['no scope', { name: 'ci' }, 'scopes-error', /^Name at least one of workspaces:read, .*submissions:write\.$/],
      ['an unknown scope', { name: 'ci', scopes: 'forms:everything' }, 'scopes-error', /^"forms:everything" is not one of /],
      ['a past expiry', { name: 'ci', scopes: 'forms:read', expiresAt: '2020-01-31' }, 'field-expiresAt-error', /^Must be a date-time in the future\.$/],
      ['a day that does not exist', { name: 'ci', scopes: 'forms:read', expiresAt: '2031-02-30' }, 'field-expiresAt-error', /in the future/],
    ];
    for (const [what, fields, id, message] of cases) {
      const answer = await owner.post('/account/tokens', { ...fields, currentPassword: PASSWORD });
      assert.equal(answer.status, 400, what);
      assert.match(textOf(answer.html, id) ?? '', message, what);
      assert.match(answer.html, /aria-invalid="true"|id="scopes-error"/, what);
      if (fields.name?.trim()) assert.match(answer.html, new RegExp(`id="field-name"[^>]*value="${fields.name}"`), `${what}: the name is kept`);
    }
    assert.equal(await tokenCount(ownerId), 0);
  });

  it('creates a token, shows its secret once, and it works on the API at once', async () => {
    await owner.get('/account/tokens');
    const answer = await owner.post('/account/tokens', { name: 'deploy', scopes: 'forms:read', expiresAt: '2099-12-31', currentPassword: PASSWORD });
    assert.equal(answer.status, 200);
    assert.match(answer.html, /Copy it now: it will not be shown again\./);
    assert.match(answer.html, /class="flash" role="status">Token created</);
    const secret = textOf(answer.html, 'new-token');
    assert.match(secret ?? '', /^fg_[\w-]{43}$/);
    const me = await app.api('GET', '/me', { token: secret });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.scopes, ['forms:read']);
    assert.equal(me.body.name, 'deploy');
    assert.equal(me.body.expiresAt, '2099-12-31T23:59:59.999Z', 'works all of its last day, UTC');
    // the list never shows it again
    const list = await owner.get('/account/tokens');
    assert.match(list.html, /deploy/);
    assert.ok(!list.html.includes(secret!), 'the secret is not on the list');
    // the browser offers to post the form again on reload: that creates nothing
    const again = await owner.post('/account/tokens', { name: 'deploy', scopes: 'forms:read', currentPassword: PASSWORD });
    assert.equal(again.status, 400);
    assert.match(textOf(again.html, 'field-name-error') ?? '', /already has an active token named "deploy"/);
    assert.equal(await tokenCount(ownerId), 1);
  });

  it('revokes through a confirmation page; the token stops at the next API request', async () => {
    const { token, secret } = await app.ctx.tokens.createToken(ownerId, { name: 'ci', scopes: ['workspaces:read'] });
    // used once, so that a database that keeps tokens in memory (SQLite) has it kept
    assert.equal((await app.api('GET', '/workspaces', { token: secret })).status, 200);
    const confirm = await owner.get(`/account/tokens/${token.id}/revoke`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /Revoke token “ci”\?/);
    assert.match(confirm.html, /Programs using it stop working at once\./);
    assert.equal((await app.api('GET', '/workspaces', { token: secret })).status, 200, 'the page itself changes nothing');
    const revoked = await owner.post(`/account/tokens/${token.id}/revoke`, {});
    assert.equal(revoked.status, 303);
    assert.equal(revoked.location, '/account/tokens');
    assertProblem(app, await app.api('GET', '/workspaces', { token: secret }), 'invalid_token');
    const list = await owner.get('/account/tokens');
    assert.match(list.html, /class="flash" role="status">Token revoked</);
    assert.match(list.html, /Revoked</);
    // again: harmless, the time of the revoke stays
    const first = await app.ctx.tokens.getToken(ownerId, token.id);
    assert.equal((await owner.post(`/account/tokens/${token.id}/revoke`, {})).status, 303);
    assert.equal((await app.ctx.tokens.getToken(ownerId, token.id)).revokedAt, first.revokedAt);
    const confirmAgain = await owner.get(`/account/tokens/${token.id}/revoke`);
    assert.equal(confirmAgain.status, 303, 'no confirmation for a revoked token');
  });

  it('offers to revoke an expired token too, which frees its name for a new one', async () => {
    const { token } = await app.ctx.tokens.createToken(ownerId, { name: 'nightly', scopes: ['forms:read'] });
    await app.ctx.database.db
      .updateTable('tokens')
      .set({ expiresAt: Date.now() - 1000 })
      .where('id', '=', token.id)
      .execute();
    assert.match((await owner.get('/account/tokens')).html, new RegExp(`Expired<[^]*action="/account/tokens/${token.id}/revoke"`));
    const taken = await owner.post('/account/tokens', { name: 'nightly', scopes: 'forms:read', currentPassword: PASSWORD });
    assert.equal(taken.status, 400, 'an expired token still holds its name');
    const confirm = await owner.get(`/account/tokens/${token.id}/revoke`);
    assert.match(confirm.html, /It has already expired/);
    assert.equal((await owner.post(`/account/tokens/${token.id}/revoke`, {})).status, 303);
    await owner.get('/account/tokens');
    assert.equal((await owner.post('/account/tokens', { name: 'nightly', scopes: 'forms:read', currentPassword: PASSWORD })).status, 200);
  });

  it('answers another account’s token, or none, with a 404 page, and changes nothing', async () => {
    const { user } = await app.ctx.users.createUser('other@example.com', PASSWORD);
    const { token, secret } = await app.ctx.tokens.createToken(user.id, { name: 'theirs', scopes: ['forms:read'] });
    for (const id of [token.id, 'no-such-token']) {
      const confirm = await owner.get(`/account/tokens/${id}/revoke`);
      assert.equal(confirm.status, 404);
      assert.doesNotMatch(confirm.html, /theirs/);
      const revoke = await owner.post(`/account/tokens/${id}/revoke`, {});
      assert.equal(revoke.status, 404);
      assert.match(revoke.html, /Not found/);
    }
    assert.equal((await app.ctx.tokens.getToken(user.id, token.id)).revokedAt, null);
    assert.equal((await app.api('GET', '/me', { token: secret })).status, 200);
    assert.doesNotMatch((await owner.get('/account/tokens')).html, /theirs/, 'nor is it listed');
  });

  it('refuses a create or a revoke without the CSRF token', async () => {
    const { token } = await app.ctx.tokens.createToken(ownerId, { name: 'kept', scopes: ['forms:read'] });
    const before = await tokenCount(ownerId);
    await owner.get('/account/tokens');
    const create = await owner.post('/account/tokens', { _csrf: '', name: 'sneaky', scopes: 'forms:write', currentPassword: PASSWORD });
    assert.equal(create.status, 403);
    assert.match(create.html, /Change refused/);
    const revoke = await owner.post(`/account/tokens/${token.id}/revoke`, { _csrf: 'forged' });
    assert.equal(revoke.status, 403);
    const elsewhere = await owner.post(`/account/tokens/${token.id}/revoke`, {}, { origin: 'https://evil.example' });
    assert.equal(elsewhere.status, 403);
    assert.equal(await tokenCount(ownerId), before);
    assert.equal((await app.ctx.tokens.getToken(ownerId, token.id)).revokedAt, null);
  });

  it('says nothing about the free plan once a workspace is upgraded', async () => {
    const [workspace] = (await app.ctx.workspaces.listForUser(ownerId, { limit: 1, after: null })).rows;
    await app.ctx.workspaces.setPlan(workspace!.id, 'BUNDLE_50000');
    assert.doesNotMatch((await owner.get('/account/tokens')).html, /None of your workspaces is upgraded/);
  });
});
