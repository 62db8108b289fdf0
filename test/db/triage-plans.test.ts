import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { newId } from '../../src/ids.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { installQueryCounter, statementsDuring } from '../helpers/query-count.js';

const DONE = 3000;

/**
 * Issue 41: the inbox's default view (open submissions) reads the partial indexes of open ones
 * (migration 0032), so a page of them costs the same however many are done. Each statement is
 * EXPLAINed as it ran, with its own parameters.
 */
describe(`triage: the open view's statements use the open indexes (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let userId: string;
  let workspaceId: string;
  let formId: string;

  before(async () => {
    installQueryCounter();
    app = await startApp();
    const { user, workspace } = await app.ctx.users.createUser(`plans-${Date.now()}@example.com`, 'a long enough password');
    userId = user.id;
    workspaceId = workspace.id;
    formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Busy' })).id;
    const t = Date.now() - DONE * 1000;
    const rows = Array.from({ length: DONE + 5 }, (_, i) => ({
      id: newId(),
      formId,
      workspaceId,
      data: JSON.stringify({ n: i }),
      status: 'accepted' as const,
      createdAt: t + i * 1000,
      searchText: `n\n${i}`,
      // the oldest are done, the newest five open
      doneAt: i < DONE ? t : null,
    }));
    // and a busier form beside it in the workspace, all open: a form's own index is the narrower
    const other = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Other' })).id;
    rows.push(...Array.from({ length: DONE }, (_, i) => ({ ...rows[i]!, id: newId(), formId: other, doneAt: null })));
    for (let i = 0; i < rows.length; i += 500)
      await app.ctx.database.db
        .insertInto('submissions')
        .values(rows.slice(i, i + 500))
        .execute();
    await app.ctx.database.db.executeQuery(CompiledQuery.raw('ANALYZE'));
  });
  after(() => app?.close());

  /** The plan of each statement `run` sent that reads submissions, as one text. */
  async function plansOf(run: () => Promise<unknown>): Promise<string> {
    const statements = (await statementsDuring(run)).filter((s) => /done_at/.test(s.text));
    assert.ok(statements.length > 0, 'a statement narrowed by done_at');
    const lines: string[] = [];
    for (const { text, values } of statements) {
      const params = TEST_DIALECT === 'sqlite' ? (values.flat() as unknown[]) : values;
      const { rows } = await app.ctx.database.db.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`EXPLAIN ${TEST_DIALECT === 'sqlite' ? 'QUERY PLAN ' : ''}${text}`, params),
      );
      lines.push(...rows.map((row) => row.detail ?? row['QUERY PLAN'] ?? ''));
    }
    return lines.join('\n');
  }

  it('lists a form’s and a workspace’s open submissions from their partial indexes, and counts them there', async () => {
    let listed: string[] = [];
    const formPlan = await plansOf(async () => {
      const page = await app.ctx.submissions.listSubmissions(userId, { formId }, { limit: 50, after: null }, { state: 'open' });
      listed = page.rows.map((row) => row.id);
    });
    assert.equal(listed.length, 5);
    assert.match(formPlan, /submissions_form_open/, formPlan);
    const workspacePlan = await plansOf(() => app.ctx.submissions.listSubmissions(userId, { workspaceId }, { limit: 50, after: null }, { state: 'open' }));
    assert.match(workspacePlan, /submissions_workspace_open|submissions_form_open/, workspacePlan);
    const countPlan = await plansOf(async () => assert.equal((await app.ctx.triage.openCounts({ formId }, userId)).open, 5));
    // NOTE: PostgreSQL reads a table of a few thousand rows whole for a count of up to 1,000 (cheaper there); SQLite's plan is fixed
    if (TEST_DIALECT === 'sqlite') assert.match(countPlan, /submissions_form_open/, countPlan);
  });
});
