// A read while PostgreSQL cannot be reached is answered 503 storage_unavailable in words about a
// read; only a write is told that nothing was stored (issue 38, item 23: every read said "could not
// take the write… nothing was stored").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startLaggingProxy, type LaggingProxy } from '../helpers/lagging-proxy.js';

describe('reads while PostgreSQL is away (postgres)', { skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only: its connection can be lost' }, () => {
  let database: TestDatabase;
  let proxy: LaggingProxy;
  let app: TestApp;
  let account: Account;
  let formId: string;
  before(async () => {
    database = await createTestDatabase();
    // the server's every connection goes through a proxy that the test closes: PostgreSQL is away
    proxy = await startLaggingProxy(database.url, 0);
    app = await startApp({}, { database: { ...database, url: proxy.url } });
    account = await createAccount(app);
    formId = (await createForm(app, account, { name: 'Away' })).id;
    await proxy.close();
  });
  after(async () => {
    await app?.close();
    await database?.drop();
  });

  it('answers a GET that the database could not be read, and a POST that nothing was stored', async () => {
    const read = await app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token: account.token });
    assert.equal(read.status, 503, JSON.stringify(read.body));
    assert.equal(read.body.code, 'storage_unavailable');
    assert.equal(read.body.detail, 'The database could not be read right now. Try again in a moment.');

    const write = await app.api('POST', '/forms', { token: account.token, body: { workspaceId: account.workspaceId, name: 'Away' } });
    assert.equal(write.status, 503, JSON.stringify(write.body));
    assert.equal(write.body.code, 'storage_unavailable');
    assert.match(write.body.detail, /could not take the write right now; nothing was stored/);
  });

  it('says the same on the dashboard and the submit surface', async () => {
    // the login page reads the instance's settings: a read
    const page = await fetch(`${app.publicUrl}/login`, { headers: { accept: 'text/html' } });
    const html = await page.text();
    assert.equal(page.status, 503);
    assert.match(html, /The database could not be read right now\. Try again in a moment\./);
    assert.doesNotMatch(html, /nothing was stored/);

    const form = await fetch(`${app.submitUrl}/${formId}`, { headers: { accept: 'application/json' }, redirect: 'manual' });
    const read = (await form.json()) as { code: string; detail: string };
    assert.deepEqual(
      { status: form.status, code: read.code, detail: read.detail },
      {
        status: 503,
        code: 'storage_unavailable',
        detail: 'The database could not be read right now. Try again in a moment.',
      },
    );
    const post = await fetch(`${app.submitUrl}/${formId}`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: '{"a":"b"}',
    });
    const refused = (await post.json()) as { code: string; detail: string };
    assert.deepEqual({ status: post.status, code: refused.code }, { status: 503, code: 'storage_unavailable' });
    assert.match(refused.detail, /nothing was stored/);
  });
});
