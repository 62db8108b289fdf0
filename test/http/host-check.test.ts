import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type Answer, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { assertProblem } from '../helpers/problems.js';
import { request } from '../helpers/submit.js';

/**
 * A browser on a DNS-rebinding page: its own name (`rebind.example`) resolves to this server, so
 * it sends that name as `Host` and its page's origin as `Origin`, and keeps cookies for it.
 */
class RebindingBrowser {
  private readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    private readonly app: TestApp,
    readonly host: string,
  ) {}

  get origin(): string {
    return `http://${this.host}`;
  }

  async send(method: string, path: string, fields?: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const body = fields ? new URLSearchParams({ _csrf: this.csrf, ...fields }).toString() : null;
    const answer = await request(method, `${this.app.publicUrl}${path}`, body, {
      host: this.host,
      accept: 'text/html',
      ...(cookie ? { cookie } : {}),
      ...(body ? { origin: this.origin, 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...headers,
    });
    const setCookie = answer.headers.get('set-cookie');
    for (const line of setCookie ? setCookie.split(/,(?=\s*\w+=)/) : []) {
      const [name, ...value] = line.split(';')[0]!.split('=');
      this.cookies.set(name!.trim(), value.join('='));
    }
    const token = typeof answer.body === 'string' ? /name="_csrf" value="([^"]+)"/.exec(answer.body) : null;
    if (token) this.csrf = token[1]!;
    return answer;
  }
}

const port = (app: TestApp) => new URL(app.publicUrl).port;

describe('dashboard and API: the Host check (DNS rebinding)', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  it('refuses a rebinding page that tries to sign up as the first account (the instance admin), changing nothing', async () => {
    const browser = new RebindingBrowser(app, `rebind.example:${port(app)}`);
    const page = await browser.send('GET', '/signup');
    assert.equal(page.status, 421);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.body, /does not answer to the host &quot;rebind\.example:\d+&quot;/);
    assert.equal(page.headers.get('set-cookie'), null, 'no cookie for the rebinding name');
    const signup = await browser.send('POST', '/signup', { email: 'attacker@example.com', password: 'attacker password' });
    assert.equal(signup.status, 421);
    assert.equal(await app.ctx.users.findByEmail('attacker@example.com'), undefined, 'no account was made');
    // the real first visitor still becomes the admin
    const owner = new DashboardClient(app);
    await owner.enter('/signup', 'owner@example.com', 'correct horse battery');
    assert.equal((await app.ctx.users.requireByEmail('owner@example.com')).isAdmin, 1);
  });

  it('refuses a login posted under a rebinding name, and the login page itself', async () => {
    const browser = new RebindingBrowser(app, `rebind.example:${port(app)}`);
    assert.equal((await browser.send('GET', '/login')).status, 421);
    const login = await browser.send('POST', '/login', { email: 'owner@example.com', password: 'correct horse battery' });
    assert.equal(login.status, 421);
    assert.equal(login.headers.get('set-cookie'), null, 'no session');
  });

  it('answers the API with a 421 misdirected_request problem, before authentication', async () => {
    const answer = await request('GET', `${app.baseUrl}/me`, null, { host: 'rebind.example', accept: 'application/json' });
    assertProblem(app, answer, 'misdirected_request', { publicUrl: app.publicUrl });
    const page = await request('GET', `${app.publicUrl}/no-such-page`, null, { host: 'Rebind.Example', accept: 'text/html' });
    assert.equal(page.status, 421, 'an unknown page too: no route runs');
  });

  it('refuses a trailing-dot, a padded or a malformed Host as well', async () => {
    for (const host of ['rebind.example.', 'localhost.rebind.example', '127.0.0.1.rebind.example', 'user@127.0.0.1', '127.0.0.1:80:80']) {
      const answer = await request('GET', `${app.baseUrl}/me`, null, { host, accept: 'application/json' });
      assertProblem(app, answer, 'misdirected_request');
    }
  });

  it("takes the server's own names with any port: its public URL's host, localhost, 127.0.0.1 and [::1]", async () => {
    for (const host of [new URL(app.publicUrl).host, 'localhost', `localhost:${port(app)}`, 'LOCALHOST:1', '127.0.0.1', '[::1]:8080', '10.1.2.3:8080']) {
      const answer = await request('GET', `${app.publicUrl}/login`, null, { host, accept: 'text/html' });
      assert.equal(answer.status, 200, host);
    }
  });

  it('answers /healthz whatever the Host: load balancers call it by their own name for the instance', async () => {
    const answer = await request('GET', `${app.publicUrl}/healthz`, null, { host: 'formgate-1.internal:8080' });
    assert.equal(answer.status, 200);
  });

  it('does not check the submit surface: it takes no cookie, and any page may already post to it', async () => {
    const answer = await request('POST', `${app.submitUrl}/echo`, 'name=Ada', {
      host: 'rebind.example',
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    });
    assert.equal(answer.status, 200);
  });
});
