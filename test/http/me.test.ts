import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { createAccount, createToken, type Account } from '../helpers/fixtures.js';

describe('GET /me', () => {
  let app: TestApp;
  let account: Account;
  before(async () => {
    app = await startApp();
    account = await createAccount(app, { plan: 'FREE' });
  });
  after(() => app.close());

  it('answers the token with all five fields, on a free workspace too', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000);
    const token = await createToken(app, account.userId, ['forms:read'], expiresAt);
    const answer = await app.api('GET', '/me', { token });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(answer.body).sort(), ['createdAt', 'expiresAt', 'lastUsedAt', 'name', 'scopes']);
    assert.deepEqual(answer.body.scopes, ['forms:read']);
    assert.equal(answer.body.expiresAt, expiresAt.toISOString());
    assert.ok(Date.parse(answer.body.createdAt) <= Date.now());
    assert.ok(Math.abs(Date.parse(answer.body.lastUsedAt) - Date.now()) < 10_000);
  });

  it('reports expiresAt null for a token without expiry', async () => {
    const answer = await app.api('GET', '/me', { token: account.token });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.expiresAt, null);
  });

  it('keeps lastUsedAt without writing on every request', async () => {
    const token = await createToken(app, account.userId, ['forms:read']);
    const first = await app.api('GET', '/me', { token });
    const second = await app.api('GET', '/me', { token });
    // within the one-minute resolution the stored value is not rewritten
    assert.equal(second.body.lastUsedAt, first.body.lastUsedAt);
    // once it is older than a minute, the next use moves it
    await app.ctx.database.db
      .updateTable('tokens')
      .set({ lastUsedAt: Date.now() - 120_000 })
      .where('name', '=', first.body.name)
      .execute();
    const third = await app.api('GET', '/me', { token });
    assert.ok(Date.parse(third.body.lastUsedAt) > Date.parse(first.body.lastUsedAt) - 1);
    assert.ok(Date.now() - Date.parse(third.body.lastUsedAt) < 10_000);
  });

  it('refuses bad tokens', () => assertAuthMatrix(app, account, { method: 'GET', path: '/me', scope: 'any' }));
});
