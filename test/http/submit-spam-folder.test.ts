import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dayOf } from '../../src/db/schema/daily-count.js';
import { spamFolderCap } from '../../src/domain/plans.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { person, type Person } from '../helpers/members.js';
import { JSON_ACCEPT, request } from '../helpers/submit.js';

const BOUNDARY = '----formgatespam';

/**
 * Issue 38, item 5: the spam folder of a workspace is bounded (count and bytes of the spam caught
 * within the retention); past it, the filter's spam is dropped, the visitor answered as usual, and
 * the owner sees how much was dropped. The folder is measured by `spam_days`, so a nearly full one
 * is made by writing its day rather than by posting thousands of times.
 */
describe('the spam folder’s bound (issue 38, item 5)', () => {
  let app: TestApp;
  const cap = spamFolderCap('FREE');

  before(async () => {
    app = await startApp({ metrics: 'on' });
  });
  after(() => app.close());

  /** A FREE workspace's owner, logged in, with a form whose spam word is "casino", and a spam folder `room` submissions short of full. */
  async function nearlyFull(room: number, bytesRoom = cap.bytes): Promise<{ owner: Person; formId: string }> {
    const owner = await person(app, 'spam-owner');
    const form = await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact', customSpamWords: 'casino' });
    await app.ctx.database.db
      .insertInto('spamDays')
      .values({ workspaceId: owner.workspaceId, day: dayOf(Date.now()), caught: cap.count - room, bytes: cap.bytes - bytesRoom, dropped: 0 })
      .execute();
    return { owner, formId: form.id };
  }

  function spam(formId: string, text = 'cheap casino chips') {
    return request('POST', `${app.submitUrl}/${formId}`, JSON.stringify({ message: text }), { 'content-type': 'application/json', accept: JSON_ACCEPT });
  }

  async function statuses(formId: string): Promise<string[]> {
    const rows = await app.ctx.database.db.selectFrom('submissions').select('status').where('formId', '=', formId).orderBy('seq').execute();
    return rows.map((row) => row.status);
  }

  async function day(workspaceId: string) {
    const row = await app.ctx.database.db
      .selectFrom('spamDays')
      .select(['caught', 'bytes', 'dropped'])
      .where('workspaceId', '=', workspaceId)
      .where('day', '=', dayOf(Date.now()))
      .executeTakeFirstOrThrow();
    return { caught: Number(row.caught), bytes: Number(row.bytes), dropped: Number(row.dropped) };
  }

  async function droppedMetric(): Promise<number> {
    const text = (await app.fetch('GET', `${app.publicUrl}/metrics`)).body as string;
    return Number(/formgate_submissions_total\{outcome="spam_dropped",reason=""\} (\d+)/.exec(text)?.[1] ?? 0);
  }

  it('keeps spam while the folder has room, then drops it with the ordinary answer; the owner sees the count', async () => {
    const { owner, formId } = await nearlyFull(2);
    const before = await droppedMetric();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await spam(formId));
    for (const answer of answers) {
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(Object.keys(answer.body).sort(), ['createdAt', 'data', 'formId', 'id'], 'a dropped one is answered as a kept one');
    }
    assert.deepEqual(await statuses(formId), ['spam', 'spam']);
    assert.deepEqual(await day(owner.workspaceId), { caught: cap.count, bytes: 2 * Buffer.byteLength('{"message":"cheap casino chips"}'), dropped: 3 });
    assert.equal((await droppedMetric()) - before, 3);
    const page = await owner.client.get(`/forms/${formId}/spam`);
    assert.equal(page.status, 200);
    assert.match(page.html, /The spam folder was full: 3 spam submissions were dropped in the last 30 days/);
    // a submission that is not spam is kept as ever
    const kept = await request('POST', `${app.submitUrl}/${formId}`, JSON.stringify({ message: 'hello' }), {
      'content-type': 'application/json',
      accept: JSON_ACCEPT,
    });
    assert.equal(kept.status, 200);
    assert.deepEqual(await statuses(formId), ['spam', 'spam', 'accepted']);
  });

  it('bounds the bytes too: a post larger than the room left is dropped, a smaller one kept', async () => {
    const { owner, formId } = await nearlyFull(100, 1000);
    assert.equal((await spam(formId, `casino ${'x'.repeat(2000)}`)).status, 200);
    assert.equal((await spam(formId, 'casino')).status, 200);
    assert.deepEqual(await statuses(formId), ['spam']);
    assert.equal((await day(owner.workspaceId)).dropped, 1);
  });

  it('holds exactly when posts race for the last places', async () => {
    const { owner, formId } = await nearlyFull(3);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => spam(formId, `casino ${i}`)));
    for (const answer of answers) assert.equal(answer.status, 200);
    assert.equal((await statuses(formId)).length, 3);
    const counted = await day(owner.workspaceId);
    assert.equal(counted.caught, cap.count);
    assert.equal(counted.dropped, 9);
  });

  it('keeps none of a dropped post’s files, and gives back their reserved bytes', async () => {
    const { owner, formId } = await nearlyFull(0);
    const body = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="message"\r\n\r\ncasino\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n${'p'.repeat(5000)}\r\n--${BOUNDARY}--\r\n`,
    );
    const answer = await request('POST', `${app.submitUrl}/${formId}`, body, {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      accept: JSON_ACCEPT,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(await statuses(formId), []);
    const workspace = await app.ctx.database.db
      .selectFrom('workspaces')
      .select(['fileBytes', 'fileBytesReserved'])
      .where('id', '=', owner.workspaceId)
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(workspace.fileBytes), Number(workspace.fileBytesReserved)], [0, 0]);
    assert.deepEqual(await app.ctx.database.db.selectFrom('unclaimedFiles').select('storageKey').execute(), []);
  });

  it('never refuses the owner’s own Mark as spam on a full folder, and Not spam makes room again', async () => {
    const { owner, formId } = await nearlyFull(1);
    const ham = await request('POST', `${app.submitUrl}/${formId}`, JSON.stringify({ message: 'a real question' }), {
      'content-type': 'application/json',
      accept: JSON_ACCEPT,
    });
    assert.equal((await spam(formId)).status, 200);
    assert.deepEqual(await statuses(formId), ['accepted', 'spam'], 'the folder is now full');
    assert.equal(await app.ctx.submissionMarks.markSpam(owner.userId, owner.email, { formId }, [ham.body.id]), 1);
    assert.deepEqual(await statuses(formId), ['spam', 'spam']);
    assert.equal((await spam(formId)).status, 200);
    assert.deepEqual(await statuses(formId), ['spam', 'spam'], 'the filter’s spam is dropped');
    const [caught] = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).orderBy('seq', 'desc').execute();
    await app.ctx.submissions.markNotSpam(owner.userId, caught!.id);
    assert.equal((await spam(formId)).status, 200);
    assert.deepEqual((await statuses(formId)).sort(), ['accepted', 'spam', 'spam'], 'Not spam gave its place back');
    // the owner's own spam never took a place: Not spam on it gives none back
    await app.ctx.submissions.markNotSpam(owner.userId, ham.body.id);
    assert.equal((await spam(formId)).status, 200);
    assert.deepEqual((await statuses(formId)).sort(), ['accepted', 'accepted', 'spam'], 'full again: the last spam was dropped');
  });

  it('forgets the days past the spam retention (the hourly purge), so that the bound counts only what may still be kept', async () => {
    const { owner } = await nearlyFull(10);
    const retentionMs = app.ctx.config.spamRetentionMs;
    const old = dayOf(Date.now() - retentionMs) - 1;
    await app.ctx.database.db.insertInto('spamDays').values({ workspaceId: owner.workspaceId, day: old, caught: 5, bytes: 5, dropped: 1 }).execute();
    assert.ok((await app.ctx.submissions.forgetSpamDays(retentionMs)) >= 1);
    const days = await app.ctx.database.db.selectFrom('spamDays').select('day').where('workspaceId', '=', owner.workspaceId).execute();
    assert.deepEqual(
      days.map((row) => row.day),
      [dayOf(Date.now())],
    );
  });
});
