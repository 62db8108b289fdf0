import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { assertProblem } from '../helpers/problems.js';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';

const EMAIL = 'victim@example.com';
const PASSWORD = 'the owner password';
const LINK = /\/reset-password\/([A-Za-z0-9_-]{43})/;
const BOX = /<input id="([a-z-]+)" type="checkbox" name="revokeTokens" value="on" checked/g;

/** The text of the element with that id (a field's message). */
function textOf(html: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1]?.replace(/&#39;|&rsquo;/g, '’');
}

describe(`dashboard: API tokens end with a stolen session (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let userId: string;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
    ({
      user: { id: userId },
    } = await app.ctx.users.createUser(EMAIL, PASSWORD));
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  // every case starts with no active token
  beforeEach(() => app.ctx.tokens.revokeAll(userId));

  async function browser(): Promise<DashboardClient> {
    const client = new DashboardClient(app);
    await client.enter('/login', EMAIL, PASSWORD);
    return client;
  }

  const worksOnApi = async (secret: string) => (await app.api('GET', '/me', { token: secret })).status === 200;

  /** A token made on the tokens page as a session holder would; its secret. */
  async function mintToken(client: DashboardClient, name: string): Promise<string> {
    await client.get('/account/tokens');
    const answer = await client.post('/account/tokens', { name, scopes: 'forms:read', currentPassword: PASSWORD });
    assert.equal(answer.status, 200, answer.html.slice(0, 400));
    const secret = /id="new-token"[^>]*>([^<]+)</.exec(answer.html)?.[1];
    assert.ok(secret && (await worksOnApi(secret)));
    return secret;
  }

  it('asks for the password again before a token is made: a wrong one is said beside its field, nothing made', async () => {
    const client = await browser();
    const page = await client.get('/account/tokens');
    assert.match(page.html, /<label for="field-currentPassword">Current password<\/label>/);
    const before = sink.messages.length;
    for (const [what, password] of [
      ['no password', undefined],
      ['a wrong password', 'a guessed password'],
    ] as const) {
      const answer = await client.post('/account/tokens', { name: 'stolen', scopes: 'forms:write', ...(password ? { currentPassword: password } : {}) });
      assert.equal(answer.status, 400, what);
      assert.equal(textOf(answer.html, 'field-currentPassword-error'), 'Is not the account’s password.', what);
      assert.match(answer.html, /id="field-currentPassword"[^>]*aria-invalid="true"/, what);
      assert.match(answer.html, /id="field-name"[^>]*value="stolen"/, `${what}: the name is kept`);
    }
    assert.equal((await app.ctx.tokens.listTokens(userId)).length, 0, 'no token was made');
    assert.equal(sink.messages.length, before, 'no email');
  });

  it('emails the account when a token is made: its name, scopes, when and from which address', async () => {
    const client = await browser();
    const already = sink.messages.length;
    await client.get('/account/tokens');
    const answer = await client.post('/account/tokens', {
      name: 'deploy <bot>',
      scopes: ['forms:read', 'submissions:read'].join(','),
      currentPassword: PASSWORD,
    });
    // one scope value holding a comma is not a scope: the form says so, nothing is made
    assert.equal(answer.status, 400);
    const made = await client.post('/account/tokens', [
      ['name', 'deploy <bot>'],
      ['scopes', 'forms:read'],
      ['scopes', 'submissions:read'],
      ['currentPassword', PASSWORD],
    ]);
    assert.equal(made.status, 200);
    const [mail] = (await sink.waitFor(already + 1)).slice(already);
    assert.deepEqual(mail!.envelopeTo, [EMAIL]);
    assert.equal(mail!.parsed.subject, 'A new API token “deploy <bot>” was created for your Formgate account');
    const text = mail!.parsed.text ?? '';
    assert.match(text, /An API token named “deploy <bot>” was created for the Formgate account victim@example\.com/);
    assert.match(text, /on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, in the dashboard, from the address 127\.0\.0\.1\./);
    assert.match(text, /Scopes: forms:read, submissions:read\. It works until it is revoked\./);
    assert.ok(text.includes(`${app.publicUrl}/account/tokens`), 'links to the tokens page');
    assert.ok(!(mail!.parsed.html || '').includes('<bot>'), 'the name is escaped in HTML');
  });

  it('emails the account for a token made on the command line too', async () => {
    const already = sink.messages.length;
    await app.ctx.tokens.createToken(userId, { name: 'cli', scopes: ['forms:read'] }, { via: 'command line' });
    const [mail] = (await sink.waitFor(already + 1)).slice(already);
    assert.match(mail!.parsed.text ?? '', /on the server’s command line \(formgate tokens create\)/);
  });

  it('a password reset revokes the tokens a stolen session made, with its box ticked by default', async () => {
    const thief = await browser();
    const stolen = await mintToken(thief, 'exfiltrate');
    const secret = await askForResetLink();
    const visitor = new DashboardClient(app);
    const page = await visitor.get(`/reset-password/${secret}`);
    assert.deepEqual(
      [...page.html.matchAll(BOX)].map((m) => m[1]),
      ['reset-revoke-tokens'],
      'one box, ticked',
    );
    assert.match(page.html, /<label for="reset-revoke-tokens">Also revoke my API tokens<\/label>/);
    assert.equal(
      textOf(page.html, 'reset-revoke-tokens-hint'),
      'Your account has 1 active API token; programs using it stop working until you create new ones.',
    );
    // what a browser sends with the box left as it is
    const done = await visitor.post(`/reset-password/${secret}`, { password: 'new owner password', revokeTokens: 'on' });
    assert.equal(done.status, 303);
    assert.match((await visitor.get('/login')).html, /1 API token was revoked\./);
    assertProblem(app, await app.api('GET', '/me', { token: stolen }), 'invalid_token');
    await app.ctx.users.setPassword(userId, PASSWORD);
  });

  it('a reset with the box unticked keeps the tokens', async () => {
    const kept = await mintToken(await browser(), 'kept-through-reset');
    const secret = await askForResetLink();
    const visitor = new DashboardClient(app);
    await visitor.get(`/reset-password/${secret}`);
    assert.equal((await visitor.post(`/reset-password/${secret}`, { password: 'new owner password' })).status, 303);
    assert.ok(await worksOnApi(kept));
    await app.ctx.users.setPassword(userId, PASSWORD);
  });

  it('a password change revokes the tokens with its box ticked, and keeps them without', async () => {
    const owner = await browser();
    const first = await mintToken(owner, 'first');
    const page = await owner.get('/account');
    assert.deepEqual(
      [...page.html.matchAll(BOX)].map((m) => m[1]),
      ['password-revoke-tokens', 'logout-revoke-tokens'],
      'a ticked box in both forms',
    );
    const unticked = await owner.post('/account/password', { currentPassword: PASSWORD, newPassword: 'second password' });
    assert.equal(unticked.status, 303);
    assert.ok(await worksOnApi(first), 'kept without the box');
    const ticked = await owner.post('/account/password', { currentPassword: 'second password', newPassword: PASSWORD, revokeTokens: 'on' });
    assert.equal(ticked.status, 303);
    assert.match((await owner.get('/account')).html, /Password changed; 1 API token revoked/);
    assert.equal(await worksOnApi(first), false, 'revoked with the box');
    // a refused change revokes nothing
    const second = await mintToken(owner, 'second');
    const refused = await owner.post('/account/password', { currentPassword: 'wrong password', newPassword: 'third password', revokeTokens: 'on' });
    assert.equal(refused.status, 400);
    assert.ok(await worksOnApi(second));
  });

  it('"log out everywhere" revokes the tokens with its box ticked, and keeps them without', async () => {
    const owner = await browser();
    const token = await mintToken(owner, 'ci');
    assert.equal((await owner.post('/account/logout-everywhere', {})).status, 303);
    assert.ok(await worksOnApi(token), 'kept without the box');
    const again = await browser();
    await again.get('/account');
    const done = await again.post('/account/logout-everywhere', { revokeTokens: 'on' });
    assert.equal(done.status, 303);
    assert.match((await again.get('/login')).html, /You are logged out everywhere; 1 API token revoked\./);
    assert.equal(await worksOnApi(token), false);
    assert.equal(await app.ctx.sessions.countLive(userId), 0);
  });

  /** Asks for a reset link and returns its secret, read from the email. */
  async function askForResetLink(): Promise<string> {
    const visitor = new DashboardClient(app);
    await visitor.get('/forgot-password');
    const already = sink.messages.length;
    assert.equal((await visitor.post('/forgot-password', { email: EMAIL })).status, 303);
    const mail = await eventually(async () => sink.messages.slice(already).find((m) => m.parsed.subject === 'Reset your Formgate password'), 'the reset email');
    return LINK.exec(mail.parsed.text ?? '')![1]!;
  }
});
