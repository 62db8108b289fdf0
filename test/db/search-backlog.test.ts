import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { scopeToken, scopeTokenSql } from '../../src/db/search.js';
import { newId } from '../../src/ids.js';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import { searchTextOf } from '../../src/services/search-text.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { WAIT_DEADLINE_MS } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';

// SQLite's search backlog (migration 0009, jobs/search-indexer.ts): rows are stored first and moved
// into the FTS5 index afterwards, and a search finds them either way. PostgreSQL has no backlog.
describe('SQLite search backlog', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite only: PostgreSQL indexes in the insert' }, () => {
  let app: TestApp;
  let owner: Account;
  let form: { id: string; workspaceId: string };
  let indexer: SearchIndexer;
  const raw = () => app.ctx.database.db.withoutPlugins();

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    form = await createForm(app, owner);
  });
  after(() => app.close());
  beforeEach(async () => {
    indexer = new SearchIndexer(app.ctx.database, { chunkRows: 3 });
    await indexer.indexAll();
  });

  async function store(data: Record<string, unknown>): Promise<{ id: string; seq: number }> {
    const id = newId();
    await app.ctx.database.db
      .insertInto('submissions')
      .values({
        id,
        formId: form.id,
        workspaceId: form.workspaceId,
        data: JSON.stringify(data),
        status: 'accepted',
        createdAt: Date.now(),
        searchText: searchTextOf(data),
      })
      .execute();
    const { seq } = await app.ctx.database.db.selectFrom('submissions').select('seq').where('id', '=', id).executeTakeFirstOrThrow();
    return { id, seq };
  }

  const search = async (term: string) =>
    (await app.ctx.submissions.listSubmissions(owner.userId, { workspaceId: owner.workspaceId }, { limit: 100, after: null }, { search: term })).rows
      .map((s) => s.id)
      .sort();

  /** Rowids the FTS5 index itself holds for `term`, without the backlog. */
  const indexed = async (term: string) =>
    (await sql<{ rowid: number }>`SELECT rowid FROM submissions_search WHERE submissions_search MATCH ${`search_text : "${term}"`}`.execute(raw())).rows.map(
      (r) => r.rowid,
    );

  const backlog = async () => (await sql<{ seq: number }>`SELECT seq FROM search_backlog ORDER BY seq`.execute(raw())).rows.map((r) => r.seq);

  /** FTS5's own check that the index is consistent (contentless since migration 0017: with itself). */
  const assertIndexIntact = () => sql`INSERT INTO submissions_search (submissions_search) VALUES ('integrity-check')`.execute(raw());

  it('finds a stored submission before it is indexed and after, moving the backlog oldest first in chunks', async () => {
    const rows = [];
    for (const colour of ['teal', 'tealish', 'ochre', 'teal', 'umber']) rows.push(await store({ colour: `${colour} walls` }));
    assert.deepEqual(
      await backlog(),
      rows.map((r) => r.seq),
      'each insert noted in the backlog',
    );
    assert.equal(await indexer.backlog(), 5);
    assert.deepEqual(await indexed('teal'), [], 'not in the index yet');
    const teal = [rows[0]!.id, rows[1]!.id, rows[3]!.id].sort();
    assert.deepEqual(await search('teal'), teal, 'found from the backlog');

    assert.equal(await indexer.indexChunk(), 3);
    assert.deepEqual(await backlog(), [rows[3]!.seq, rows[4]!.seq], 'the oldest three moved');
    assert.deepEqual(await indexed('teal'), [rows[0]!.seq, rows[1]!.seq]);
    assert.deepEqual(await search('teal'), teal, 'found from both, each once');
    assert.deepEqual(await search('teal walls'), [rows[0]!.id, rows[3]!.id].sort(), 'a term of several words, from both');

    assert.equal(await indexer.indexAll(), 2);
    assert.deepEqual(await backlog(), []);
    assert.deepEqual(await search('teal'), teal, 'found from the index alone');
    assert.deepEqual(await search('ochre walls'), [rows[2]!.id]);
    await assertIndexIntact();
  });

  it('keeps the index intact when indexed and unindexed rows are deleted, and when a deleted seq comes back', async () => {
    const early = await store({ note: 'saffron early' });
    await indexer.indexAll();
    const late = await store({ note: 'saffron late' });
    await app.ctx.database.db.deleteFrom('submissions').where('id', 'in', [early.id, late.id]).execute();
    assert.deepEqual(await backlog(), [], 'the unindexed row left the backlog');
    assert.deepEqual(await search('saffron'), []);
    await assertIndexIntact();

    // seq is a plain rowid: the newest row's, deleted after it was indexed, is given out again
    const newest = await store({ note: 'cobalt first' });
    await indexer.indexAll();
    await app.ctx.database.db.deleteFrom('submissions').where('id', '=', newest.id).execute();
    const again = await store({ note: 'cobalt second' });
    assert.equal(again.seq, newest.seq, 'the same seq');
    assert.deepEqual(await backlog(), [again.seq], 'and it waits to be indexed');
    assert.deepEqual(await search('cobalt'), [again.id]);
    await indexer.indexAll();
    assert.deepEqual(await search('cobalt first'), []);
    assert.deepEqual(await search('cobalt second'), [again.id]);
    await assertIndexIntact();
  });

  it('keeps the index intact when a deleted form takes its rows with it, indexed or not', async () => {
    const doomed = await createForm(app, owner, { name: 'Doomed' });
    const store2 = (data: Record<string, unknown>) =>
      app.ctx.database.db
        .insertInto('submissions')
        .values({
          id: newId(),
          formId: doomed.id,
          workspaceId: doomed.workspaceId,
          data: JSON.stringify(data),
          status: 'accepted',
          createdAt: Date.now(),
          searchText: searchTextOf(data),
        })
        .execute();
    await store2({ note: 'indigo indexed' });
    await indexer.indexAll();
    await store2({ note: 'indigo waiting' });
    assert.equal((await search('indigo')).length, 2);
    await app.ctx.forms.deleteForm(owner.userId, doomed.id);
    assert.deepEqual(await search('indigo'), []);
    assert.deepEqual(await backlog(), [], 'the cascade took the waiting row out of the backlog');
    await assertIndexIntact();
  });

  it('indexes in the background, holding back while the foreground is busy until the backlog reaches its limit', async () => {
    let busy = true;
    const background = new SearchIndexer(app.ctx.database, { chunkRows: 2, busyBacklogLimit: 4, pollIntervalMs: 5, foreground: { busy: () => busy } });
    background.start();
    try {
      for (const n of [1, 2, 3]) await store({ n: `mauve ${n}` });
      await sleep(60);
      assert.equal(await indexer.backlog(), 3, 'below the limit nothing moves while busy');
      await store({ n: 'mauve 4' });
      await waitFor(async () => (await indexer.backlog()) < 4);
      assert.equal(await indexer.backlog(), 2, 'at the limit one chunk moved, then it held back again');
      await sleep(60);
      assert.equal(await indexer.backlog(), 2);
      busy = false;
      await waitFor(async () => (await indexer.backlog()) === 0);
      assert.equal((await search('mauve')).length, 4);
      await assertIndexIntact();
    } finally {
      await background.stop();
    }
    await store({ n: 'mauve 5' });
    await sleep(60);
    assert.equal(await indexer.backlog(), 1, 'stopped, it moves nothing more');
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = WAIT_DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(5);
  }
}

describe('SQLite search index scope tokens', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite only' }, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  it('computes the same token in JavaScript and in SQL, one trigram long, for any id', async () => {
    const ids = [newId(), newId(), 'w1', '', 'form-ünï', '😀😀😀😀😀😀😀', 'a"b\'c', 'zzzzzzzzzzzzzzzzzzzz'];
    for (const id of ids) {
      const { rows } = await sql<{ token: string }>`SELECT ${scopeTokenSql('workspace_id')} AS token FROM (SELECT ${id} AS workspace_id)`.execute(
        app.ctx.database.db.withoutPlugins(),
      );
      assert.equal(rows[0]!.token, scopeToken(id), `id ${JSON.stringify(id)}`);
      assert.equal([...scopeToken(id)].length, 3);
      assert.ok(
        [...scopeToken(id)].every((c) => c.codePointAt(0)! >= 0xe000 && c.codePointAt(0)! < 0xf900),
        'private use characters',
      );
    }
    assert.notEqual(scopeToken(newId()), scopeToken(newId()), 'ids made apart have their own tokens');
  });
});
