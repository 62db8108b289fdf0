import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dayOf } from '../../src/db/schema/daily-count.js';
import type { SubmissionStatus } from '../../src/db/schema/submission.js';
import { DAY_MS } from '../../src/domain/time.js';
import { newId } from '../../src/ids.js';
import { repairCounts } from '../../src/services/count-repair.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { type Account, createAccount } from '../helpers/fixtures.js';
import { insertSubmissionWithFiles } from '../helpers/submission-files.js';

let sent = 0;

/** One submission through the real submit surface (the writer counts it as it stores it). */
async function submit(app: TestApp, formId: string, message = `Question ${++sent} about the order`): Promise<string> {
  const answer = await app.fetch('POST', `${app.submitUrl}/${formId}`, {
    body: { email: `v${++sent}@example.net`, message },
    headers: { accept: 'application/json' },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.id;
}

/** Rows as an old writer stores them: the submissions alone, no day count, no allowance counted. */
async function insertOld(app: TestApp, account: Account, formId: string, status: SubmissionStatus, createdAt: number, n = 1): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId(),
    formId,
    workspaceId: account.workspaceId,
    data: JSON.stringify({ message: `old ${i}` }),
    status,
    searchText: '',
    emailControls: null,
    spamReasons: status === 'spam' ? '[]' : null,
    createdAt: createdAt + i,
  }));
  await app.ctx.database.db.insertInto('submissions').values(rows).execute();
}

/** What a fresh count of the workspace's submissions gives, per form × day, sorted. */
async function freshCount(app: TestApp, workspaceId: string) {
  const rows = await app.ctx.database.db.selectFrom('submissions').select(['formId', 'status', 'createdAt']).where('workspaceId', '=', workspaceId).execute();
  const byKey = new Map<string, { formId: string; day: number; accepted: number; spam: number; lastAt: number }>();
  for (const row of rows) {
    const createdAt = Number(row.createdAt);
    const key = `${row.formId} ${dayOf(createdAt)}`;
    const count = byKey.get(key) ?? { formId: row.formId, day: dayOf(createdAt), accepted: 0, spam: 0, lastAt: 0 };
    if (row.status === 'spam') count.spam++;
    else count.accepted++;
    count.lastAt = Math.max(count.lastAt, createdAt);
    byKey.set(key, count);
  }
  return sorted([...byKey.values()]);
}

async function storedCounts(app: TestApp, workspaceId: string) {
  const rows = await app.ctx.database.db
    .selectFrom('dailyCounts')
    .select(['formId', 'day', 'accepted', 'spam', 'lastAt'])
    .where('workspaceId', '=', workspaceId)
    .execute();
  return sorted(rows.map((r) => ({ formId: r.formId, day: Number(r.day), accepted: Number(r.accepted), spam: Number(r.spam), lastAt: Number(r.lastAt) })));
}

function sorted<T extends { formId: string; day: number }>(rows: T[]): T[] {
  return rows.sort((a, b) => (a.formId === b.formId ? a.day - b.day : a.formId < b.formId ? -1 : 1));
}

async function used(app: TestApp, workspaceId: string): Promise<number> {
  const row = await app.ctx.database.db.selectFrom('workspaces').select('submissionsUsed').where('id', '=', workspaceId).executeTakeFirstOrThrow();
  return Number(row.submissionsUsed);
}

/** A workspace with two forms: accepted and spam today through the writer, older days (accepted, spam, held) as an old writer left them. */
async function installation(app: TestApp, now: number) {
  const account = await createAccount(app);
  const contact = await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: 'Contact', customSpamWords: 'casino' });
  const other = await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: 'Other' });
  await submit(app, contact.id);
  await submit(app, contact.id);
  await submit(app, contact.id, 'Win big at the casino tonight');
  await submit(app, other.id);
  const today = dayOf(now) * DAY_MS;
  await insertOld(app, account, contact.id, 'accepted', today - 3 * DAY_MS + 1000, 4);
  await insertOld(app, account, contact.id, 'spam', today - 3 * DAY_MS + 5000, 2);
  await insertOld(app, account, contact.id, 'held', today - 2 * DAY_MS + 1000, 3);
  await insertOld(app, account, other.id, 'accepted', today - DAY_MS + 1000, 5);
  await insertOld(app, account, other.id, 'spam', today - 40 * DAY_MS, 1);
  return { account, contact, other };
}

