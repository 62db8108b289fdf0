import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { endOfDayUtc, tokenStatus } from '../../src/services/tokens.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';

describe(`tokens service: the tokens page's list (${TEST_DIALECT})`, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  it('lists the account’s own tokens, usable ones first, then revoked and expired ones, newest first in each', async () => {
    const { user } = await app.ctx.users.createUser('lister@example.com');
    const { user: other } = await app.ctx.users.createUser('someone-else@example.com');
    await app.ctx.tokens.createToken(other.id, { name: 'not mine', scopes: ['forms:read'] });
    const make = async (name: string, createdAt: number) => {
      const { token } = await app.ctx.tokens.createToken(user.id, { name, scopes: ['forms:read'] });
      await app.ctx.database.db.updateTable('tokens').set({ createdAt }).where('id', '=', token.id).execute();
      return token;
    };
    const now = Date.now();
    await make('old active', now - 5000);
    const revoked = await make('revoked', now - 1000);
    const expired = await make('expired', now - 2000);
    await make('new active', now - 3000);
    await make('older revoked', now - 6000).then((t) => app.ctx.tokens.revokeTokenById(user.id, t.id));
    await app.ctx.tokens.revokeTokenById(user.id, revoked.id);
    await app.ctx.database.db
      .updateTable('tokens')
      .set({ expiresAt: now - 1 })
      .where('id', '=', expired.id)
      .execute();
    const listed = await app.ctx.tokens.listTokens(user.id);
    assert.deepEqual(
      listed.map((t) => [t.name, tokenStatus(t)]),
      [
        ['new active', 'active'],
        ['old active', 'active'],
        ['revoked', 'revoked'],
        ['expired', 'expired'],
        ['older revoked', 'revoked'],
      ],
    );
  });

  it('refuses to revoke another account’s token by id', async () => {
    const { user } = await app.ctx.users.createUser('owner-of-one@example.com');
    const { user: other } = await app.ctx.users.createUser('stranger@example.com');
    const { token } = await app.ctx.tokens.createToken(user.id, { name: 'mine', scopes: ['forms:read'] });
    await assert.rejects(app.ctx.tokens.revokeTokenById(other.id, token.id), { code: 'not_found' });
    assert.equal((await app.ctx.tokens.getToken(user.id, token.id)).revokedAt, null);
  });
});

describe('tokens service: a day as an expiry', () => {
  it('is the last millisecond of that day in UTC', () => {
    assert.equal(endOfDayUtc('2031-01-31').toISOString(), '2031-01-31T23:59:59.999Z');
    assert.equal(endOfDayUtc('2028-02-29').toISOString(), '2028-02-29T23:59:59.999Z');
  });

  it('is no date at all for a day that does not exist or is not a day', () => {
    for (const day of ['2031-02-29', '2031-13-01', '2031-00-10', '31-01-2031', '2031-1-1', 'tomorrow', '']) {
      assert.ok(Number.isNaN(endOfDayUtc(day).getTime()), day);
    }
  });

  it('is revoked before it is expired', () => {
    assert.equal(tokenStatus({ revokedAt: 1, expiresAt: 2 }, 10), 'revoked');
    assert.equal(tokenStatus({ revokedAt: null, expiresAt: 10 }, 10), 'expired');
    assert.equal(tokenStatus({ revokedAt: null, expiresAt: 11 }, 10), 'active');
    assert.equal(tokenStatus({ revokedAt: null, expiresAt: null }, 10), 'active');
  });
});
