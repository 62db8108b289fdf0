import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { IntakeForms } from '../../src/intake/intake-forms.js';
import type { FormService } from '../../src/services/forms.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** The forms intake keeps between submissions (SQLite), and the count of changes that drops them. */
describe(`intake forms (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let account: Account;
  let lookups: number;
  let forms: FormService;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    // the real service, counting the lookups that reach the database
    forms = Object.create(app.ctx.forms, {
      getIntakeForm: { value: (formId: string) => (lookups++, app.ctx.forms.getIntakeForm(formId)) },
    }) as FormService;
  });
  after(() => app.close());

  it('keeps a form between turns on SQLite, and looks it up again after any change; reads it each time on PostgreSQL', async () => {
    const form = await createForm(app, account);
    const intake = new IntakeForms(forms);
    lookups = 0;
    assert.equal((await intake.get(form.id))?.id, form.id);
    await nextTurn();
    assert.equal((await intake.get(form.id))?.id, form.id);
    assert.equal(lookups, TEST_DIALECT === 'sqlite' ? 1 : 2);

    await app.ctx.database.db.updateTable('forms').set({ webhookUrl: 'https://example.com/hook' }).where('id', '=', form.id).execute();
    await nextTurn();
    assert.equal((await intake.get(form.id))?.webhookUrl, 'https://example.com/hook');
    assert.equal(lookups, TEST_DIALECT === 'sqlite' ? 2 : 3);
  });

  it('keeps no answer for a form that does not exist', async () => {
    const intake = new IntakeForms(forms);
    lookups = 0;
    assert.equal(await intake.get('nosuchform'), null);
    await nextTurn();
    assert.equal(await intake.get('nosuchform'), null);
    assert.equal(lookups, 2);
  });

  it('counts every change to what intake reads, and not the counters that move with each submission (0010)', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
    const form = await createForm(app, account);
    const db = app.ctx.database.db;
    const changes: [string, () => Promise<unknown>][] = [
      ['the form', () => db.updateTable('forms').set({ customHoneypot: 'website' }).where('id', '=', form.id).execute()],
      ['the plan', () => db.updateTable('workspaces').set({ plan: 'DEALIFY' }).where('id', '=', account.workspaceId).execute()],
      ['a secret added', () => sql`INSERT INTO form_secrets (form_id, provider, secret, created_at, updated_at) VALUES (${form.id}, 'HCAPTCHA', 's1', 1, 1)`.execute(db)],
      ['a secret changed', () => sql`UPDATE form_secrets SET secret = 's2' WHERE form_id = ${form.id}`.execute(db)],
      ['a secret removed', () => sql`DELETE FROM form_secrets WHERE form_id = ${form.id}`.execute(db)],
      ['a template added', () => app.api('PUT', `/forms/${form.id}/templates/autoresponder`, { token: account.token, body: { mode: 'code', code: 'Hi' } })],
      ['a template paused', () => db.updateTable('templates').set({ paused: 1 }).where('formId', '=', form.id).execute()],
      ['a template removed', () => db.deleteFrom('templates').where('formId', '=', form.id).execute()],
      ['the form removed', () => db.deleteFrom('forms').where('id', '=', form.id).execute()],
    ];
    for (const [what, change] of changes) {
      const before = await app.ctx.forms.intakeEpoch();
      await change();
      assert.ok((await app.ctx.forms.intakeEpoch()) > before, `${what} moves the count`);
    }

    const other = await createForm(app, account);
    const before = await app.ctx.forms.intakeEpoch();
    await db.updateTable('forms').set((eb) => ({ honeypotDrops: eb('honeypotDrops', '+', 1) })).where('id', '=', other.id).execute();
    await db.updateTable('workspaces').set((eb) => ({ submissionsUsed: eb('submissionsUsed', '+', 1) })).where('id', '=', account.workspaceId).execute();
    assert.equal(await app.ctx.forms.intakeEpoch(), before, 'the counters of every submission leave it alone');
  });
});
