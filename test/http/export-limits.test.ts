// Issue 38, item 3: exports and erasures (previews too) read a whole form or workspace, so an account
// may run at most EXPORTS_AT_ONCE of them at once and FORMGATE_RATE_LIMIT_EXPORTS an hour, on the
// API (429 rate_limited with Retry-After) and in the dashboard (a page saying when to try again),
// the hourly count shared by every instance through Redis when it is configured.
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { insertMany } from '../helpers/export.js';
import { type Account, createAccount, createForm } from '../helpers/fixtures.js';
import { person } from '../helpers/members.js';
import { assertProblem, assertRefusedBy } from '../helpers/problems.js';
import { connectTestRedis, TEST_REDIS_URL } from '../helpers/redis.js';
import { EXPORTS_AT_ONCE } from '../../src/web/export-limits.js';

// an export nobody reads stays open: its file (about 20 MB) is far larger than the sockets' buffers
const ROWS = 20_000;
const FILLER = 'x'.repeat(1000);

/** Starts an export and reads only its head: the server is held by backpressure until `close`. */
function openExport(url: string, token: string): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.pause();
      resolve({ status: response.statusCode ?? 0, close: () => request.destroy() });
    });
    request.on('error', () => undefined);
    request.on('timeout', () => reject(new Error('no answer')));
  });
}

