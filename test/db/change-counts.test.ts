import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { ChangeCounted } from '../../src/db/schema/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, createToken, type Account } from '../helpers/fixtures.js';

/**
 * The triggers behind the rows kept in memory (db/kept-rows.ts): SQLite's count them in
 * `change_counts` (migration 0010), PostgreSQL's notify them (0023) and the count is what this
 * instance heard, its own commits before they return: so on both, a change is read right after it.
 */
describe(`change counts (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let account: Account;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    // while it does not listen every reading is a new count
    if (TEST_DIALECT === 'postgres') await eventually(async () => app.ctx.database.changeFeedState() === 'listening', 'the change feed to listen');
  });
  after(() => app.close());

  const count = (name: ChangeCounted) => app.ctx.database.changeCount(name);
  async function assertCounted(name: ChangeCounted, changes: [string, () => Promise<unknown>][]): Promise<void> {
    for (const [what, change] of changes) {
      const before = await count(name);
      await change();
      assert.ok((await count(name)) > before, `${what} moves the ${name} count`);
    }
  }
  async function assertNotCounted(name: ChangeCounted, what: string, change: () => Promise<unknown>): Promise<void> {
    const before = await count(name);
    await change();
    assert.equal(await count(name), before, `${what} leaves the ${name} count alone`);
  }

  it('counts every change to what intake reads of a form, and not the counters of each submission', async () => {
    const form = await createForm(app, account);
    const db = app.ctx.database.db;
    await assertCounted('intake_forms', [
      ['the form', () => db.updateTable('forms').set({ customHoneypot: 'website' }).where('id', '=', form.id).execute()],
      ['its allowed origins', () => db.updateTable('forms').set({ allowedOrigins: '["https://example.com"]' }).where('id', '=', form.id).execute()],
      ['SpamAssassin turned on', () => db.updateTable('forms').set({ spamAssassin: 1 }).where('id', '=', form.id).execute()],
      ['disposable addresses flagged', () => db.updateTable('forms').set({ flagDisposableAddresses: 1 }).where('id', '=', form.id).execute()],
      ['the same message flagged', () => db.updateTable('forms').set({ flagSameMessage: 1 }).where('id', '=', form.id).execute()],
      ['the plan', () => db.updateTable('workspaces').set({ plan: 'DEALIFY' }).where('id', '=', account.workspaceId).execute()],
      [
        'a secret added',
        () => sql`INSERT INTO form_secrets (form_id, provider, secret, created_at, updated_at) VALUES (${form.id}, 'HCAPTCHA', 's1', 1, 1)`.execute(db),
      ],
      ['a secret changed', () => sql`UPDATE form_secrets SET secret = 's2' WHERE form_id = ${form.id}`.execute(db)],
      ['a secret removed', () => sql`DELETE FROM form_secrets WHERE form_id = ${form.id}`.execute(db)],
      ['a template added', () => app.api('PUT', `/forms/${form.id}/templates/autoresponder`, { token: account.token, body: { mode: 'code', code: 'Hi' } })],
      ['a template paused', () => db.updateTable('templates').set({ paused: 1 }).where('formId', '=', form.id).execute()],
      ['a template removed', () => db.deleteFrom('templates').where('formId', '=', form.id).execute()],
      ['the form removed', () => db.deleteFrom('forms').where('id', '=', form.id).execute()],
    ]);
    const other = await createForm(app, account);
    await assertNotCounted('intake_forms', 'a honeypot drop', () =>
      db
        .updateTable('forms')
        .set((eb) => ({ honeypotDrops: eb('honeypotDrops', '+', 1) }))
        .where('id', '=', other.id)
        .execute(),
    );
    await assertNotCounted('intake_forms', 'a submission counted', () =>
      db
        .updateTable('workspaces')
        .set((eb) => ({ submissionsUsed: eb('submissionsUsed', '+', 1) }))
        .where('id', '=', account.workspaceId)
        .execute(),
    );
  });

  it('counts every change to what authentication reads of a token, and not its last use', async () => {
    const owner = await createAccount(app);
    await createToken(app, owner.userId, ['forms:read']);
    const db = app.ctx.database.db;
    const tokensOf = db.updateTable('tokens').where('userId', '=', owner.userId);
    await assertNotCounted('tokens', 'its last use', () => tokensOf.set({ lastUsedAt: Date.now() }).execute());
    await assertCounted('tokens', [
      ['an expiry', () => tokensOf.set({ expiresAt: Date.now() + 60_000 }).execute()],
      ['new scopes', () => tokensOf.set({ scopes: '["forms:read","forms:write"]' }).execute()],
      ['a revoke', () => tokensOf.set({ revokedAt: Date.now() }).execute()],
      ['a removal', () => db.deleteFrom('tokens').where('userId', '=', owner.userId).execute()],
    ]);
  });
});
