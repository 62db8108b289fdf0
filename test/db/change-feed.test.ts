import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { CATCH_UP_WAIT_MS, CHANGE_FEED_APPLICATION, ChangeFeed } from '../../src/db/change-feed.js';
import { Database } from '../../src/db/database.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT, TEST_PG_URL } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startLaggingProxy } from '../helpers/lagging-proxy.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { postJson } from '../helpers/submit.js';

/** PostgreSQL's rows kept in memory, told of changes through LISTEN/NOTIFY (db/change-feed.ts, migration 0023). */
describe('change feed (postgres)', { skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only: SQLite counts changes in a table' }, () => {
  let app: TestApp;
  let account: Account;
  const log = collectingLogger();
  before(async () => {
    app = await startApp({}, { logger: log.logger });
    account = await createAccount(app);
    await eventually(async () => app.ctx.database.changeFeedState() === 'listening', 'the change feed to listen');
  });
  after(() => app.close());

  const listForms = (token: string) => app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token });
  const healthz = async () => (await app.fetch('GET', new URL('/healthz', app.baseUrl).href)).body.checks.database;
  let visitor = 0;
  const from = () => ({ localAddress: `127.0.31.${(visitor++ % 250) + 1}` });

  it('refuses a token revoked on this instance at the very next request, round after round', async () => {
    for (let round = 0; round < 20; round++) {
      const { token, secret } = await app.ctx.tokens.createToken(account.userId, { name: `round-${round}`, scopes: ['forms:read'] });
      assert.equal((await listForms(secret)).status, 200);
      assert.equal((await listForms(secret)).status, 200, 'kept: read from memory');
      await app.ctx.tokens.revokeTokenById(account.userId, token.id);
      const refused = await listForms(secret);
      assert.equal(refused.status, 401, `round ${round}: ${JSON.stringify(refused.body)}`);
    }
  });

  it('applies a form setting changed through the API to the very next submission, round after round', async () => {
    const form = await createForm(app, account);
    for (let round = 0; round < 20; round++) {
      const paused = round % 2 === 0;
      const changed = await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { paused } });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const answer = await postJson(app, form.id, { message: `round ${round}` }, from());
      assert.equal(answer.status, paused ? 403 : 200, `round ${round}, paused ${paused}: ${JSON.stringify(answer.body)}`);
    }
  });

  it('refuses a token revoked by another process at the very next request, round after round', async () => {
    const other = Database.open(app.ctx.config.database);
    try {
      for (let round = 0; round < 20; round++) {
        const { token, secret } = await app.ctx.tokens.createToken(account.userId, { name: `elsewhere-${round}`, scopes: ['forms:read'] });
        assert.equal((await listForms(secret)).status, 200);
        assert.equal((await listForms(secret)).status, 200, 'kept: read from memory');
        await other.db.updateTable('tokens').set({ revokedAt: Date.now() }).where('id', '=', token.id).execute();
        const refused = await listForms(secret);
        assert.equal(refused.status, 401, `round ${round}: ${JSON.stringify(refused.body)}`);
      }
    } finally {
      await other.destroy();
    }
  });

  /** A feed of its own on the app's database, whose listener hears PostgreSQL through `proxy`. */
  const laggingFeed = async (lagMs: number) => {
    const proxy = await startLaggingProxy((app.ctx.config.database as { url: string }).url, lagMs);
    const feed = new ChangeFeed(() => new pg.Client({ connectionString: proxy.url }));
    await feed.count('tokens');
    await eventually(async () => feed.currentState() === 'listening', 'the lagging feed to listen');
    return { proxy, feed, close: () => Promise.all([feed.close(), proxy.close()]) };
  };
  // a statement-level trigger fires for an UPDATE that changes no row too: a notification, nothing else
  const announceTokenChange = (db: Database) => db.db.updateTable('tokens').set({ revokedAt: null }).where('id', '=', 'no such token').execute();

  it('counts every change committed before a reading, however late its notification arrives', async () => {
    const { feed, close } = await laggingFeed(50);
    const other = Database.open(app.ctx.config.database);
    try {
      for (let round = 0; round < 5; round++) {
        const before = await feed.count('tokens');
        assert.equal(await feed.count('tokens'), before, 'nothing changed: the count stays');
        await announceTokenChange(other);
        assert.equal(await feed.count('tokens'), before + 1, `round ${round}: the change is counted at the next reading`);
      }
    } finally {
      await Promise.all([close(), other.destroy()]);
    }
  });

  it('keeps nothing while its listener does not answer, without waiting on it again, and keeps again once it does', async () => {
    const { proxy, feed, close } = await laggingFeed(0);
    try {
      const before = await feed.count('tokens');
      proxy.stall();
      // what the feed decided, seen from inside rather than on a stopwatch: whether its wait (CATCH_UP_WAIT_MS) ran out, and how often it asked
      const inside = feed as unknown as { stalled: boolean; askListener(): Promise<boolean> };
      let asked = 0;
      const ask = inside.askListener.bind(feed);
      inside.askListener = () => {
        if (!inside.stalled) asked++;
        return ask();
      };
      const stalled = await feed.count('tokens');
      assert.equal(inside.stalled, true, `it waited for the answer until its ${CATCH_UP_WAIT_MS} ms ran out`);
      assert.equal(asked, 1);
      assert.notEqual(stalled, before, 'no answer: a new count');
      const next = await feed.count('tokens');
      assert.notEqual(next, stalled, 'still no answer: a new count at every reading');
      assert.equal(asked, 1, 'a stalled listener is not asked (and waited on) again');
      proxy.resume();
      const readTwice = async () => [await feed.count('tokens'), await feed.count('tokens')];
      await eventually(async () => new Set(await readTwice()).size === 1, 'the count to stay put again');
    } finally {
      await close();
    }
  });

  it('keeps nothing while its listener is lost, says so, and listens again', async () => {
    const { token, secret } = await app.ctx.tokens.createToken(account.userId, { name: 'outage', scopes: ['forms:read'] });
    assert.equal((await listForms(secret)).status, 200);
    assert.deepEqual(await healthz(), { status: 'ok', reads: 'ok', writes: 'ok', changeFeed: 'listening' });
    const admin = new pg.Client({ connectionString: (app.ctx.config.database as { url: string }).url });
    await admin.connect();
    const other = Database.open(app.ctx.config.database);
    try {
      // a change no trigger announces: only a feed that keeps nothing while it is down sees it
      await admin.query('ALTER TABLE tokens DISABLE TRIGGER tokens_auth_update');
      const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
        CHANGE_FEED_APPLICATION,
      ]);
      assert.equal(killed.rowCount, 1, 'one listener');
      await eventually(async () => (await healthz()).changeFeed === 'reconnecting', 'healthz to say the feed reconnects');
      await other.db.updateTable('tokens').set({ revokedAt: Date.now() }).where('id', '=', token.id).execute();
      assert.equal((await listForms(secret)).status, 401, 'the revoke is seen: no row is kept while the feed is down');
      await admin.query('ALTER TABLE tokens ENABLE TRIGGER tokens_auth_update');
      await eventually(async () => (await healthz()).changeFeed === 'listening', 'healthz to say the feed listens again');
      assert.ok(
        log.lines.some((line) => line.level === 40 && /kept rows off/.test(line.msg)),
        'a warning when the feed is lost',
      );
      assert.ok(
        log.lines.some((line) => line.level === 30 && /listening for changes to forms and tokens again/.test(line.msg)),
        'a line when it is back',
      );
      const metrics = await app.fetch('GET', new URL('/metrics', app.baseUrl).href);
      if (metrics.status === 200) assert.match(metrics.body, /^formgate_change_feed_up 1$/m);
    } finally {
      await admin.query('ALTER TABLE tokens ENABLE TRIGGER tokens_auth_update');
      await admin.end();
      await other.destroy();
    }
  });

  it('never keeps a row while it cannot connect, and closes during its retries', async () => {
    // a port where nothing listens: every connection is refused
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const url = new URL(TEST_PG_URL);
    url.port = String(port);
    const unreachable = Database.open({ dialect: 'postgres', url: url.toString() });
    const first = await unreachable.changeCount('tokens');
    const second = await unreachable.changeCount('tokens');
    assert.notEqual(first, second, 'a new count at every reading');
    await eventually(async () => unreachable.changeFeedState() === 'reconnecting', 'the feed to give up its first connection');
    await unreachable.destroy();
  });
});
