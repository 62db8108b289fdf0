import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_LEARNED_TOKENS, SpamLessons, teach } from '../../src/services/spam-lessons.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { postJson } from '../helpers/submit.js';

// Words no base model knows: what the filter makes of them is what the workspace taught it.
const PITCH = 'Zorblat quenvid frasmotic plenkor vindaloo brexitron mulvaney quorpex';

/**
 * Issue 40, item 1: the filter learns from every "Mark as spam" and "Not spam", per workspace (one
 * tenant's marks never move another's verdicts), at once for the next submission, and forgets what
 * it learned from a person when that person is erased.
 */
describe('the spam filter learns from marks (issue 40)', () => {
  let app: TestApp;
  let accounts = 0;
  let posts = 0;

  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  async function owner(): Promise<{ userId: string; email: string; workspaceId: string; formId: string }> {
    const email = `learner-${++accounts}@example.com`;
    const { user, workspace } = await app.ctx.users.createUser(email, 'a long enough password');
    const form = await app.ctx.forms.createForm(user.id, workspace.id, { name: 'Contact' });
    return { userId: user.id, email, workspaceId: workspace.id, formId: form.id };
  }

  async function submit(formId: string, message: string, email = 'visitor@example.org'): Promise<{ id: string; status: string; spamReasons: string[] }> {
    // a new name each time: the same content three times from one address is spam whatever was learned
    const answer = await postJson(app, formId, { name: `Visitor ${'abcdefghijklmnopqrstuvwxyz'[posts++ % 26]}`, email, message });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const row = await app.ctx.database.db
      .selectFrom('submissions')
      .select(['id', 'status', 'spamReasons'])
      .where('id', '=', answer.body.id)
      .executeTakeFirstOrThrow();
    return { id: row.id, status: row.status, spamReasons: row.spamReasons ? (JSON.parse(row.spamReasons) as string[]) : [] };
  }

  async function model(workspaceId: string) {
    const row = await app.ctx.database.db.selectFrom('spamModels').selectAll().where('workspaceId', '=', workspaceId).executeTakeFirst();
    return row ? { spam: row.spamMessages, ham: row.hamMessages, tokens: row.tokens } : null;
  }

  it('catches the next like submission once one is marked as spam, in that workspace only', async () => {
    const [learner, stranger] = [await owner(), await owner()];
    const first = await submit(learner.formId, PITCH);
    assert.equal(first.status, 'accepted', first.spamReasons.join('; '));
    assert.equal(await model(learner.workspaceId), null, 'nothing learned before a mark');

    assert.equal(await app.ctx.submissionMarks.markSpam(learner.userId, learner.email, { formId: learner.formId }, [first.id]), 1);
    const learned = await model(learner.workspaceId);
    assert.equal(learned?.spam, 1);
    assert.equal(learned?.ham, 0);
    assert.ok((learned?.tokens ?? 0) > 8, `tokens: ${learned?.tokens}`);

    const next = await submit(learner.formId, `${PITCH} today`);
    assert.equal(next.status, 'spam', next.spamReasons.join('; '));
    assert.match(next.spamReasons.join('; '), /learned filter: \d+% spam, most of all .*\d+ words learned from your marks/);

    const elsewhere = await submit(stranger.formId, `${PITCH} today`);
    assert.equal(elsewhere.status, 'accepted', `another workspace is not moved: ${elsewhere.spamReasons.join('; ')}`);
  });

  it('learns the other way from Not spam, moving a lesson rather than counting it twice', async () => {
    const learner = await owner();
    const first = await submit(learner.formId, PITCH);
    await app.ctx.submissionMarks.markSpam(learner.userId, learner.email, { formId: learner.formId }, [first.id]);
    assert.deepEqual({ ...(await model(learner.workspaceId)), tokens: 0 }, { spam: 1, ham: 0, tokens: 0 });

    await app.ctx.submissions.markNotSpam(learner.userId, first.id);
    assert.deepEqual({ ...(await model(learner.workspaceId)), tokens: 0 }, { spam: 0, ham: 1, tokens: 0 }, 'moved from spam to legitimate');
    const row = await app.ctx.database.db.selectFrom('submissions').select(['status', 'spamLesson']).where('id', '=', first.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'accepted', spamLesson: 'ham' });

    const next = await submit(learner.formId, `${PITCH} again`);
    assert.equal(next.status, 'accepted');
    assert.match(next.spamReasons.join('; '), /learned filter: \d+% legitimate/, 'the verdict that let it in is kept and explained');
  });

  it('forgets what it learned from a person who is erased', async () => {
    const learner = await owner();
    const first = await submit(learner.formId, PITCH, 'erase.me@example.org');
    const other = await submit(learner.formId, 'Vindaloo quorpex is lovely, thank you', 'stays@example.org');
    await app.ctx.submissionMarks.markSpam(learner.userId, learner.email, { formId: learner.formId }, [first.id, other.id]);
    const before = await model(learner.workspaceId);
    assert.equal(before?.spam, 2);

    const erased = await app.ctx.erasure.erase(learner.userId, learner.workspaceId, 'erase.me@example.org');
    assert.equal(erased.deleted, 1);
    const after = await model(learner.workspaceId);
    assert.equal(after?.spam, 1, 'the erased person’s lesson is taken back');
    assert.ok((after?.tokens ?? 0) < (before?.tokens ?? 0), `tokens ${before?.tokens} → ${after?.tokens}`);
    // only the words of the one who stays are left
    const rows = await app.ctx.database.db.selectFrom('spamTokens').select(['spam', 'ham']).where('workspaceId', '=', learner.workspaceId).execute();
    assert.ok(rows.length > 0 && rows.every((row) => row.spam === 1 && row.ham === 0), JSON.stringify(rows.slice(0, 5)));
  });

  it('keeps at most MAX_LEARNED_TOKENS tokens a workspace, dropping the ones learned longest ago', async () => {
    const learner = await owner();
    // words of letters only (digits make a number, counted by its length): "wbaax", "wbabx", …
    const letters = (n: number) => [...n.toString(26).padStart(4, '0')].map((digit) => String.fromCharCode(97 + Number.parseInt(digit, 26))).join('');
    const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${letters(from + i)}x`).join(' ');
    const lessons = Array.from({ length: 12 }, (_, lesson) => ({ id: `lesson-${lesson}`, data: { message: words(lesson * 1000, 1000) }, spamLesson: null }));
    await app.ctx.database.transaction(async (trx) => {
      for (const [index, lesson] of lessons.entries()) await teach(trx, learner.workspaceId, [lesson], 'spam', 1_000 + index);
    });
    const counted = await model(learner.workspaceId);
    assert.equal(counted?.tokens, MAX_LEARNED_TOKENS);
    assert.equal(counted?.spam, 12);
    const oldest = await app.ctx.database.db
      .selectFrom('spamTokens')
      .select((eb) => eb.fn.min('learnedAt').as('at'))
      .where('workspaceId', '=', learner.workspaceId)
      .executeTakeFirstOrThrow();
    assert.ok(Number(oldest.at) > 1_000, 'the first lesson’s own tokens went first');
  });

  it('lets every reader see a lesson at once: a second reader of the same database is told by the change count', async () => {
    const learner = await owner();
    const elsewhere = new SpamLessons(app.ctx.database);
    assert.equal(await elsewhere.countsFor(learner.workspaceId), null);
    const first = await submit(learner.formId, PITCH);
    await app.ctx.submissionMarks.markSpam(learner.userId, learner.email, { formId: learner.formId }, [first.id]);
    const counts = await elsewhere.countsFor(learner.workspaceId);
    assert.equal(counts?.spamMessages, 1);
    assert.equal(counts?.count('zorblat')?.spam, 1);
    assert.equal(counts?.count('never-seen'), undefined);
  });
});
