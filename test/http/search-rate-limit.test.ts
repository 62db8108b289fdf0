import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { type Account, createAccount, createForm } from '../helpers/fixtures.js';
import { person } from '../helpers/members.js';
import { assertProblem, assertRefusedBy } from '../helpers/problems.js';

// Issue 24: searches have their own limit per caller (token, session) and per address,
// FORMGATE_RATE_LIMIT_SEARCH, on the API's lists and export and on the dashboard's inbox and export.
describe('search rate limit', () => {
  let app: TestApp;
  let owner: Account;
  let form: { id: string };

  before(async () => {
    // the API's general budget on too: its headers on every answer must not speak for the search limit's 429
    app = await startApp({ rateLimitSearch: '3/1m', rateLimitApi: '400/1m' });
    owner = await createAccount(app);
    form = await createForm(app, owner);
  });
  after(() => app.close());

  it('answers 429 rate_limited with Retry-After past the limit, counting searches only, lists and exports alike', async () => {
    const list = (query: string) => app.api('GET', `/forms/${form.id}/submissions${query}`, { token: owner.token });
    assert.equal((await list('?search=one')).status, 200);
    assert.equal((await list('?search=two')).status, 200);
    assert.equal((await app.api('GET', `/forms/${form.id}/submissions/export?format=json&search=x`, { token: owner.token })).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await list('')).status, 200, 'a list without a search is not counted');

    const refused = await app.api('GET', `/workspaces/${owner.workspaceId}/submissions?search=four`, { token: owner.token });
    assertProblem(app, refused, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers.get('retry-after')}`);
    assertRefusedBy(refused, 3);
    const exported = await app.api('GET', `/forms/${form.id}/submissions/export?format=csv&search=x`, { token: owner.token });
    assertProblem(app, exported, 'rate_limited');
    assertRefusedBy(exported, 3);
    assert.equal((await list('')).status, 200, 'the list itself still answers');
  });

  it('limits the dashboard inbox’s searches per session with a readable page, and per address across callers', async () => {
    const member = await person(app, 'searcher');
    const formId = (await app.ctx.forms.createForm(member.userId, member.workspaceId, { name: 'Inbox' })).id;
    // every test request comes from the same loopback address, whose count the first test spent
    const page = await member.client.get(`/forms/${formId}?search=hello`);
    assert.equal(page.status, 429);
    assert.match(page.html, /Too many searches; try again in \d+ seconds?\./);
    assert.ok(Number(page.headers.get('retry-after')) >= 1);
    assertRefusedBy(page, 3);
    assert.equal((await member.client.get(`/forms/${formId}`)).status, 200, 'the inbox without a search still answers');
    const exported = await member.client.get(`/w/${member.workspaceId}/export?format=csv&search=hello`);
    assert.equal(exported.status, 429);
    // another token of another account, from the same address: the address's limit holds
    const other = await createAccount(app);
    assert.equal((await app.api('GET', `/workspaces/${other.workspaceId}/submissions?search=a`, { token: other.token })).status, 429);
  });
});
