import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/services/secrets.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { until } from '../helpers/eventually.js';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';

const PASSWORD = 'old password here';
const LINK = /\/reset-password\/([A-Za-z0-9_-]{43})/;

/** Asks for a reset link as a logged-out visitor would, and returns the answer. */
async function askForLink(app: TestApp, email: string) {
  const visitor = new DashboardClient(app);
  await visitor.get('/forgot-password');
  return visitor.post('/forgot-password', { email });
}

describe('dashboard: password reset by emailed link', () => {
  let app: TestApp;
  let sink: SmtpSink;
  let userId: string;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
    ({
      user: { id: userId },
    } = await app.ctx.users.createUser('reset@example.com', PASSWORD));
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  /** Asks for a link for reset@example.com and returns its secret, read from the email. */
  async function emailedLink(): Promise<string> {
    const already = sink.messages.length;
    assert.equal((await askForLink(app, 'Reset@Example.com ')).status, 303);
    const [mail] = (await sink.waitFor(already + 1)).slice(already);
    assert.deepEqual(mail!.envelopeTo, ['reset@example.com']);
    assert.equal(mail!.parsed.subject, 'Reset your Formgate password');
    const link = LINK.exec(mail!.parsed.text ?? '');
    assert.ok(link, `the email holds a link: ${mail!.parsed.text}`);
    assert.ok(mail!.parsed.text!.includes(`${app.publicUrl}/reset-password/${link[1]}`), 'the link uses the public URL');
    return link[1]!;
  }

  it('gives the same answer whether or not an account has the address, and emails only the account', async () => {
    const known = await askForLink(app, 'reset@example.com');
    const unknown = await askForLink(app, 'nobody@example.com');
    assert.equal(known.status, 303);
    assert.deepEqual([unknown.status, unknown.location, unknown.html], [known.status, known.location, known.html]);
    assert.equal(known.location, '/forgot-password/sent');
    const sent = await new DashboardClient(app).get('/forgot-password/sent');
    assert.match(sent.html, /If an account has this address, we sent a link to it/);
    const [mail] = await sink.waitFor(1);
    assert.deepEqual(mail!.envelopeTo, ['reset@example.com']);
    const secret = LINK.exec(mail!.parsed.text ?? '')![1]!;
    const rows = await app.ctx.database.db.selectFrom('passwordResets').selectAll().where('userId', '=', userId).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.tokenHash, hashSecret(secret), 'only the SHA-256 of the secret is stored');
    assert.equal(rows[0]!.expiresAt - rows[0]!.createdAt, 60 * 60_000, 'the link works for an hour');
  });

  it('shows a message beside the field for an address that is not one', async () => {
    const visitor = new DashboardClient(app);
    await visitor.get('/forgot-password');
    const answer = await visitor.post('/forgot-password', { email: 'not an address' });
    assert.equal(answer.status, 400);
    assert.match(answer.html, /id="field-email-error">[^<]*is not an e-mail address/);
  });

  it('sets the password through the link once, ends every session, and sends the browser to log in', async () => {
    const elsewhere = new DashboardClient(app);
    await elsewhere.enter('/login', 'reset@example.com', PASSWORD);
    const secret = await emailedLink();
    const headers = (await fetch(`${app.publicUrl}/reset-password/${secret}`)).headers;
    assert.equal(headers.get('cache-control'), 'no-store', 'the page with the secret is never cached');
    assert.equal(headers.get('referrer-policy'), 'same-origin', 'its address never goes to another site');
    const visitor = new DashboardClient(app);
    const page = await visitor.get(`/reset-password/${secret}`);
    assert.equal(page.status, 200);
    assert.match(page.html, /value="reset@example.com"/);
    assert.match(page.html, /<label for="field-password">New password<\/label>/);

    const short = await visitor.post(`/reset-password/${secret}`, { password: 'short' });
    assert.equal(short.status, 400);
    assert.match(short.html, /id="field-password-error">Must be at least 8 characters\.</);
    assert.ok(await app.ctx.users.authenticate('reset@example.com', PASSWORD), 'a refused password changes nothing');

    const done = await visitor.post(`/reset-password/${secret}`, { password: 'brand new password' });
    assert.equal(done.status, 303);
    assert.equal(done.location, '/login');
    assert.match((await visitor.get('/login')).html, /Your password has been changed; log in with it/);
    assert.equal(await app.ctx.users.authenticate('reset@example.com', PASSWORD), null, 'the old password is gone');
    assert.ok(await app.ctx.users.authenticate('reset@example.com', 'brand new password'));
    assert.equal(await app.ctx.sessions.countLive(userId), 0, 'every session ended');
    assert.match((await elsewhere.get('/account')).location ?? '', /^\/login/, 'a browser logged in before is logged out');

    const again = await visitor.get(`/reset-password/${secret}`);
    assert.equal(again.status, 410);
    assert.match(again.html, /This link has expired or was already used/);
    assert.match(again.html, /href="\/forgot-password"/);
    const reuse = await visitor.post(`/reset-password/${secret}`, { password: 'third password here' });
    assert.equal(reuse.status, 410, 'a used link sets nothing');
    assert.ok(await app.ctx.users.authenticate('reset@example.com', 'brand new password'));
    await app.ctx.users.setPassword(userId, PASSWORD);
  });

  it('lets only one of two uses of a link at once change the password', async () => {
    const secret = await emailedLink();
    const [a, b] = [new DashboardClient(app), new DashboardClient(app)];
    await Promise.all([a.get(`/reset-password/${secret}`), b.get(`/reset-password/${secret}`)]);
    const answers = await Promise.all([
      a.post(`/reset-password/${secret}`, { password: 'first racer password' }),
      b.post(`/reset-password/${secret}`, { password: 'second racer password' }),
    ]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [303, 410]);
    const winner = answers[0]!.status === 303 ? 'first racer password' : 'second racer password';
    assert.ok(await app.ctx.users.authenticate('reset@example.com', winner), 'the password is the winner’s');
    await app.ctx.users.setPassword(userId, PASSWORD);
  });

  it('refuses an expired link, an unknown one and a malformed one with the same page', async () => {
    const secret = 'E'.repeat(43);
    const now = Date.now();
    await app.ctx.database.db
      .insertInto('passwordResets')
      .values({ tokenHash: hashSecret(secret), userId, createdAt: now - 61 * 60_000, expiresAt: now - 60_000, usedAt: null })
      .execute();
    const visitor = new DashboardClient(app);
    for (const token of [secret, 'U'.repeat(43), 'not-a-token']) {
      const page = await visitor.get(`/reset-password/${token}`);
      assert.equal(page.status, 410, token);
      assert.match(page.html, /This link has expired or was already used/, token);
    }
    await visitor.get('/forgot-password');
    const post = await visitor.post(`/reset-password/${secret}`, { password: 'expired link password' });
    assert.equal(post.status, 410);
    assert.ok(await app.ctx.users.authenticate('reset@example.com', PASSWORD), 'an expired link changes nothing');
  });

  it('keeps no link in the outbox once its email is sent', async () => {
    const secret = await emailedLink();
    const holding = () =>
      app.ctx.database.db
        .selectFrom('jobs')
        .select(['status', 'payload'])
        .where('kind', '=', 'email')
        .execute()
        .then((jobs) => jobs.filter((j) => JSON.stringify(j.payload).includes('reset@example.com')));
    // NOTE: the link is removed just after the job is recorded as done, in a statement of its own
    const linkIn = (job: { payload: unknown }) => /reset-password\/[A-Za-z0-9_-]{43}/.test(JSON.stringify(job.payload));
    await until('the sent reset emails keep no link', async () => (await holding()).every((j) => j.status === 'done' && !linkIn(j)));
    for (const job of await holding()) assert.doesNotMatch(JSON.stringify(job.payload), /reset-password\/[A-Za-z0-9_-]{43}/, 'no link left in a sent email');
    assert.ok(JSON.stringify((await holding())[0]!.payload).includes('Reset your Formgate password'), 'who it went to and its subject stay');
    assert.equal((await new DashboardClient(app).get(`/reset-password/${secret}`)).status, 200, 'the link itself still works');
  });

  it('cancels the pending links when the password is changed on the account page', async () => {
    const secret = await emailedLink();
    const here = new DashboardClient(app);
    await here.enter('/login', 'reset@example.com', PASSWORD);
    await here.get('/account');
    assert.equal((await here.post('/account/password', { currentPassword: PASSWORD, newPassword: 'changed on the page' })).status, 303);
    const visitor = new DashboardClient(app);
    assert.equal((await visitor.get(`/reset-password/${secret}`)).status, 410, 'the link asked for before the change no longer works');
    await visitor.get('/forgot-password');
    assert.equal((await visitor.post(`/reset-password/${secret}`, { password: 'set by an old link' })).status, 410);
    assert.ok(await app.ctx.users.authenticate('reset@example.com', 'changed on the page'), 'the changed password stands');
    await app.ctx.users.setPassword(userId, PASSWORD);
  });

  it('sends one account at most 5 links an hour, with the same answer past that', async () => {
    const { user } = await app.ctx.users.createUser('flood@example.com', PASSWORD);
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await askForLink(app, 'flood@example.com'));
    assert.deepEqual(new Set(answers.map((a) => `${a.status} ${a.location}`)), new Set(['303 /forgot-password/sent']));
    const rows = await app.ctx.database.db.selectFrom('passwordResets').select('tokenHash').where('userId', '=', user.id).execute();
    assert.equal(rows.length, 5, 'a link (and its email) for the first 5 requests only');
    const jobs = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
    assert.equal(jobs.filter((j) => String(j.payload).includes('flood@example.com')).length, 5);
  });
});