describe('repair-counts: the counts derived from the submissions', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  it('brings back day counts and the allowance used that an old writer left short, the dashboard figures with them; a second run changes nothing', async () => {
    const now = Date.now();
    const { account, contact, other } = await installation(app, now);
    const db = app.ctx.database.db;
    // as an old writer leaves things, and worse: today's count lowered, a day gone, the counter short
    await db.updateTable('dailyCounts').set({ accepted: 0, spam: 0, lastAt: 0 }).where('formId', '=', contact.id).execute();
    await db.deleteFrom('dailyCounts').where('formId', '=', other.id).execute();
    await db.updateTable('workspaces').set({ submissionsUsed: 1 }).where('id', '=', account.workspaceId).execute();
    assert.notDeepEqual(await storedCounts(app, account.workspaceId), await freshCount(app, account.workspaceId), 'the counts are wrong to begin with');

    const report = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });
    const fresh = await freshCount(app, account.workspaceId);
    assert.deepEqual(await storedCounts(app, account.workspaceId), fresh);
    assert.equal(fresh.length, 6);
    assert.equal(await used(app, account.workspaceId), 3 + 4 + 5, 'every accepted row counted against the allowance (held and spam not)');
    assert.deepEqual(report.dayCounts, { checked: 6, corrected: 6, inserted: 5, deleted: 0 });
    assert.deepEqual(report.submissionsUsed, { checked: 1, corrected: 1 });
    assert.deepEqual(report.changed, [{ workspaceId: account.workspaceId, dayCountsCorrected: 6, submissionsUsed: { from: 1, to: 12 } }]);

    const stats = await app.ctx.stats.workspaceStats(account.userId, account.workspaceId, [contact.id, other.id], now);
    const today = dayOf(now);
    const days = stats.days.filter((d) => d.accepted + d.spam > 0);
    assert.deepEqual(days, [
      { day: today - 3, accepted: 4, spam: 2 },
      { day: today - 2, accepted: 3, spam: 0 },
      { day: today - 1, accepted: 5, spam: 0 },
      { day: today, accepted: 3, spam: 1 },
    ]);
    assert.equal(stats.forms.get(other.id)!.lastSubmissionAt, fresh.filter((r) => r.formId === other.id).at(-1)!.lastAt);
    const listed = await app.api('GET', '/workspaces', { token: account.token });
    const workspace = (listed.body.data as any[]).find((w) => w.id === account.workspaceId);
    assert.equal(workspace.submissionsQuota, 50_000 - 12, 'the API shows the allowance left');

    const again = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });
    assert.deepEqual(again.dayCounts, { checked: 6, corrected: 0, inserted: 0, deleted: 0 });
    assert.deepEqual(again.submissionsUsed, { checked: 1, corrected: 0 });
    assert.deepEqual(again.changed, []);
  });

  it('keeps the counts of deleted submissions and never lowers the allowance used; --exact sets the day counts to the rows', async () => {
    const now = Date.now();
    const { account, contact } = await installation(app, now);
    await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });
    const before = await storedCounts(app, account.workspaceId);
    const usedBefore = await used(app, account.workspaceId);
    // deleted by a person: the chart keeps it, and so does the allowance
    const gone = await submit(app, contact.id);
    await app.ctx.submissions.deleteSubmissions(account.userId, [gone]);
    // an over-count, which only --exact can tell from a deleted submission
    const day = dayOf(now) - 3;
    await app.ctx.database.db.updateTable('dailyCounts').set({ accepted: 99 }).where('formId', '=', contact.id).where('day', '=', day).execute();

    const kept = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });
    assert.equal(kept.dayCounts.corrected, 0);
    assert.equal(await used(app, account.workspaceId), usedBefore + 1);
    const stored = await storedCounts(app, account.workspaceId);
    assert.equal(stored.find((r) => r.formId === contact.id && r.day === day)!.accepted, 99);
    assert.equal(
      stored.find((r) => r.formId === contact.id && r.day === dayOf(now))!.accepted,
      before.find((r) => r.formId === contact.id && r.day === dayOf(now))!.accepted + 1,
    );

    const exact = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId, exact: true });
    assert.deepEqual(await storedCounts(app, account.workspaceId), await freshCount(app, account.workspaceId));
    assert.equal(exact.dayCounts.corrected, 2);
    assert.equal(await used(app, account.workspaceId), usedBefore + 1, 'the allowance used is never lowered');
    // every submission of a day gone: --exact removes the day
    await app.ctx.database.db.deleteFrom('submissions').where('formId', '=', contact.id).where('status', '=', 'held').execute();
    const removed = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId, exact: true });
    assert.deepEqual(removed.dayCounts, { checked: 6, corrected: 1, inserted: 0, deleted: 1 });
    assert.deepEqual(await storedCounts(app, account.workspaceId), await freshCount(app, account.workspaceId));
  });

  it('sets the file storage used to the bytes of the stored files, up or down, and leaves it when right', async () => {
    const account = await createAccount(app);
    const form = await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: 'Applications' });
    await insertSubmissionWithFiles(app, { id: form.id, workspaceId: account.workspaceId }, [
      { field: 'cv', name: 'cv.pdf', type: 'application/pdf', bytes: 'x'.repeat(1200) },
      { field: 'photo', name: 'me.png', type: 'image/png', bytes: null, droppedReason: 'Uploads are off.' },
    ]);
    const bytes = async () =>
      Number(
        (await app.ctx.database.db.selectFrom('workspaces').select('fileBytes').where('id', '=', account.workspaceId).executeTakeFirstOrThrow()).fileBytes,
      );
    assert.equal(await bytes(), 1200, 'counted as it was stored');
    const untouched = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });
    assert.deepEqual(untouched.fileBytes, { checked: 1, corrected: 0 });
    for (const wrong of [0, 99_999]) {
      await app.ctx.database.db.updateTable('workspaces').set({ fileBytes: wrong }).where('id', '=', account.workspaceId).execute();
      const report = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });
      assert.deepEqual(report.fileBytes, { checked: 1, corrected: 1 });
      assert.deepEqual(report.changed.find((c) => c.workspaceId === account.workspaceId)?.fileBytes, { from: wrong, to: 1200 });
      assert.equal(await bytes(), 1200, 'the dropped file takes no room');
    }
  });

  it("sets each form's unread count to its unread inbox submissions, up or down, and leaves it when right", async () => {
    const account = await createAccount(app);
    const form = await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: 'Unread' });
    const other = await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: 'Quiet' });
    const first = await submit(app, form.id);
    await submit(app, form.id);
    const unread = async () => Object.fromEntries(await app.ctx.submissionMarks.unreadCounts([form.id, other.id]));
    assert.deepEqual(await unread(), { [form.id]: 2, [other.id]: 0 }, 'counted as they were stored');
    await app.ctx.submissionMarks.markRead(account.userId, first);
    assert.deepEqual(await unread(), { [form.id]: 1, [other.id]: 0 }, 'opened: one fewer');
    const untouched = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });
    assert.deepEqual(untouched.unreadCounts, { checked: 1, corrected: 0 });
    // as a hand edit or a bug would leave them: one too high, and a row for a form with none
    await app.ctx.database.db.updateTable('unreadCounts').set({ n: 40 }).where('formId', '=', form.id).execute();
    await app.ctx.database.db.insertInto('unreadCounts').values({ formId: other.id, n: 3 }).execute();
    const report = await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });
    assert.deepEqual(report.unreadCounts, { checked: 2, corrected: 2 });
    assert.equal(report.changed.find((c) => c.workspaceId === account.workspaceId)?.unreadCountsCorrected, 2);
    assert.deepEqual(await unread(), { [form.id]: 1, [other.id]: 0 });
    await app.ctx.database.db.deleteFrom('unreadCounts').where('formId', '=', form.id).execute();
    assert.deepEqual(
      (await repairCounts(app.ctx.database, { workspaceId: account.workspaceId })).unreadCounts,
      { checked: 2, corrected: 1 },
      'a missing row is made',
    );
    assert.deepEqual(await unread(), { [form.id]: 1, [other.id]: 0 });
  });

  it('repairs every workspace without --workspace, one only with it, and names an unknown one', async () => {
    const now = Date.now();
    const first = (await installation(app, now)).account;
    const second = (await installation(app, now)).account;
    const one = await repairCounts(app.ctx.database, { workspaceId: first.workspaceId });
    assert.equal(one.workspacesChecked, 1);
    assert.notDeepEqual(await storedCounts(app, second.workspaceId), await freshCount(app, second.workspaceId), 'the other workspace is left alone');
    const all = await repairCounts(app.ctx.database);
    assert.ok(all.workspacesChecked >= 2);
    assert.ok(all.changed.some((c) => c.workspaceId === second.workspaceId));
    assert.ok(!all.changed.some((c) => c.workspaceId === first.workspaceId));
    for (const account of [first, second]) assert.deepEqual(await storedCounts(app, account.workspaceId), await freshCount(app, account.workspaceId));
    await assert.rejects(repairCounts(app.ctx.database, { workspaceId: 'nope' }), { code: 'not_found' });
  });

  it('counts each submission once when they arrive while the repair runs (accepted and spam)', async () => {
    const account = await createAccount(app);
    const form = await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: 'Busy', customSpamWords: 'casino' });
    // spam alone first (a batch of spam takes no workspace row), then a mix
    const posts = Array.from({ length: 90 }, (_, i) => submit(app, form.id, i < 30 || i % 3 === 0 ? 'Win big at the casino tonight' : undefined));
    const repairs = (async () => {
      for (let i = 0; i < 12; i++) await repairCounts(app.ctx.database, { workspaceId: account.workspaceId, exact: i % 2 === 1 });
    })();
    await Promise.all([...posts, repairs]);
    const stored = await storedCounts(app, account.workspaceId);
    assert.deepEqual(stored, await freshCount(app, account.workspaceId));
    assert.equal(
      stored.reduce((n, r) => n + r.accepted + r.spam, 0),
      90,
    );
    assert.equal(await used(app, account.workspaceId), 40);
  });
});
