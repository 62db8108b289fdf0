import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertJson, assertProblem } from '../helpers/problems.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(146);

/**
 * Issue 40, item 6: marking through the API moves a submission out of the lists and search and
 * back, and "Not spam" sends what never went out, once. No delivery worker runs: the queued jobs
 * are what is checked.
 */
describe(`spam folder API: moves and deliveries (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let form: any;

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    form = await createForm(app, owner, { name: 'Contact', notificationEmails: [owner.email], webhookUrl: 'https://example.com/hook' });
  });
  after(() => app.close());

  async function submit(fields: Record<string, unknown>): Promise<string> {
    const answer = await postJson(app, form.id, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id as string;
  }

  /** The queued deliveries of a submission, by kind, sorted. */
  async function jobsOf(submissionId: string): Promise<string[]> {
    const jobs = await app.ctx.database.db.selectFrom('jobs').select('kind').where('submissionId', '=', submissionId).execute();
    return jobs.map((job) => job.kind).sort();
  }

  const statusOf = async (id: string) =>
    (await app.ctx.database.db.selectFrom('submissions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const used = async () => (await app.ctx.workspaces.getForMember(owner.userId, owner.workspaceId)).submissionsUsed;
  const ids = async (path: string) => (await app.api('GET', path, { token: owner.token })).body.data.map((s: any) => s.id);
  const inbox = () => ids(`/forms/${form.id}/submissions?limit=100`);
  const folder = () => ids(`/forms/${form.id}/spam?limit=100`);
  const search = (term: string) => ids(`/workspaces/${owner.workspaceId}/submissions?search=${term}`);
  // SQLite finds a changed row in its search backlog until the indexer has moved it; asked in both states
  const indexNow = () => new SearchIndexer(app.ctx.database).indexAll();

  it('Mark as spam takes a submission out of the lists and search; Not spam brings it back, sending nothing again', async () => {
    const id = await submit({ name: 'Quilla', message: 'a marmoset question' });
    const queued = await jobsOf(id);
    assert.deepEqual(queued, ['notification', 'webhook']);
    const counted = await used();
    await indexNow();
    assert.deepEqual(await search('marmoset'), [id]);

    const marked = await app.api('POST', `/submissions/${id}/spam`, { token: owner.token });
    assertJson(marked, 200);
    assert.deepEqual(Object.keys(marked.body), ['id', 'formId', 'data', 'createdAt', 'spamReasons']);
    assert.deepEqual(marked.body.data, { name: 'Quilla', message: 'a marmoset question' });
    assert.deepEqual(marked.body.spamReasons, [`Marked as spam by ${owner.email}`]);
    assert.ok(!(await inbox()).includes(id), 'out of the list');
    assert.ok((await folder()).includes(id), 'in the spam folder');
    assert.deepEqual(await search('marmoset'), [], 'out of search (backlog)');
    await indexNow();
    assert.deepEqual(await search('marmoset'), [], 'out of search (indexed)');

    const back = await app.api('DELETE', `/submissions/${id}/spam`, { token: owner.token });
    assertJson(back, 200);
    assert.deepEqual(back.body, {
      id,
      formId: form.id,
      data: { name: 'Quilla', message: 'a marmoset question' },
      createdAt: marked.body.createdAt,
      status: 'accepted',
      deliveries: 'earlier',
    });
    assert.ok((await inbox()).includes(id), 'back in the list');
    assert.ok(!(await folder()).includes(id));
    assert.deepEqual(await search('marmoset'), [id], 'back in search (backlog)');
    await indexNow();
    assert.deepEqual(await search('marmoset'), [id], 'back in search (indexed)');
    assert.deepEqual(await jobsOf(id), queued, 'nothing queued again');
    assert.equal(await used(), counted, 'not counted again');
  });

  it('spam the filter caught: Not spam queues its deliveries once, however many requests arrive at once; marked and returned again, nothing more', async () => {
    const id = await submit({ name: 'Kim', message: 'See <script>quokka()</script>' });
    assert.equal(await statusOf(id), 'spam');
    assert.deepEqual(await jobsOf(id), [], 'spam gets no deliveries');
    const listed = (await app.api('GET', `/forms/${form.id}/spam`, { token: owner.token })).body.data.find((s: any) => s.id === id);
    assert.ok(listed.spamReasons.length > 0, 'the filter’s reasons are listed');
    const counted = await used();

    const answers = await Promise.all([1, 2, 3].map(() => app.api('DELETE', `/submissions/${id}/spam`, { token: owner.token })));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409, 409], 'one request moves it, the others find it moved');
    const moved = answers.find((answer) => answer.status === 200)!;
    assert.equal(moved.body.status, 'accepted');
    assert.equal(moved.body.deliveries, 'queued');
    for (const refused of answers.filter((answer) => answer.status === 409)) assertProblem(app, refused, 'conflict');
    assert.deepEqual(await jobsOf(id), ['notification', 'webhook'], 'queued once');
    assert.equal(await used(), counted + 1, 'counted once');
    assert.ok((await inbox()).includes(id));

    assertJson(await app.api('POST', `/submissions/${id}/spam`, { token: owner.token }), 200);
    assertProblem(app, await app.api('POST', `/submissions/${id}/spam`, { token: owner.token }), 'conflict');
    const returned = await app.api('DELETE', `/submissions/${id}/spam`, { token: owner.token });
    assert.equal(returned.body.deliveries, 'earlier');
    assert.deepEqual(await jobsOf(id), ['notification', 'webhook'], 'nothing sent again');
    assert.equal(await used(), counted + 1);
  });

  it('two Mark as spam requests at once: one moves it, the other is 409, and its day is counted once', async () => {
    const id = await submit({ name: 'Ola', message: 'twice at once' });
    const day = async () => app.ctx.database.db.selectFrom('dailyCounts').select(['accepted', 'spam']).where('formId', '=', form.id).executeTakeFirstOrThrow();
    const start = await day();
    const answers = await Promise.all([1, 2].map(() => app.api('POST', `/submissions/${id}/spam`, { token: owner.token })));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409]);
    const end = await day();
    assert.deepEqual([Number(end.accepted), Number(end.spam)], [Number(start.accepted) - 1, Number(start.spam) + 1]);
  });

  it('spam the filter caught, with the allowance used up: Not spam holds it, out of the list, delivered only when released', async () => {
    const id = await submit({ name: 'Lee', message: 'Try <iframe src=x>' });
    assert.equal(await statusOf(id), 'spam');
    const before = await used();
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 50_000 }).where('id', '=', owner.workspaceId).execute();
    try {
      const held = await app.api('DELETE', `/submissions/${id}/spam`, { token: owner.token });
      assertJson(held, 200);
      assert.equal(held.body.status, 'held');
      assert.equal(held.body.deliveries, 'on_release');
      assert.equal(await statusOf(id), 'held');
      assert.ok(!(await inbox()).includes(id));
      assert.ok(!(await folder()).includes(id));
      assert.deepEqual(await jobsOf(id), []);
      assertProblem(app, await app.api('POST', `/submissions/${id}/spam`, { token: owner.token }), 'conflict');
    } finally {
      await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: before }).where('id', '=', owner.workspaceId).execute();
    }
  });
});
