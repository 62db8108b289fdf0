import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';
import { listed, postJson as postJsonFrom, storedRows, visitorAddresses } from '../helpers/submit.js';

const message = (n: number) => ({ name: `Visitor ${n}`, message: `Question number ${n} about opening hours.` });
const from = visitorAddresses(5);
/** Each submission from a visitor address of its own, as on a real site. */
const postJson = (app: TestApp, formId: string, fields: unknown) => postJsonFrom(app, formId, fields, from());

describe('submit surface: submission quota (step 6)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  async function workspaceRow(id: string) {
    return app.ctx.database.db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }
  async function setUsed(workspaceId: string, used: number) {
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: used }).where('id', '=', workspaceId).execute();
  }
  async function freeWorkspaceForm(): Promise<{ account: Account; form: any }> {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    await app.ctx.workspaces.setPlan(account.workspaceId, 'FREE');
    return { account, form };
  }

  it('holds submissions past the allowance: the visitor sees success, they are not listed, the owners are noted once', async () => {
    const { account, form } = await freeWorkspaceForm();
    await setUsed(account.workspaceId, 248);
    const answers = [];
    for (let n = 1; n <= 4; n++) answers.push(await postJson(app, form.id, message(n)));
    for (const answer of answers) assert.equal(answer.status, 200, 'a held submission looks like any other to the visitor');
    assert.deepEqual(
      (await storedRows(app, form.id)).map((r) => r.status),
      ['accepted', 'accepted', 'held', 'held'],
    );
    const workspace = await workspaceRow(account.workspaceId);
    assert.equal(workspace.submissionsUsed, 250, 'held submissions do not count');
    assert.ok(workspace.quotaNotifiedAt, 'the first held submission marks the owners as told');
    const notifiedAt = workspace.quotaNotifiedAt;
    await postJson(app, form.id, message(5));
    assert.equal((await workspaceRow(account.workspaceId)).quotaNotifiedAt, notifiedAt, 'told once, not per submission');

    // an upgrade releases every held submission, oldest first, and they are listed from then on
    await app.ctx.workspaces.setPlan(account.workspaceId, 'BUNDLE_50000');
    const rows = await storedRows(app, form.id);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['accepted', 'accepted', 'accepted', 'accepted', 'accepted'],
    );
    const list = await listed(app, account.token, form.id);
    assert.deepEqual(
      list.map((s) => s.data.name),
      ['Visitor 5', 'Visitor 4', 'Visitor 3', 'Visitor 2', 'Visitor 1'],
    );
    const upgraded = await workspaceRow(account.workspaceId);
    assert.equal(upgraded.submissionsUsed, 253);
    assert.equal(upgraded.quotaNotifiedAt, null, 'below the allowance again: the next time it runs out, owners are told again');
    const api = await app.api('GET', '/workspaces', { token: account.token });
    assert.equal(api.body.data.find((w: any) => w.id === account.workspaceId).submissionsQuota, 50_000 - 253);
  });

  it('releases held submissions in arrival order, only as far as the new allowance reaches', async () => {
    const { account, form } = await freeWorkspaceForm();
    await setUsed(account.workspaceId, 250);
    for (let n = 1; n <= 3; n++) assert.equal((await postJson(app, form.id, message(n))).status, 200);
    assert.deepEqual(
      (await storedRows(app, form.id)).map((r) => r.status),
      ['held', 'held', 'held'],
    );
    // one submission left under the upgraded allowance
    await setUsed(account.workspaceId, 49_999);
    await app.ctx.workspaces.setPlan(account.workspaceId, 'DEALIFY');
    const rows = await storedRows(app, form.id);
    assert.deepEqual(
      rows.map((r) => [r.data.name, r.status]),
      [
        ['Visitor 1', 'accepted'],
        ['Visitor 2', 'held'],
        ['Visitor 3', 'held'],
      ],
    );
    assert.equal((await workspaceRow(account.workspaceId)).submissionsUsed, 50_000);
    assert.deepEqual(
      (await listed(app, account.token, form.id)).map((s) => s.data.name),
      ['Visitor 1'],
    );
  });

  it('does not count spam against the allowance', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { customSpamWords: 'casino' });
    const before = (await workspaceRow(account.workspaceId)).submissionsUsed;
    assert.equal((await postJson(app, form.id, { message: 'Best casino bonus' })).status, 200);
    assert.equal((await postJson(app, form.id, message(1))).status, 200);
    assert.deepEqual(
      (await storedRows(app, form.id)).map((r) => r.status),
      ['spam', 'accepted'],
    );
    assert.equal((await workspaceRow(account.workspaceId)).submissionsUsed, before + 1);
  });

  it('counts concurrent submissions exactly: no more are accepted than the allowance', async () => {
    const { account, form } = await freeWorkspaceForm();
    await setUsed(account.workspaceId, 240);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => postJson(app, form.id, message(n))));
    for (const answer of answers) assert.equal(answer.status, 200);
    const statuses = (await storedRows(app, form.id)).map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 'accepted').length, 10);
    assert.equal(statuses.filter((s) => s === 'held').length, 10);
    assert.equal((await workspaceRow(account.workspaceId)).submissionsUsed, 250);
  });

  it('emails the owners once, through the outbox, when the allowance runs out', async () => {
    const sink = await startSmtpSink();
    const mailing = await startApp({ smtpUrl: sink.url }, { delivery: true });
    try {
      const account = await createAccount(mailing);
      const form = await createForm(mailing, account);
      await mailing.ctx.workspaces.setPlan(account.workspaceId, 'FREE', { tellOwners: false });
      await mailing.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', account.workspaceId).execute();
      for (let n = 1; n <= 3; n++) assert.equal((await postJson(mailing, form.id, message(n))).status, 200);
      const [mail] = await sink.waitFor(1);
      assert.deepEqual(mail!.envelopeTo, [account.email]);
      assert.match(mail!.parsed.subject ?? '', /allowance|limit|quota/i);
      assert.match(mail!.parsed.text ?? '', /250/);
      const jobs = await mailing.ctx.database.db.selectFrom('jobs').select(['kind', 'status']).execute();
      assert.deepEqual(
        jobs.map((j) => j.kind),
        ['email'],
        'one notice for three held submissions',
      );
    } finally {
      await mailing.close();
      await sink.close();
    }
  });
});