describe(`exports and erasures per account (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let big: { id: string; workspaceId: string };

  before(async () => {
    app = await startApp({ rateLimitExports: '6/1h' });
    owner = await createAccount(app);
    big = await createForm(app, owner, { name: 'Big' });
    await insertMany(app, big, ROWS, (i) => ({ message: `${FILLER} ${i}` }), Date.now() - ROWS, false);
  });
  after(() => app.close());

  it(`runs at most ${EXPORTS_AT_ONCE} at once per account, erasures counted with exports, and gives the place back when a file is out`, async () => {
    const url = `${app.baseUrl}/forms/${big.id}/submissions/export?format=csv`;
    const held = [await openExport(url, owner.token), await openExport(url, owner.token)];
    assert.deepEqual(
      held.map((h) => h.status),
      [200, 200],
    );
    const third = await app.api('GET', `/forms/${big.id}/submissions/export?format=json`, { token: owner.token });
    assert.equal(third.status, 429, 'a third export at once is refused');
    assertProblem(app, third, 'rate_limited');
    assert.equal(third.body.detail, `At most ${EXPORTS_AT_ONCE} exports and erasures of an account run at once; try again in 10 seconds.`);
    assert.equal(third.headers.get('retry-after'), '10');
    assertRefusedBy(third, EXPORTS_AT_ONCE);
    const preview = await app.api('POST', `/workspaces/${owner.workspaceId}/erasure/preview`, { token: owner.token, body: { email: 'a@example.com' } });
    assertProblem(app, preview, 'rate_limited');

    const other = await createAccount(app);
    const theirs = await createForm(app, other);
    assert.equal(
      (await app.api('GET', `/forms/${theirs.id}/submissions/export?format=csv`, { token: other.token })).status,
      200,
      'another account is not held back',
    );

    for (const h of held) h.close();
    // the places come back when the server sees the connections close
    await until('a place is free again', async () => {
      const answer = await app.api('POST', `/workspaces/${owner.workspaceId}/erasure/preview`, { token: owner.token, body: { email: 'a@example.com' } });
      return answer.status === 200;
    });
  });

  it('refuses past FORMGATE_RATE_LIMIT_EXPORTS an hour with 429 and Retry-After, on the API and in the dashboard', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    const exportOf = () => app.api('GET', `/forms/${form.id}/submissions/export?format=csv`, { token: account.token });
    const previewOf = () => app.api('POST', `/workspaces/${account.workspaceId}/erasure/preview`, { token: account.token, body: { email: 'a@example.com' } });
    const eraseOf = () => app.api('POST', `/workspaces/${account.workspaceId}/erasure`, { token: account.token, body: { email: 'a@example.com' } });
    for (const call of [exportOf, previewOf, eraseOf, exportOf, previewOf, eraseOf]) assert.equal((await call()).status, 200);
    for (const call of [exportOf, previewOf, eraseOf]) {
      const refused = await call();
      assertProblem(app, refused, 'rate_limited');
      assert.match(refused.body.detail, /^Too many exports and erasures; try again in \d+ seconds?\.$/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter > 60 && retryAfter <= 3600, `Retry-After ${refused.headers.get('retry-after')}`);
      assertRefusedBy(refused, 6);
    }
    assert.equal((await app.api('GET', `/forms/${form.id}/submissions`, { token: account.token })).status, 200, 'the list still answers');

    const member = await person(app, 'exporter');
    const formId = (await app.ctx.forms.createForm(member.userId, member.workspaceId, { name: 'Inbox' })).id;
    for (let i = 0; i < 6; i++) assert.equal((await member.client.get(`/forms/${formId}/export?format=csv`)).status, 200);
    const page = await member.client.get(`/w/${member.workspaceId}/export?format=json`);
    assert.equal(page.status, 429);
    assert.match(page.html, /Too many exports and erasures; try again in \d+ seconds?\./);
    assert.ok(Number(page.headers.get('retry-after')) > 60);
    assertRefusedBy(page, 6);
    const erasure = await member.client.post(`/w/${member.workspaceId}/erase/preview`, { email: 'a@example.com' });
    assert.equal(erasure.status, 429);
    assert.match(erasure.html, /Too many exports and erasures; try again in \d+ seconds?\./);
  });

  it('counts only the exports and erasures that ran: a refused one (another account’s form, a bad address) gives its count back', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    const stranger = await createAccount(app);
    const theirs = await createForm(app, stranger);
    // many more refusals than the hour allows (6), on the API and in the dashboard
    for (let i = 0; i < 4; i++) {
      const probe = await app.api('GET', `/forms/${theirs.id}/submissions/export?format=csv`, { token: account.token });
      assertProblem(app, probe, 'not_found');
      const foreign = await app.api('POST', `/workspaces/${stranger.workspaceId}/erasure/preview`, { token: account.token, body: { email: 'a@example.com' } });
      assertProblem(app, foreign, 'not_found');
      const invalid = await app.api('POST', `/workspaces/${account.workspaceId}/erasure`, { token: account.token, body: { email: 'not an address' } });
      assert.equal(invalid.status, 400, JSON.stringify(invalid.body));
    }
    // the whole hour is still there
    for (let i = 0; i < 6; i++) assert.equal((await app.api('GET', `/forms/${form.id}/submissions/export?format=csv`, { token: account.token })).status, 200);
    assertProblem(app, await app.api('GET', `/forms/${form.id}/submissions/export?format=csv`, { token: account.token }), 'rate_limited');
  });

  it('shares the hourly count between instances through Redis', async (t) => {
    const redis = await connectTestRedis(t);
    if (!redis) return;
    const prefix = `fg-exports-${process.pid}-${randomInt(1_000_000)}:`;
    const database = await createTestDatabase();
    const env = { rateLimitExports: '2/1h', redisUrl: TEST_REDIS_URL, redisPrefix: prefix };
    const a = await startApp(env, { database });
    const b = await startApp(env, { database });
    try {
      const account = await createAccount(a);
      const form = await createForm(a, account);
      const exportOn = (instance: TestApp) => instance.api('GET', `/forms/${form.id}/submissions/export?format=csv`, { token: account.token });
      assert.equal((await exportOn(a)).status, 200);
      assert.equal((await exportOn(b)).status, 200);
      assertProblem(a, await exportOn(a), 'rate_limited');
      assertProblem(b, await exportOn(b), 'rate_limited');
      assert.equal(await redis.get(`${prefix}rl-exports-account:user:${account.userId}`), '4', 'counted in Redis, refusals too');
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await database.drop();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
