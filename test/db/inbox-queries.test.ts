import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { newId } from '../../src/ids.js';
import { OPEN_CAP } from '../../src/services/triage.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { installQueryCounter, statementsDuring } from '../helpers/query-count.js';

const DONE = 3000;

/**
 * Issue 41's bar (`npm run bench`, inbox): the queries every page of the inbox makes beside its list,
 * built once and prepared once per PostgreSQL connection. A form's Mine count reads the partial index
 * of a form's open assigned submissions (migration 0036), however many the viewer has elsewhere or
 * has done; the counts, members and labels are exactly what they were, and a stranger gets none.
 */
describe(`the inbox's counts, members and marks (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: string;
  let member: string;
  let stranger: string;
  let workspaceId: string;
  let formId: string;
  let otherForm: string;
  const ids: string[] = [];

  before(async () => {
    installQueryCounter();
    app = await startApp();
    const stamp = Date.now();
    const created = await app.ctx.users.createUser(`inbox-owner-${stamp}@example.com`, 'a long enough password');
    owner = created.user.id;
    workspaceId = created.workspace.id;
    member = (await app.ctx.users.createUser(`inbox-member-${stamp}@example.com`, 'a long enough password')).user.id;
    await app.ctx.workspaces.addMember(workspaceId, `inbox-member-${stamp}@example.com`);
    stranger = (await app.ctx.users.createUser(`inbox-stranger-${stamp}@example.com`, 'a long enough password')).user.id;
    formId = (await app.ctx.forms.createForm(owner, workspaceId, { name: 'Busy' })).id;
    otherForm = (await app.ctx.forms.createForm(owner, workspaceId, { name: 'Other' })).id;
    const t = Date.now() - 10_000_000;
    let n = 0;
    const row = (form: string, doneAt: number | null, assigneeId: string | null) => ({
      id: newId(),
      formId: form,
      workspaceId,
      data: JSON.stringify({ n: ++n }),
      status: 'accepted' as const,
      createdAt: t + n * 1000,
      searchText: `n\n${n}`,
      doneAt,
      assigneeId,
      unread: 0,
    });
    // the owner's done ones, the form's open ones (30 the owner's, 20 the member's, 450 nobody's), and the owner's open ones of another form
    const rows = [
      ...Array.from({ length: DONE }, () => row(formId, t, owner)),
      ...Array.from({ length: 30 }, () => row(formId, null, owner)),
      ...Array.from({ length: 20 }, () => row(formId, null, member)),
      ...Array.from({ length: 450 }, () => row(formId, null, null)),
      ...Array.from({ length: 700 }, () => row(otherForm, null, owner)),
    ];
    for (let i = 0; i < rows.length; i += 500)
      await app.ctx.database.db
        .insertInto('submissions')
        .values(rows.slice(i, i + 500))
        .execute();
    ids.push(...rows.slice(DONE, DONE + 3).map((r) => r.id));
    await app.ctx.database.db.executeQuery(CompiledQuery.raw('ANALYZE'));
  });
  after(() => app?.close());

  /** The plan of the one statement `run` sends, EXPLAINed with its own parameters. */
  async function planOf(run: () => Promise<unknown>): Promise<string> {
    const statements = await statementsDuring(run);
    assert.equal(statements.length, 1, 'one statement');
    const { text, values } = statements[0]!;
    const params = TEST_DIALECT === 'sqlite' ? (values.flat() as unknown[]) : values;
    // NOTE: PostgreSQL reads a table of a few thousand rows whole (cheaper there than any index); with
    // that choice taken away, it shows which index it takes for the query, as it does at 100,000 rows
    const { rows } = await app.ctx.database.db.transaction().execute(async (trx) => {
      if (TEST_DIALECT === 'postgres') await trx.executeQuery(CompiledQuery.raw('SET LOCAL enable_seqscan = off'));
      return trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`EXPLAIN ${TEST_DIALECT === 'sqlite' ? 'QUERY PLAN ' : ''}${text}`, params));
    });
    return rows.map((r) => r.detail ?? r['QUERY PLAN'] ?? '').join('\n');
  }

  it('counts the open ones of a form and of a workspace, and the viewer’s, up to the cap', async () => {
    // both at once, as a page of the inbox shows them: one statement
    assert.deepEqual(await app.ctx.triage.openCounts({ formId }, owner), { open: 500, mine: 30 });
    assert.deepEqual(await app.ctx.triage.openCounts({ formId }, member), { open: 500, mine: 20 });
    assert.equal((await app.ctx.triage.openCounts({ formId: otherForm }, member)).mine, 0);
    assert.deepEqual(await app.ctx.triage.openCounts({ workspaceId }, owner), { open: OPEN_CAP, mine: 730 });
    assert.deepEqual(await app.ctx.triage.openCounts({ workspaceId }, member), { open: OPEN_CAP, mine: 20 });
    assert.equal((await statementsDuring(() => app.ctx.triage.openCounts({ workspaceId }, owner))).length, 1);
  });

  it('counts a form’s Mine from the index of a form’s open assigned ones, not from the viewer’s 3,700 others', async () => {
    // both counts in one statement: the open ones from the form's open index, the viewer's from 0036's
    const both = await planOf(() => app.ctx.triage.openCounts({ formId }, owner));
    assert.match(both, /submissions_form_open\b/);
    assert.match(both, /submissions_form_assigned_open/);
  });

  it('lists the members and the labels to a member only, in one statement each', async () => {
    const members = await app.ctx.triage.assignees(owner, workspaceId);
    assert.deepEqual(
      members.map((m) => m.id),
      [owner, member],
    );
    assert.equal((await statementsDuring(() => app.ctx.triage.assignees(member, workspaceId))).length, 1);
    await assert.rejects(app.ctx.triage.assignees(stranger, workspaceId), { code: 'not_found' });
    // no labels yet: an empty list for a member, not found for anyone else
    assert.deepEqual(await app.ctx.labels.list(member, workspaceId), []);
    await assert.rejects(app.ctx.labels.list(stranger, workspaceId), { code: 'not_found' });
    const urgent = await app.ctx.labels.create(owner, workspaceId, { name: 'Urgent', color: 'red' });
    const billing = await app.ctx.labels.create(owner, workspaceId, { name: 'billing', color: 'blue' });
    assert.deepEqual(await app.ctx.labels.list(member, workspaceId), [billing, urgent]);
    assert.equal((await statementsDuring(() => app.ctx.labels.list(member, workspaceId))).length, 1);
    await assert.rejects(app.ctx.labels.list(stranger, workspaceId), { code: 'not_found' });
  });

  it('marks a page’s rows with their triage, labels and stored files, for any number of ids', async () => {
    const urgent = (await app.ctx.labels.list(owner, workspaceId)).find((label) => label.name === 'Urgent');
    await app.ctx.labels.setLabels(owner, ids[0]!, [urgent!.id]);
    await app.ctx.submissionMarks.markUnread(owner, ids[1]!);
    const marks = await app.ctx.submissionMarks.marksOf(ids);
    assert.deepEqual(
      ids.map((id) => marks.get(id)?.assigneeId),
      [owner, owner, owner],
    );
    assert.deepEqual(
      ids.map((id) => marks.get(id)?.unread),
      [false, true, false],
    );
    const labels = await app.ctx.labels.labelsOf(ids);
    assert.deepEqual(labels.get(ids[0]!), [urgent]);
    assert.equal(labels.has(ids[1]!), false);
    // a stored file and a dropped one: the paperclip counts the stored one, in the marks as in storedCounts
    const file = { submissionId: ids[2]!, formId, workspaceId, field: 'brief', type: 'application/pdf', size: 10, createdAt: Date.now() };
    await app.ctx.database.db
      .insertInto('submissionFiles')
      .values([
        { ...file, id: newId(), position: 0, name: 'kept.pdf', storageKey: `test/${newId()}`, droppedReason: null },
        { ...file, id: newId(), position: 1, name: 'dropped.pdf', storageKey: null, droppedReason: 'Uploads are off.' },
      ])
      .execute();
    const withFile = await app.ctx.submissionMarks.marksOf(ids);
    assert.deepEqual(
      ids.map((id) => withFile.get(id)?.files),
      [0, 0, 1],
    );
    assert.deepEqual([...(await app.ctx.submissionFiles.storedCounts(ids))], [[ids[2], 1]]);
    assert.equal((await app.ctx.submissionMarks.marksOf([])).size, 0);
    assert.equal((await app.ctx.labels.labelsOf(ids.slice(0, 1))).size, 1);
  });
});
