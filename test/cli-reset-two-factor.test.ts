import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../src/config/config.js';
import { openContext, type AppContext } from '../src/context.js';
import { cliEnv, killRunningCli, runCli } from './helpers/cli.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { awayFromStepEdge, totpCode } from './helpers/totp.js';

describe('formgate users reset-two-factor', () => {
  let database: TestDatabase;
  let ctx: AppContext;

  before(async () => {
    database = await createTestDatabase();
    ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
  });
  after(async () => {
    killRunningCli();
    await ctx?.close();
    await database?.drop();
  });

  it('turns off every second factor of a person who lost them, ends their sessions, and records who did it', async () => {
    const { user } = await ctx.users.createUser('lost-phone@example.com', 'a long enough password');
    const setup = await ctx.twoFactor.startAppSetup(user.id, user.email);
    await awayFromStepEdge();
    await ctx.twoFactor.enableApp(user.id, setup.sealedSecret, totpCode(setup.secretText));
    await ctx.database.db
      .insertInto('passkeys')
      .values({ id: 'credential-1', userId: user.id, name: 'Phone', publicKey: 'AAAA', transports: null, lastUsedAt: null, createdAt: Date.now() })
      .execute();
    await ctx.rememberedBrowsers.remember(user.id);
    await ctx.sessions.start(user.id);

    const result = await runCli(cliEnv(database), ['users', 'reset-two-factor', '--email', 'LOST-PHONE@example.com', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const body = JSON.parse(result.stdout.trim());
    assert.deepEqual(body, { userId: user.id, email: user.email, app: true, passkeys: 1, rememberedBrowsers: 1, sessionsEnded: 1 });

    assert.deepEqual(await ctx.twoFactor.factorsOf(user.id), { app: false, passkeys: 0, recoveryCodesLeft: 0 });
    assert.equal((await ctx.users.findById(user.id))?.secondFactorAt, null);
    const recorded = await ctx.database.db.selectFrom('auditEvents').selectAll().where('action', '=', 'two_factor.reset').execute();
    assert.equal(recorded.length, 1);
    assert.equal(recorded[0]!.via, 'cli');
    assert.equal(recorded[0]!.targetId, user.id);

    const unknown = await runCli(cliEnv(database), ['users', 'reset-two-factor', '--email', 'nobody@example.com', '--json']);
    assert.equal(unknown.code, 1);
    assert.equal(JSON.parse(unknown.stdout.trim()).error.code, 'not_found');
  });
});
