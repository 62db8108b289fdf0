import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { listen } from '../../src/cli/serve.js';
import { openContext } from '../../src/context.js';
import { type Answer, startApp, type TestApp, testConfig } from '../helpers/app.js';
import { DashboardClient, type PageAnswer } from '../helpers/dashboard.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { diffDumps, dumpTables } from '../helpers/dump.js';
import { until } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { invitationPath } from '../helpers/members.js';
import { assertProblem } from '../helpers/problems.js';
import { dashboardRoutes, fillPath, type Route } from '../helpers/routes.js';
import { DASHBOARD_ENTRIES, FIXED_PARAMS, NATURAL_KIND } from './isolation-routes.js';
import { type Holdings, holdings, idsOf, PASSWORD } from './two-accounts.js';

// pages that anyone may open, logged in or not
const PUBLIC_PAGES =
  /^\/(login|login\/passkey\/options|login\/oidc|login\/oidc\/callback|login\/oidc\/link|login\/two-factor|signup|signup\/sent|signup\/confirm|forgot-password|forgot-password\/sent|reset-password\/:token|invitations\/:secret|recipients\/:secret|not-spam\/:token)$/;
const SHAPED_SECRET = 'S'.repeat(43);

/**
 * Sessions, CSRF and API tokens: every dashboard change refuses a missing or foreign CSRF token,
 * ended sessions stop working at once on every page of every instance, cookies carry the right
 * flags, emailed links work once, and API tokens are kept hashed and refused at once when revoked
 * or expired, on two instances of one database.
 */
