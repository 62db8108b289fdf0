import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, type Account } from '../helpers/fixtures.js';
import { installQueryCounter, queriesDuring } from '../helpers/query-count.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

// On PostgreSQL each query is a round trip that costs the process more CPU than most of the work
// (docs/architecture.md, "Round trips on PostgreSQL"): these pages' counts must not creep back up.
const FORMS = 20;

describe('round trips per request on PostgreSQL', { skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only: SQLite has no round trips' }, () => {
  let app: TestApp;
  let account: Account;
  let session: string;
  let formId: string;
  before(async () => {
    installQueryCounter();
    app = await startApp();
    account = await createAccount(app);
    for (let i = 1; i <= FORMS; i++) formId = (await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: `Form ${i}` })).id;
    const visitor = visitorAddresses(91);
    for (let i = 0; i < 30; i++) {
      const answer = await postJson(app, formId, { email: `visitor${i}@example.com`, message: `A question about order ${i}, please.` }, visitor());
      assert.ok(answer.status < 300, `submission ${i}: ${answer.status}`);
    }
    session = (await app.ctx.sessions.start(account.userId)).secret;
  });
  after(() => app?.close());

  async function workspacePage(): Promise<void> {
    const answer = await app.fetch('GET', `${app.publicUrl}/w/${account.workspaceId}`, { headers: { cookie: `fg_session=${session}`, accept: 'text/html' } });
    assert.equal(answer.status, 200);
  }

  it('the workspace page with 20 forms: session, switcher, forms, counts, stats, unread (not one query per form)', async () => {
    await workspacePage();
    const queries = await queriesDuring(workspacePage);
    assert.ok(queries.length <= 6, `${queries.length} queries:\n${queries.join('\n')}`);
    assert.ok(!queries.some((q) => /^\s*(begin|commit)/i.test(q)), 'no transaction');
  });

  it('a page of the API list, first and by cursor: the token and the page (membership checked in it)', async () => {
    const list = (cursor?: string) =>
      app.api('GET', `/forms/${formId}/submissions?limit=25${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`, { token: account.token });
    const first = await list();
    assert.equal(first.status, 200);
    assert.ok(first.body.nextCursor, 'a second page');
    for (const cursor of [undefined, first.body.nextCursor as string]) {
      const queries = await queriesDuring(async () => assert.equal((await list(cursor)).status, 200));
      assert.ok(queries.length <= 2, `${queries.length} queries:\n${queries.join('\n')}`);
    }
  });
});
