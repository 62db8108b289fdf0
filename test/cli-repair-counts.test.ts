import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../src/ids.js';
import { startApp, type TestApp } from './helpers/app.js';
import { cliEnv, killRunningCli, runCli, type CliResult } from './helpers/cli.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { createAccount } from './helpers/fixtures.js';

function onlyJson(result: CliResult): any {
  assert.equal(result.code, 0, `exit ${result.code}; stdout: ${result.stdout}; stderr: ${result.stderr}`);
  const lines = result.stdout.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `one line of JSON on stdout, got: ${result.stdout}`);
  return JSON.parse(lines[0]!);
}

describe('formgate repair-counts', () => {
  let database: TestDatabase;
  let app: TestApp;
  before(async () => {
    database = await createTestDatabase();
    app = await startApp({}, { database });
  });
  after(async () => {
    killRunningCli();
    await app?.close();
    await database?.drop();
  });

  it('repairs what an old writer left, prints one JSON object (or text), and a second run changes nothing', async () => {
    const account = await createAccount(app);
    const form = await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: 'Contact' });
    const createdAt = Date.now() - 5 * 86_400_000;
    // stored as an old writer stores them: no day count, the allowance not counted
    await app.ctx.database.db
      .insertInto('submissions')
      .values(
        ['accepted', 'accepted', 'spam'].map((status, i) => ({
          id: newId(),
          formId: form.id,
          workspaceId: account.workspaceId,
          data: '{}',
          status: status as 'accepted' | 'spam',
          searchText: '',
          emailControls: null,
          spamReasons: null,
          createdAt: createdAt + i,
        })),
      )
      .execute();
    const env = cliEnv(database);

    const first = onlyJson(await runCli(env, ['repair-counts', '--workspace', account.workspaceId, '--json']));
    assert.equal(first.exact, false);
    assert.equal(first.workspacesChecked, 1);
    assert.deepEqual(first.dayCounts, { checked: 1, corrected: 1, inserted: 1, deleted: 0 });
    assert.deepEqual(first.submissionsUsed, { checked: 1, corrected: 1 });
    assert.deepEqual(first.changed, [{ workspaceId: account.workspaceId, dayCountsCorrected: 1, submissionsUsed: { from: 0, to: 2 } }]);
    assert.equal(typeof first.ms, 'number');
    const days = await app.ctx.stats.formDays(account.userId, form.id);
    assert.deepEqual(
      days.filter((d) => d.accepted + d.spam > 0).map(({ accepted, spam }) => ({ accepted, spam })),
      [{ accepted: 2, spam: 1 }],
    );

    const second = onlyJson(await runCli(env, ['repair-counts', '--exact', '--json']));
    assert.equal(second.exact, true);
    assert.ok(second.workspacesChecked >= 1);
    assert.equal(second.dayCounts.corrected, 0);
    assert.equal(second.submissionsUsed.corrected, 0);
    assert.deepEqual(second.changed, []);

    const text = await runCli(env, ['repair-counts']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Day counts: \d+ checked, 0 corrected \(0 added, 0 removed\)\./);
    assert.match(text.stdout, /Allowance used: \d+ checked, 0 corrected\./);
  });

  it('names an unknown workspace: exit 1 and one error object', async () => {
    const result = await runCli(cliEnv(database), ['repair-counts', '--workspace', 'nope', '--json']);
    assert.equal(result.code, 1, result.stderr);
    const body = JSON.parse(result.stdout.trim());
    assert.equal(body.error.code, 'not_found');
    assert.match(body.error.message, /Workspace nope was not found/);
  });
});