describe(`sessions and tokens: what a credential may still do after it should not (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let one: TestApp;
  let two: TestApp;
  let owner: Holdings;
  let requestsSent = 0;
  let csrfRefusals = 0;
  let endedSessionRefusals = 0;
  let refusedTokens = 0;
  let changesByRefusals = 0;

  before(async () => {
    database = await createTestDatabase();
    one = await startApp({}, { database });
    two = await startApp({}, { database });
    await one.ctx.users.createUser('admin@example.com', 'the admin password');
    owner = await holdings(one, 'owner');
  });
  after(async () => {
    await one?.close();
    await two?.close();
    await database?.drop();
    printFigures('sessions and tokens', {
      requestsSent,
      badInputsTried: csrfRefusals + endedSessionRefusals + refusedTokens,
      more: {
        'CSRF refusals': csrfRefusals,
        'ended-session refusals': endedSessionRefusals,
        'refused tokens': refusedTokens,
        'changes made by refused requests': changesByRefusals,
      },
    });
  });

  /** The path and form fields of a route, filled with the owner's own ids: what a real change would send. */
  function ownTarget(route: Route): { path: string; fields: [string, string][] } {
    const ids = idsOf(owner);
    const value = (param: string) => FIXED_PARAMS[param] ?? (NATURAL_KIND[param] ? ids[NATURAL_KIND[param]]! : SHAPED_SECRET);
    const path = fillPath(route.path, new Proxy({}, { get: (_, param: string) => value(param) }) as Record<string, string>);
    const entry = DASHBOARD_ENTRIES[`${route.method} ${route.path}`];
    const body = entry && 'variants' in entry ? (entry.variants[0]?.body ?? {}) : { email: owner.email, password: PASSWORD };
    const fields = Object.entries(body).map(([k, v]): [string, string] => [k, typeof v === 'string' && v.startsWith(':') ? value(v.slice(1)) : String(v)]);
    return { path, fields };
  }

  async function unchanged<T>(what: string, app: TestApp, act: () => Promise<T>): Promise<T> {
    const before = await dumpTables(app.ctx.database);
    const result = await act();
    const changed = diffDumps(before, await dumpTables(app.ctx.database));
    changesByRefusals += changed.length;
    assert.deepEqual(changed, [], `${what}: nothing changed`);
    return result;
  }

  it('refuses every dashboard change without the CSRF token, with another session’s, or with one from before logout', async () => {
    const posts = dashboardRoutes(one).filter((r) => r.method === 'POST');
    assert.ok(posts.length > 30, `the dashboard's changes were found (${posts.length})`);
    // a token of a session that has ended since, in a browser that has logged in again
    const browser = new DashboardClient(one);
    await browser.enter('/login', owner.email, PASSWORD);
    await browser.get('/account');
    const fromBeforeLogout = browser.csrf;
    await browser.post('/logout', {});
    await browser.enter('/login', owner.email, PASSWORD);
    await browser.get('/account');
    const otherSession = owner.client.csrf;
    assert.notEqual(otherSession, browser.csrf);

    await unchanged('refused changes', one, async () => {
      for (const route of posts) {
        const { path, fields } = ownTarget(route);
        for (const [why, token] of [
          ['no token', ''],
          ['another session’s token', otherSession],
          ['a token from before logout', fromBeforeLogout],
        ] as const) {
          requestsSent++;
          const answer = await browser.post(path, [['_csrf', token], ...fields]);
          assert.equal(answer.status, 403, `POST ${path} with ${why}: ${answer.status} ${answer.location ?? ''}`);
          assert.match(answer.html, /Change refused/, `POST ${path} with ${why}`);
          csrfRefusals++;
        }
      }
    });
    requestsSent++;
    assert.equal((await browser.get('/account')).status, 200, 'the browser is still logged in: the refusals were CSRF’s, not a lost session');
  });

  it('never keeps a session id set before login: a planted id is replaced, and opens nothing', async () => {
    // an attacker who can set a cookie on the victim's browser plants an id of the right shape
    const planted = randomBytes(32).toString('base64url').slice(0, 43);
    const victim = new DashboardClient(one);
    victim.cookies.set('fg_session', planted);
    requestsSent += 3;
    await victim.enter('/login', owner.email, PASSWORD);
    const after = victim.cookies.get('fg_session');
    assert.ok(after && after !== planted, 'a new session id after login');
    assert.equal((await victim.get('/account')).status, 200);
    const attacker = new DashboardClient(two);
    attacker.cookies.set('fg_session', planted);
    requestsSent++;
    const reuse = await attacker.get('/account');
    assert.equal(reuse.status, 303, 'the planted id is nobody’s session');
    endedSessionRefusals++;
  });

  /** Every page behind the login, filled with the owner's ids. */
  function privatePages(app: TestApp): string[] {
    return dashboardRoutes(app)
      .filter((r) => r.method === 'GET' && !PUBLIC_PAGES.test(r.path))
      .map((r) => ownTarget(r).path);
  }

  /** Asserts the cookie opens nothing behind the login, on both instances, and changes nothing. */
  async function refusedEverywhere(why: string, jar: Map<string, string>, csrf: string): Promise<void> {
    for (const app of [one, two]) {
      const client = new DashboardClient(app);
      for (const [k, v] of jar) client.cookies.set(k, v);
      await unchanged(why, app, async () => {
        for (const path of privatePages(app)) {
          requestsSent++;
          const answer = await client.get(path);
          assert.equal(answer.status, 303, `${why}: GET ${path}`);
          assert.match(answer.location ?? '', /^\/login/, `${why}: GET ${path}`);
          endedSessionRefusals++;
        }
        for (const route of dashboardRoutes(app).filter((r) => r.method === 'POST' && !PUBLIC_PAGES.test(r.path))) {
          const { path, fields } = ownTarget(route);
          requestsSent++;
          const answer: PageAnswer = await client.post(path, [['_csrf', csrf], ...fields]);
          assert.ok(answer.status === 403 || (answer.status === 303 && /^\/login/.test(answer.location ?? '')), `${why}: POST ${path}: ${answer.status}`);
          endedSessionRefusals++;
        }
      });
      // the API never takes a dashboard cookie for a credential
      requestsSent++;
      const api = await app.api('GET', '/me', { headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      assertProblem(app, api, 'invalid_token');
    }
  }

  it('refuses a session’s cookie at once after logout, on every page of both instances', async () => {
    const browser = new DashboardClient(one);
    await browser.enter('/login', owner.email, PASSWORD);
    await browser.get('/account');
    const jar = new Map(browser.cookies);
    const csrf = browser.csrf;
    requestsSent += 4;
    assert.equal((await new DashboardClient(two).get('/account')).status, 303);
    const copy = new DashboardClient(two);
    for (const [k, v] of jar) copy.cookies.set(k, v);
    assert.equal((await copy.get('/account')).status, 200, 'the session works on the other instance before');
    assert.equal((await browser.post('/logout', {})).status, 303);
    await refusedEverywhere('after logout', jar, csrf);
  });

  it('refuses every other browser’s cookie at once after “log out everywhere”, on both instances', async () => {
    const [here, there] = [new DashboardClient(one), new DashboardClient(two)];
    await here.enter('/login', owner.email, PASSWORD);
    await there.enter('/login', owner.email, PASSWORD);
    await here.get('/account');
    await there.get('/account');
    const jar = new Map(there.cookies);
    requestsSent += 5;
    assert.equal((await here.post('/account/logout-everywhere', {})).status, 303);
    await refusedEverywhere('after log out everywhere', jar, there.csrf);
    // the owner's test browser was logged out too; log it in again for what follows
    owner.client = new DashboardClient(one);
    await owner.client.enter('/login', owner.email, PASSWORD);
  });

  it('sets cookies HttpOnly, SameSite=Lax and Path=/ on http; Secure and __Host- too when the public URL is https', async () => {
    const https = await flagsOf('https://forms.example.test');
    for (const cookie of [https.session, https.csrf]) {
      assert.match(cookie, /^__Host-fg_/);
      for (const flag of [/; Path=\//, /; HttpOnly/, /; SameSite=Lax/, /; Secure/]) assert.match(cookie, flag);
      assert.doesNotMatch(cookie, /; Domain=/i, 'a __Host- cookie names no domain');
    }
    const http = await flagsOf(null);
    for (const cookie of [http.session, http.csrf]) {
      assert.match(cookie, /^fg_/);
      for (const flag of [/; Path=\//, /; HttpOnly/, /; SameSite=Lax/]) assert.match(cookie, flag);
      assert.doesNotMatch(cookie, /; Secure/, 'never Secure on http, where it would never come back');
    }
  });

  /** Logs in on an instance whose public URL is `publicUrl` (or its own http address) and returns its Set-Cookie lines. */
  async function flagsOf(publicUrl: string | null): Promise<{ session: string; csrf: string }> {
    const db = await createTestDatabase();
    const ctx = await openContext(testConfig(db, publicUrl ? { publicUrl } : {}));
    const surfaces = await listen(ctx, pino({ level: 'silent' }), { publicUrl: publicUrl !== null, submitUrl: false });
    try {
      await ctx.users.createUser('flags@example.com', PASSWORD);
      const address = `http://127.0.0.1:${(surfaces.api.server.address() as AddressInfo).port}`;
      const origin = new URL(publicUrl ?? address).origin;
      const page = await fetch(`${address}/login`);
      const csrf = page.headers.getSetCookie().find((c) => /fg_csrf=/.test(c))!;
      const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const login = await fetch(`${address}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded', cookie: csrf.split(';')[0]! },
        body: new URLSearchParams({ _csrf: token, email: 'flags@example.com', password: PASSWORD }).toString(),
      });
      requestsSent += 2;
      assert.equal(login.status, 303);
      const session = login.headers.getSetCookie().find((c) => /fg_session=/.test(c));
      assert.ok(session, 'a session cookie is set');
      return { session, csrf };
    } finally {
      await surfaces.close();
      await ctx.close();
      await db.drop();
    }
  }

  it('refuses a reset link used twice or after it expired, changing nothing', async () => {
    const visitor = new DashboardClient(one);
    await visitor.get('/forgot-password');
    await visitor.post('/forgot-password', { email: owner.email });
    const secret = await emailedLink(one, owner.email, /\/reset-password\/([A-Za-z0-9_-]{43})/);
    await visitor.get(`/reset-password/${secret}`);
    assert.equal((await visitor.post(`/reset-password/${secret}`, { password: 'set by the link' })).status, 303);
    await visitor.get('/forgot-password');
    await unchanged('a used link', one, async () => {
      assert.equal((await visitor.post(`/reset-password/${secret}`, { password: 'set by the link again' })).status, 410);
    });
    await one.ctx.users.setPassword(owner.userId, PASSWORD);

    await visitor.post('/forgot-password', { email: owner.email });
    const late = await emailedLink(one, owner.email, /\/reset-password\/([A-Za-z0-9_-]{43})/);
    await one.ctx.database.db
      .updateTable('passwordResets')
      .set({ expiresAt: Date.now() - 1 })
      .where('usedAt', 'is', null)
      .execute();
    await visitor.get('/forgot-password');
    await unchanged('an expired link', one, async () => {
      assert.equal((await visitor.get(`/reset-password/${late}`)).status, 410);
      assert.equal((await visitor.post(`/reset-password/${late}`, { password: 'set by a late link' })).status, 410);
    });
    requestsSent += 10;
    assert.ok(await one.ctx.users.authenticate(owner.email, PASSWORD));
  });

  it('refuses an invitation link used again, or by another address, changing nothing', async () => {
    await one.ctx.invitations.invite(owner.userId, owner.workspace, 'joiner@example.com');
    const link = await invitationPath(one, 'joiner@example.com');
    await one.ctx.users.createUser('joiner@example.com', PASSWORD);
    await one.ctx.users.createUser('stranger@example.com', PASSWORD);
    const stranger = new DashboardClient(one);
    await stranger.enter('/login', 'stranger@example.com', PASSWORD);
    await stranger.get(link);
    await unchanged('another address', one, async () => {
      assert.equal((await stranger.post(link, {})).status, 403, 'an invitation for another address');
    });
    const joiner = new DashboardClient(one);
    await joiner.enter('/login', 'joiner@example.com', PASSWORD);
    await joiner.get(link);
    assert.equal((await joiner.post(link, {})).status, 303, 'the invited address joins');
    await joiner.get(link);
    await stranger.get(link);
    await unchanged('a used invitation', one, async () => {
      assert.ok((await joiner.post(link, {})).status >= 400, 'used twice');
      assert.ok((await stranger.post(link, {})).status >= 400, 'used by someone else after');
    });
    requestsSent += 12;
    const members = await one.ctx.database.db
      .selectFrom('workspaceMembers')
      .innerJoin('users', 'users.id', 'workspaceMembers.userId')
      .select('users.email')
      .where('workspaceId', '=', owner.workspace)
      .execute();
    assert.ok(!members.some((m) => m.email === 'stranger@example.com'));
  });

  it('keeps API tokens hashed only, and refuses a near-miss exactly as a random token', async () => {
    const rows = await one.ctx.database.db.selectFrom('tokens').selectAll().execute();
    const row = rows.find((r) => r.id === owner.tokenId)!;
    assert.equal(row.tokenHash, createHash('sha256').update(owner.token).digest('hex'), 'the SHA-256 of the secret is kept');
    const secretPart = owner.token.slice('fg_'.length);
    for (const r of rows) for (const value of Object.values(r)) assert.ok(!String(value).includes(secretPart), 'no column holds the secret');

    // NOTE: the lookup is by the SHA-256 of what is presented (services/tokens.ts): the database
    // compares hashes, so how long a comparison takes says nothing of how much of the secret was right.
    const last = owner.token.at(-1)!;
    const nearMiss = owner.token.slice(0, -1) + (last === 'A' ? 'B' : 'A');
    const random = `fg_${randomBytes(32).toString('base64url')}`;
    const answers: Answer[] = [];
    for (const token of [nearMiss, random]) answers.push(await one.api('GET', '/me', { token }));
    requestsSent += 2;
    refusedTokens += 2;
    for (const answer of answers) assertProblem(one, answer, 'invalid_token');
    assert.deepEqual(answers[0]!.body, answers[1]!.body, 'a token one character off is refused exactly as a random one');
  });

  it('refuses a revoked or expired token at the next request, on both instances (no cache serves it)', async () => {
    const call = async (app: TestApp, token: string) => {
      requestsSent++;
      return app.api('GET', '/me', { token });
    };
    // revoked on instance two's dashboard, while instance one has it in use
    const { token: row, secret } = await one.ctx.tokens.createToken(owner.userId, { name: 'revoked soon', scopes: ['forms:read'] });
    for (const app of [one, two]) assert.equal((await call(app, secret)).status, 200);
    const dashboard = new DashboardClient(two);
    await dashboard.enter('/login', owner.email, PASSWORD);
    await dashboard.get(`/account/tokens/${row.id}/revoke`);
    assert.equal((await dashboard.post(`/account/tokens/${row.id}/revoke`, {})).status, 303);
    for (const app of [one, two]) {
      assertProblem(app, await call(app, secret), 'invalid_token');
      refusedTokens++;
    }
    // revoked by another process (as `formgate tokens revoke` does): a write straight to the table
    const other = await one.ctx.tokens.createToken(owner.userId, { name: 'revoked elsewhere', scopes: ['forms:read'] });
    for (const app of [one, two]) assert.equal((await call(app, other.secret)).status, 200);
    await one.ctx.database.db.updateTable('tokens').set({ revokedAt: Date.now() }).where('id', '=', other.token.id).execute();
    for (const app of [one, two]) {
      assertProblem(app, await call(app, other.secret), 'invalid_token');
      refusedTokens++;
    }
    // expired by the clock alone, with nothing written: the kept row's expiry is checked at each request
    const expiresAt = new Date(Date.now() + 1500);
    const short = await one.ctx.tokens.createToken(owner.userId, { name: 'short lived', scopes: ['forms:read'], expiresAt });
    for (const app of [one, two]) assert.equal((await call(app, short.secret)).status, 200);
    await until('the token’s expiry has passed', () => Date.now() > expiresAt.getTime(), 5_000);
    for (const app of [one, two]) {
      assertProblem(app, await call(app, short.secret), 'invalid_token');
      refusedTokens++;
    }
  });
});

/** The secret of the newest link of this shape in an email to `email`, read from the outbox (no worker runs here). */
async function emailedLink(app: TestApp, email: string, shape: RegExp): Promise<string> {
  const jobs = await app.ctx.database.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', 'email')
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .execute();
  for (const job of jobs) {
    const text = JSON.stringify(job.payload);
    if (!text.includes(email)) continue;
    const link = shape.exec(text);
    if (link) return link[1]!;
  }
  assert.fail(`no link emailed to ${email}`);
}
