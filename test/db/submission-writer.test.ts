import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SubmissionWriter, type SubmissionToStore } from '../../src/intake/writer.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { TEST_DIALECT } from '../helpers/database.js';

/**
 * The writer's counting when one batch (one transaction) holds several workspaces: each is counted
 * on its own terms. The submissions are handed over in one turn of the event loop, so they share a
 * batch; the HTTP tests of the quota cannot promise that.
 */
describe(`submission writer: one batch, several workspaces (${TEST_DIALECT})`, () => {
  let app: TestApp;
  const reached: string[] = [];
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  async function freeWorkspace(used: number): Promise<{ workspaceId: string; formId: string }> {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    await app.ctx.workspaces.setPlan(account.workspaceId, 'FREE');
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: used }).where('id', '=', account.workspaceId).execute();
    return { workspaceId: account.workspaceId, formId: form.id };
  }

  const submission = (target: { workspaceId: string; formId: string }, n: number, spam = false): SubmissionToStore => ({
    ...target,
    data: { name: `Visitor ${n}` },
    emailControls: null,
    spam,
    spamReasons: spam ? ['a test reason'] : undefined,
    deliveries: { kinds: ['email'], notificationEmails: [], webhookUrl: null },
  });

  it('counts each workspace exactly: those with room whole, the one at its limit one by one, the full one held', async () => {
    const [nearLimit, roomy, full] = [await freeWorkspace(248), await freeWorkspace(0), await freeWorkspace(250)];
    const writer = new SubmissionWriter(app.ctx.database, async (_trx, workspaceId) => void reached.push(workspaceId));
    const batch = [
      submission(nearLimit, 1),
      submission(roomy, 2),
      submission(full, 3),
      submission(nearLimit, 4),
      submission(roomy, 5, true),
      submission(nearLimit, 6),
      submission(full, 7),
      submission(roomy, 8),
    ];
    const stored = await Promise.all(batch.map((item) => writer.store(item)));

    assert.deepEqual(
      stored.map((s) => s.status),
      ['accepted', 'accepted', 'held', 'accepted', 'spam', 'held', 'held', 'accepted'],
    );
    assert.equal(new Set(stored.map((s) => s.createdAt)).size, 1, 'one batch, one transaction');
    const used = async (workspaceId: string) =>
      (await app.ctx.database.db.selectFrom('workspaces').select('submissionsUsed').where('id', '=', workspaceId).executeTakeFirstOrThrow()).submissionsUsed;
    assert.deepEqual([await used(nearLimit.workspaceId), await used(roomy.workspaceId), await used(full.workspaceId)], [250, 2, 250]);
    assert.deepEqual(reached.sort(), [nearLimit.workspaceId, full.workspaceId].sort(), 'owners of each workspace that ran out are noted once');
    const jobs = await app.ctx.database.db
      .selectFrom('jobs')
      .select('submissionId')
      .where(
        'submissionId',
        'in',
        stored.map((s) => s.id),
      )
      .execute();
    const accepted = stored.filter((s) => s.status === 'accepted').map((s) => s.id);
    assert.deepEqual(jobs.map((j) => j.submissionId).sort(), accepted.sort(), 'deliveries for accepted submissions only');

    // the charts' counts of the day: held ones arrived (accepted), spam apart; spam keeps its reasons
    const day = Math.floor(stored[0]!.createdAt / 86_400_000);
    const counts = await app.ctx.database.db
      .selectFrom('dailyCounts')
      .select(['formId', 'day', 'accepted', 'spam'])
      .where('formId', 'in', [nearLimit.formId, roomy.formId, full.formId])
      .execute();
    const countOf = (formId: string) =>
      counts.filter((c) => c.formId === formId).map((c) => ({ day: Number(c.day), accepted: Number(c.accepted), spam: Number(c.spam) }));
    assert.deepEqual(countOf(nearLimit.formId), [{ day, accepted: 3, spam: 0 }]);
    assert.deepEqual(countOf(roomy.formId), [{ day, accepted: 2, spam: 1 }]);
    assert.deepEqual(countOf(full.formId), [{ day, accepted: 2, spam: 0 }]);
    const spam = await app.ctx.database.db.selectFrom('submissions').select('spamReasons').where('id', '=', stored[4]!.id).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(spam.spamReasons ?? 'null'), ['a test reason']);

    // a second batch on the same day adds to the same row
    const next = await writer.store(submission(roomy, 9));
    const again = await app.ctx.database.db
      .selectFrom('dailyCounts')
      .select(['day', 'accepted', 'lastAt'])
      .where('formId', '=', roomy.formId)
      .orderBy('day')
      .execute();
    assert.equal(Number(again.at(-1)!.lastAt), next.createdAt, 'the day keeps its newest arrival');
    const sameDay = Math.floor(next.createdAt / 86_400_000) === day;
    assert.deepEqual(
      again.map((c) => Number(c.accepted)),
      sameDay ? [3] : [2, 1],
      'one row per form and day',
    );
  });
});
