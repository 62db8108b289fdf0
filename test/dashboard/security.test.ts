import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';

describe('dashboard: sessions, CSRF and headers', () => {
  let app: TestApp;
  let owner: DashboardClient;

  before(async () => {
    app = await startApp();
    owner = new DashboardClient(app);
    await owner.enter('/signup', 'owner@example.com', 'correct horse battery');
  });
  after(() => app?.close());

  it('makes the first account the instance admin, with a session cookie that scripts cannot read', async () => {
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    assert.equal(user.isAdmin, 1);
    const fresh = new DashboardClient(app);
    await fresh.get('/login');
    const response = await fetch(`${app.publicUrl}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: app.publicUrl,
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...fresh.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      body: new URLSearchParams({ _csrf: fresh.csrf, email: 'owner@example.com', password: 'correct horse battery' }).toString(),
    });
    assert.equal(response.status, 303);
    const session = response.headers.getSetCookie().find((c) => c.startsWith('fg_session='));
    assert.ok(session, 'a session cookie is set');
    assert.match(session, /; HttpOnly/);
    assert.match(session, /; SameSite=Lax/);
    assert.doesNotMatch(session, /; Secure/, 'not Secure on an http public URL, where it would never come back');
  });

  it('sends the security headers on every page: a CSP without inline script, no framing, nosniff, a strict referrer policy', async () => {
    for (const path of ['/login', '/signup', '/w/nope', '/no-such-page']) {
      const response = await fetch(`${app.publicUrl}${path}`, { headers: { accept: 'text/html' } });
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src '(self|none)'/, path);
      assert.doesNotMatch(csp, /unsafe-inline/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(response.headers.get('referrer-policy'), 'same-origin', path);
      assert.match(response.headers.get('content-type') ?? '', /text\/html/, path);
    }
  });

  it('serves the stylesheet, scripts and icon by a content-hashed address, cached for a year; nothing else of the folder or outside it', async () => {
    const page = await new DashboardClient(app).get('/login');
    const href = /href="(\/assets\/app\.css\?v=[0-9a-f]{10})"/.exec(page.html)?.[1];
    assert.ok(href, 'the page links the stylesheet by a hashed address');
    const css = await fetch(`${app.publicUrl}${href}`);
    assert.equal(css.status, 200);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(css.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(await css.text(), /prefers-color-scheme: dark/);
    const again = await fetch(`${app.publicUrl}${href}`, { headers: { 'if-none-match': css.headers.get('etag')! } });
    assert.equal(again.status, 304);
    for (const [file, type] of [
      ['copy.js', 'text/javascript; charset=utf-8'],
      ['icon.svg', 'image/svg+xml'],
    ]) {
      const answer = await fetch(`${app.publicUrl}/assets/${file}`);
      assert.equal(answer.status, 200, file);
      assert.equal(answer.headers.get('content-type'), type, file);
    }
    for (const path of ['/assets/nope.css', '/assets/..%2Fplugin.ts', '/assets/%2E%2E%2F%2E%2E%2Fpackage.json', '/assets/app.css%00.js', '/assets/']) {
      const answer = await fetch(`${app.publicUrl}${path}`);
      assert.ok([400, 404].includes(answer.status), `${path}: ${answer.status}`);
      assert.doesNotMatch(await answer.text(), /import|"name"/, path);
    }
  });

  it('answers an unknown page with a page, and the API with problems as before', async () => {
    const page = await owner.get('/no-such-page');
    assert.equal(page.status, 404);
    assert.match(page.html, /Page not found/);
    const api = await app.api('GET', '/no-such-thing');
    assert.equal(api.status, 404);
    assert.equal(api.body.code, 'not_found');
    assert.equal(api.headers.get('content-security-policy'), null, 'the API is untouched by the dashboard');
  });

  it('refuses a change without the CSRF token, or from another site, and changes nothing', async () => {
    const before = await app.ctx.workspaces.listForUser((await app.ctx.users.requireByEmail('owner@example.com')).id, { limit: 10, after: null });
    const cases: [string, Record<string, string>, Record<string, string>][] = [
      ['no token', { _csrf: '' }, {}],
      ['a forged token', { _csrf: 'forged' }, {}],
      ['another site’s origin', {}, { origin: 'https://evil.example' }],
      ['a cross-site fetch', {}, { 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [what, fields, headers] of cases) {
      const answer = await owner.post('/logout', fields, headers);
      assert.equal(answer.status, 403, what);
      assert.match(answer.html, /Change refused/, what);
      assert.equal((await owner.get('/')).status, 303, `${what}: still logged in`);
      assert.match((await owner.get('/')).location ?? '', /^\/w\//, `${what}: still logged in`);
    }
    const afterwards = await app.ctx.workspaces.listForUser((await app.ctx.users.requireByEmail('owner@example.com')).id, { limit: 10, after: null });
    assert.deepEqual(afterwards, before);
  });

  it('replaces a session cookie planted before login (no fixation) and ends it at logout', async () => {
    const planted = new DashboardClient(app);
    planted.cookies.set('fg_session', 'A'.repeat(43));
    await planted.enter('/login', 'owner@example.com', 'correct horse battery');
    const session = planted.cookies.get('fg_session');
    assert.ok(session && session !== 'A'.repeat(43), 'a new session secret');
    const copied = new DashboardClient(app);
    copied.cookies.set('fg_session', session);
    assert.equal((await copied.get('/')).status, 303);
    await planted.get((await planted.get('/')).location!);
    const loggedOut = await planted.post('/logout', {});
    assert.equal(loggedOut.status, 303);
    assert.equal(planted.cookies.has('fg_session'), false, 'the cookie is cleared');
    const reuse = await copied.get('/w/anything');
    assert.equal(reuse.status, 303);
    assert.match(reuse.location ?? '', /^\/login\?next=/, 'the ended session no longer works, even from a copy of its cookie');
  });

  it('sends a logged-out visitor to the login page and back to where they were going', async () => {
    const visitor = new DashboardClient(app);
    const answer = await visitor.get('/w/abc?x=1');
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/login?next=%2Fw%2Fabc%3Fx%3D1');
    await visitor.get(answer.location);
    const login = await visitor.post('/login', { email: 'owner@example.com', password: 'correct horse battery', next: '/w/abc?x=1' });
    assert.equal(login.location, '/w/abc?x=1');
    for (const next of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)']) {
      const elsewhere = new DashboardClient(app);
      await elsewhere.get('/login');
      const answer = await elsewhere.post('/login', { email: 'owner@example.com', password: 'correct horse battery', next });
      assert.equal(answer.location, '/', `never off the site: ${next}`);
    }
  });

  it('gives an unknown address and a wrong password the same answer', async () => {
    const visitor = new DashboardClient(app);
    await visitor.get('/login');
    const unknown = await visitor.post('/login', { email: 'nobody@example.com', password: 'whatever123' });
    const wrong = await visitor.post('/login', { email: 'owner@example.com', password: 'whatever123' });
    assert.equal(unknown.status, 400);
    assert.equal(wrong.status, 400);
    const message = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
    assert.equal(message(unknown.html), 'The email address or the password is not right.');
    assert.equal(message(wrong.html), message(unknown.html));
    assert.equal(visitor.cookies.has('fg_session'), false);
  });

  it('shows another member’s workspace to nobody else', async () => {
    const other = new DashboardClient(app);
    const { workspace } = await app.ctx.users.createUser('other@example.com', 'another password');
    await other.enter('/login', 'other@example.com', 'another password');
    assert.equal((await other.get(`/w/${workspace.id}`)).status, 200);
    const ownerWorkspaces = await app.ctx.workspaces.listForUser((await app.ctx.users.requireByEmail('owner@example.com')).id, { limit: 10, after: null });
    const theirs = await other.get(`/w/${ownerWorkspaces.rows[0]!.id}`);
    assert.equal(theirs.status, 404);
    assert.doesNotMatch(theirs.html, new RegExp(ownerWorkspaces.rows[0]!.name));
  });
});

describe('dashboard: who may sign up', () => {
  for (const mode of ['invite', 'closed'] as const) {
    it(`FORMGATE_SIGNUP=${mode}: the first account always may; the next one may not`, async () => {
      const app = await startApp({ signup: mode });
      try {
        await new DashboardClient(app).enter('/signup', 'first@example.com', 'first password');
        const next = new DashboardClient(app);
        assert.equal((await next.get('/signup')).status, 403);
        await next.get('/login');
        const answer = await next.post('/signup', { email: 'second@example.com', password: 'second password' });
        assert.equal(answer.status, 403);
        assert.equal(await app.ctx.users.findByEmail('second@example.com'), undefined);
      } finally {
        await app.close();
      }
    });
  }

  it('FORMGATE_SIGNUP=open: the first account signs up at once; the next one through an emailed link', async () => {
    const app = await startApp({ signup: 'open' });
    try {
      await new DashboardClient(app).enter('/signup', 'first@example.com', 'first password');
      const next = new DashboardClient(app);
      const page = await next.get('/signup');
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.html, /type="password"/, 'only an address is asked for first');
      const answer = await next.post('/signup', { email: 'second@example.com', password: 'second password' });
      assert.equal(answer.status, 303);
      assert.equal(answer.location, '/signup/sent');
      assert.equal(await app.ctx.users.findByEmail('second@example.com'), undefined, 'no account until the link is followed');
      // no worker runs here: the queued email still holds its link
      const [job] = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
      const token = /\/signup\/confirm\?token=([A-Za-z0-9_.-]+)/.exec(JSON.stringify(job!.payload))![1]!;
      await next.get(`/signup/confirm?token=${token}`);
      assert.equal((await next.post('/signup/confirm', { token, password: 'second password' })).status, 303);
      const second = await app.ctx.users.requireByEmail('second@example.com');
      assert.equal(second.isAdmin, 0, 'only the first account is the admin');
    } finally {
      await app.close();
    }
  });
});
