import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toJson } from '../../src/db/database.js';
import { newId } from '../../src/ids.js';
import { quotaNoticeMessage } from '../../src/mail/quota-notice.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import { BROWSER_ACCEPT, post, postJson, storedRows, visitorAddresses } from '../helpers/submit.js';

const from = visitorAddresses(47);
const message = (n: number) => ({ name: `Visitor ${n}`, message: `Question ${n}: when does the shop at street ${n * 7} open?` });

/** Stores `count` held submissions of the form at once, as if they had come past the allowance. */
async function holdMany(app: TestApp, form: { id: string; workspaceId: string }, count: number): Promise<void> {
  const now = Date.now();
  const rows = Array.from({ length: count }, (_, n) => ({
    id: newId(),
    formId: form.id,
    workspaceId: form.workspaceId,
    data: toJson(message(10_000 + n)),
    status: 'held' as const,
    searchText: '',
    emailControls: null,
    spamReasons: null,
    createdAt: now,
  }));
  for (let i = 0; i < rows.length; i += 100)
    await app.ctx.database.db
      .insertInto('submissions')
      .values(rows.slice(i, i + 100))
      .execute();
}

async function heldCount(app: TestApp, workspaceId: string): Promise<number> {
  const row = await app.ctx.database.db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspaceId', '=', workspaceId)
    .where('status', '=', 'held')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A FREE workspace whose allowance is used up, and one of its forms. */
async function spentWorkspace(app: TestApp) {
  const account = await createAccount(app);
  const form = await createForm(app, account);
  await app.ctx.workspaces.setPlan(account.workspaceId, 'FREE');
  await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', account.workspaceId).execute();
  return { account, form };
}

describe(`submit surface: held submissions have a cap (${TEST_DIALECT})`, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ rateLimitSubmit: 'off' });
  });
  after(() => app?.close());

  it('holds up to 250 past a free allowance, then refuses with quota_exceeded and stores nothing', async () => {
    const { account, form } = await spentWorkspace(app);
    await holdMany(app, form, 249);
    assert.equal((await postJson(app, form.id, message(1), from())).status, 200, 'the 250th is held');
    assert.equal(await heldCount(app, account.workspaceId), 250);

    const refused = await postJson(app, form.id, message(2), from());
    assertProblem(app, refused, 'quota_exceeded');
    assert.equal(refused.status, 403);
    assert.match(refused.body.detail, /nothing was stored/);
    // a browser gets a page saying so, with the same status
    const page = await post(app, form.id, message(3), { accept: BROWSER_ACCEPT, ...from() });
    assert.equal(page.status, 403);
    assert.match(String(page.body), /nothing was stored/);
    assert.equal(await heldCount(app, account.workspaceId), 250, 'nothing more was stored');
    assert.equal((await storedRows(app, form.id)).length, 250);

    // spam is not held, so it is still quarantined as before
    // an upgrade releases the held ones, and the form takes submissions again
    await app.ctx.workspaces.setPlan(account.workspaceId, 'BUNDLE_50000');
    assert.equal(await heldCount(app, account.workspaceId), 0);
    assert.equal((await postJson(app, form.id, message(4), from())).status, 200);
  });

  it('holds exactly up to the cap when submissions race for its last places', async () => {
    const { account, form } = await spentWorkspace(app);
    await holdMany(app, form, 245);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => postJson(app, form.id, message(100 + n), from())));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [...Array(5).fill(200), ...Array(25).fill(403)], 'five held, the rest refused');
    for (const answer of answers.filter((a) => a.status === 403)) assertProblem(app, answer, 'quota_exceeded');
    assert.equal(await heldCount(app, account.workspaceId), 250, 'no overshoot');
  });

  it('holds exactly up to the cap with two instances writing at once', async () => {
    const database = await createTestDatabase();
    const a = await startApp({ rateLimitSubmit: 'off' }, { database });
    const b = await startApp({ rateLimitSubmit: 'off' }, { database });
    try {
      const { account, form } = await spentWorkspace(a);
      await holdMany(a, form, 240);
      const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => postJson(n % 2 ? a : b, form.id, message(200 + n), from())));
      assert.equal(answers.filter((x) => x.status === 200).length, 10);
      assert.equal(answers.filter((x) => x.status === 403).length, 30);
      assert.equal(await heldCount(a, account.workspaceId), 250);
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });

  it('tells the owners, in the allowance notice, how many more are held and that the rest are refused', () => {
    const { text } = quotaNoticeMessage({ name: 'Shop', id: 'w1', plan: 'FREE', allowance: 250, held: 250, url: 'https://forms.example.com' });
    assert.match(
      text,
      /Up to 250 more are kept as held; past them, new submissions are refused \(the visitor is told so, nothing is stored\) until you upgrade\./,
    );
  });
});
