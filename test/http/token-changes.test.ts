import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database } from '../../src/db/database.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, type Account } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';

/**
 * The API keeps the tokens it has seen (on SQLite; db/kept-rows.ts). A token revoked, expired or
 * rescoped, by the API or by another process (the admin commands), stops working as such from the
 * next request all the same.
 */
describe(`management API: a changed token applies to the next request (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let otherProcess: Database;
  before(async () => {
    app = await startApp();
    otherProcess = Database.open(app.ctx.config.database);
  });
  after(async () => {
    await otherProcess.destroy();
    await app.close();
  });

  const me = (account: Account) => app.api('GET', '/me', { token: account.token });
  const tokensOf = (account: Account) => otherProcess.db.updateTable('tokens').where('userId', '=', account.userId);

  it('revoked by another process', async () => {
    const account = await createAccount(app);
    assert.equal((await me(account)).status, 200);
    await tokensOf(account).set({ revokedAt: Date.now() }).execute();
    assertProblem(app, await me(account), 'invalid_token');
  });

  it('expired early by another process', async () => {
    const account = await createAccount(app);
    assert.equal((await me(account)).status, 200);
    await tokensOf(account)
      .set({ expiresAt: Date.now() - 1000 })
      .execute();
    assertProblem(app, await me(account), 'invalid_token');
  });

  it('rescoped by another process', async () => {
    const account = await createAccount(app);
    assert.equal((await app.api('GET', '/workspaces', { token: account.token })).status, 200);
    await tokensOf(account).set({ scopes: '["submissions:read"]' }).execute();
    assertProblem(app, await app.api('GET', '/workspaces', { token: account.token }), 'insufficient_scope');
  });

  it('removed by another process', async () => {
    const account = await createAccount(app);
    assert.equal((await me(account)).status, 200);
    await otherProcess.db.deleteFrom('tokens').where('userId', '=', account.userId).execute();
    assertProblem(app, await me(account), 'invalid_token');
  });

  it('revoked by the admin command’s service, and still in use by another token of the account', async () => {
    const account = await createAccount(app);
    const { secret: second } = await app.ctx.tokens.createToken(account.userId, { name: 'second', scopes: ['forms:read'] });
    assert.equal((await me(account)).status, 200);
    assert.equal((await app.api('GET', '/me', { token: second })).status, 200);
    const { name } = await app.ctx.database.db
      .selectFrom('tokens')
      .select('name')
      .where('userId', '=', account.userId)
      .where('name', '!=', 'second')
      .executeTakeFirstOrThrow();
    await app.ctx.tokens.revokeToken(account.userId, name);
    assertProblem(app, await me(account), 'invalid_token');
    assert.equal((await app.api('GET', '/me', { token: second })).status, 200);
  });
});
