import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIGNUP_EMAILS_PER_ADDRESS_PER_HOUR } from '../../src/dashboard/signup-limits.js';
import { SignupLinks } from '../../src/services/signup-links.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { DashboardClient, type PageAnswer } from '../helpers/dashboard.js';
import { until } from '../helpers/eventually.js';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';

const PASSWORD = 'a long enough password';
const LINK = /\/signup\/confirm\?token=([A-Za-z0-9_.-]+)/;

/** Asks for a sign-up link as a logged-out visitor would: the answer, and the page it leads to. */
async function askToSignUp(app: TestApp, email: string): Promise<{ answer: PageAnswer; sent: PageAnswer }> {
  const visitor = new DashboardClient(app);
  await visitor.get('/signup');
  const answer = await visitor.post('/signup', { email });
  const sent = await visitor.get(answer.location ?? '/signup/sent');
  return { answer, sent };
}

/** Email jobs (queued or sent) whose payload mentions `text`. */
async function emailJobs(app: TestApp, text: string) {
  const jobs = await app.ctx.database.db.selectFrom('jobs').select(['status', 'payload']).where('kind', '=', 'email').execute();
  return jobs.filter((job) => JSON.stringify(job.payload).includes(text));
}

/** The one message the sink received for `to` (waits for it). */
async function mailTo(sink: SmtpSink, to: string): Promise<ReceivedMail> {
  await until(`an email to ${to}`, () => sink.messages.some((m) => m.envelopeTo.includes(to)));
  const mails = sink.messages.filter((m) => m.envelopeTo.includes(to));
  assert.equal(mails.length, 1, `one email to ${to}`);
  return mails[0]!;
}

function tokenIn(mail: ReceivedMail): string {
  const link = LINK.exec(mail.parsed.text ?? '');
  assert.ok(link, `the email holds a sign-up link: ${mail.parsed.text}`);
  return link[1]!;
}

describe(`dashboard: open sign-up by emailed link (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ signup: 'open', smtpUrl: sink.url }, { delivery: true });
    await app.ctx.users.createUser('admin@example.com', PASSWORD);
    await app.ctx.users.createUser('taken@example.com', PASSWORD);
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  it('answers a new address and one with an account the same way, and emails each its own message', async () => {
    const takenBefore = await app.ctx.users.requireByEmail('taken@example.com');
    const fresh = await askToSignUp(app, 'New@Example.com ');
    const taken = await askToSignUp(app, 'taken@example.com');
    for (const { answer } of [fresh, taken]) {
      assert.equal(answer.status, 303);
      assert.equal(answer.location, '/signup/sent');
    }
    assert.deepEqual(
      taken.answer.headers.getSetCookie().map((c) => c.split('=')[0]),
      fresh.answer.headers.getSetCookie().map((c) => c.split('=')[0]),
      'the same cookies are set',
    );
    assert.equal(fresh.sent.status, 200);
    assert.match(fresh.sent.html, /Check your email/);
    assert.match(fresh.sent.html, /We sent a link to new@example\.com\./);
    const masked = (page: PageAnswer, address: string) => page.html.replaceAll(address, '<address>');
    assert.equal(masked(taken.sent, 'taken@example.com'), masked(fresh.sent, 'new@example.com'), 'the pages differ only by the address');

    assert.equal(await app.ctx.users.findByEmail('new@example.com'), undefined, 'no account before the link is followed');
    assert.deepEqual(await app.ctx.users.requireByEmail('taken@example.com'), takenBefore, 'the existing account is unchanged');
    assert.equal((await emailJobs(app, 'new@example.com')).length, 1, 'one email for the new address');
    assert.equal((await emailJobs(app, 'taken@example.com')).length, 1, 'one email for the taken address: the same work');

    const invite = await mailTo(sink, 'new@example.com');
    assert.equal(invite.parsed.subject, 'Finish signing up to Formgate');
    assert.ok(invite.parsed.text!.includes(`${app.publicUrl}/signup/confirm?token=`), 'the link uses the public URL');
    const note = await mailTo(sink, 'taken@example.com');
    assert.equal(note.parsed.subject, 'Someone tried to sign up to Formgate with your address');
    assert.ok(note.parsed.text!.includes(`${app.publicUrl}/login`), 'a link to log in');
    assert.ok(note.parsed.text!.includes(`${app.publicUrl}/forgot-password`), 'a link to reset the password');
    assert.doesNotMatch(note.parsed.text!, LINK, 'no sign-up link for an address that has an account');
  });

  it('refuses a malformed or missing address beside the field, and sends nothing', async () => {
    for (const fields of [{ email: 'not an address' }, { email: '' }, {}] as Record<string, string>[]) {
      const visitor = new DashboardClient(app);
      await visitor.get('/signup');
      const before = sink.messages.length;
      const answer = await visitor.post('/signup', fields);
      assert.equal(answer.status, 400, JSON.stringify(fields));
      assert.match(answer.html, /id="field-email-error">[^<]*(is not an e-mail address|Enter an e-mail address)/);
      assert.equal((await emailJobs(app, 'not an address')).length, 0);
      assert.equal(sink.messages.length, before);
    }
  });

  it('creates the account once through the link, logs it in, and answers "used" afterwards', async () => {
    await askToSignUp(app, 'once@example.com');
    const token = tokenIn(await mailTo(sink, 'once@example.com'));
    const visitor = new DashboardClient(app);
    const page = await visitor.get(`/signup/confirm?token=${token}`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('referrer-policy'), 'same-origin', 'the link’s address never goes to another site');
    assert.match(page.html, /<input[^>]*id="field-email"[^>]*readonly/);
    assert.match(page.html, /value="once@example.com"/);

    const short = await visitor.post('/signup/confirm', { token, password: 'short' });
    assert.equal(short.status, 400);
    assert.match(short.html, /id="field-password-error">Must be at least 8 characters\.</);
    assert.equal(await app.ctx.users.findByEmail('once@example.com'), undefined, 'a refused password makes nothing');

    // the address posted is ignored: the link's is the one proved
    const done = await visitor.post('/signup/confirm', { token, email: 'other@example.com', password: PASSWORD });
    assert.equal(done.status, 303);
    assert.equal(done.location, '/');
    const user = await app.ctx.users.requireByEmail('once@example.com');
    assert.equal(user.isAdmin, 0);
    assert.equal(await app.ctx.users.findByEmail('other@example.com'), undefined);
    const workspaces = await app.ctx.workspaces.listForUser(user.id, { limit: 10, after: null });
    assert.deepEqual(
      workspaces.rows.map((w) => [w.name, w.plan]),
      // named after the address's domain, as the page offers it (issue 41, item 17)
      [['Example', 'FREE']],
    );
    const home = await visitor.get('/');
    assert.equal(home.status, 303, 'logged in: / leads to the workspace');
    assert.equal(home.location, `/w/${workspaces.rows[0]!.id}`);

    const stranger = new DashboardClient(app);
    const again = await stranger.get(`/signup/confirm?token=${token}`);
    assert.equal(again.status, 410);
    assert.match(again.html, /This link was used/);
    assert.match(again.html, /href="\/login"/);
    await stranger.get('/login');
    const reuse = await stranger.post('/signup/confirm', { token, password: 'another password here' });
    assert.equal(reuse.status, 410);
    assert.ok(await app.ctx.users.authenticate('once@example.com', PASSWORD), 'a second use changes nothing');
  });

  it('lets only one of two uses of a link at once make the account', async () => {
    await askToSignUp(app, 'racer@example.com');
    const token = tokenIn(await mailTo(sink, 'racer@example.com'));
    const [a, b] = [new DashboardClient(app), new DashboardClient(app)];
    await Promise.all([a.get(`/signup/confirm?token=${token}`), b.get(`/signup/confirm?token=${token}`)]);
    const answers = await Promise.all([
      a.post('/signup/confirm', { token, password: 'first racer password' }),
      b.post('/signup/confirm', { token, password: 'second racer password' }),
    ]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [303, 410]);
    const winner = answers[0]!.status === 303 ? 'first racer password' : 'second racer password';
    assert.ok(await app.ctx.users.authenticate('racer@example.com', winner));
  });

  it('refuses an expired, a tampered and a forged link with the same page, and makes nothing', async () => {
    const dayAgo = new SignupLinks(app.ctx.secret, () => Date.now() - 24 * 60 * 60_000 - 1000).issue('late@example.com');
    const good = new SignupLinks(app.ctx.secret).issue('late@example.com');
    const [payload, mac] = good.split('.') as [string, string];
    const otherAddress = new SignupLinks(app.ctx.secret).issue('someone-else@example.com').split('.')[0]!;
    const tampered = [
      `${payload}.${mac.slice(0, 20)}${mac[20] === 'A' ? 'B' : 'A'}${mac.slice(21)}`,
      `${otherAddress}.${mac}`,
      new SignupLinks('another installation’s secret, 32+ chars').issue('late@example.com'),
      'not-a-token',
      '',
    ];
    const visitor = new DashboardClient(app);
    for (const token of [dayAgo, ...tampered]) {
      const page = await visitor.get(`/signup/confirm?token=${encodeURIComponent(token)}`);
      assert.equal(page.status, 410, token);
      assert.match(page.html, /This sign-up link has expired or is not valid/, token);
      assert.match(page.html, /href="\/signup"/);
    }
    await visitor.get('/signup');
    for (const token of [dayAgo, ...tampered]) {
      const post = await visitor.post('/signup/confirm', { token, password: PASSWORD });
      assert.equal(post.status, 410, token);
    }
    assert.equal(await app.ctx.users.findByEmail('late@example.com'), undefined);
    assert.equal(await app.ctx.users.findByEmail('someone-else@example.com'), undefined);
    assert.equal((await visitor.get(`/signup/confirm?token=${good}`)).status, 200, 'the untouched link works');
  });

  it('refuses a confirmation without the page’s CSRF token', async () => {
    const token = new SignupLinks(app.ctx.secret).issue('csrf@example.com');
    const visitor = new DashboardClient(app);
    await visitor.get(`/signup/confirm?token=${token}`);
    const answer = await visitor.post('/signup/confirm', { _csrf: 'forged', token, password: PASSWORD });
    assert.equal(answer.status, 403);
    assert.equal(await app.ctx.users.findByEmail('csrf@example.com'), undefined);
  });

  it('keeps no link in the outbox once the email is sent', async () => {
    await askToSignUp(app, 'scrubbed@example.com');
    const token = tokenIn(await mailTo(sink, 'scrubbed@example.com'));
    // NOTE: the link is removed just after the job is recorded as done, in a statement of its own
    await until('the sent sign-up email keeps no link', async () =>
      (await emailJobs(app, 'scrubbed@example.com')).every((j) => j.status === 'done' && !JSON.stringify(j.payload).includes('signup/confirm')),
    );
    const [job] = await emailJobs(app, 'scrubbed@example.com');
    assert.ok(JSON.stringify(job!.payload).includes('Finish signing up to Formgate'), 'who it went to and its subject stay');
    assert.equal((await new DashboardClient(app).get(`/signup/confirm?token=${token}`)).status, 200, 'the link itself still works');
  });

  it(`emails one address at most ${SIGNUP_EMAILS_PER_ADDRESS_PER_HOUR} times an hour, with the same answer past that`, async () => {
    const answers = [];
    for (let i = 0; i < SIGNUP_EMAILS_PER_ADDRESS_PER_HOUR + 2; i++) answers.push(await askToSignUp(app, i % 2 ? 'Flood@example.com' : 'flood@example.com'));
    assert.deepEqual(new Set(answers.map(({ answer }) => `${answer.status} ${answer.location}`)), new Set(['303 /signup/sent']));
    assert.deepEqual(new Set(answers.map(({ sent }) => sent.html)), new Set([answers[0]!.sent.html]), 'the same page every time');
    assert.equal((await emailJobs(app, 'flood@example.com')).length, SIGNUP_EMAILS_PER_ADDRESS_PER_HOUR);
    // an address with an account is limited the same way
    for (let i = 0; i < SIGNUP_EMAILS_PER_ADDRESS_PER_HOUR + 1; i++) await askToSignUp(app, 'admin@example.com');
    assert.equal((await emailJobs(app, 'admin@example.com')).length, SIGNUP_EMAILS_PER_ADDRESS_PER_HOUR);
  });

  it('stops the links when sign-up is no longer open', async () => {
    const token = new SignupLinks(app.ctx.secret).issue('closed@example.com');
    app.ctx.config.signup = 'invite';
    try {
      const visitor = new DashboardClient(app);
      assert.equal((await visitor.get(`/signup/confirm?token=${token}`)).status, 403);
      await visitor.get('/login');
      assert.equal((await visitor.post('/signup/confirm', { token, password: PASSWORD })).status, 403);
      assert.equal(await app.ctx.users.findByEmail('closed@example.com'), undefined);
    } finally {
      app.ctx.config.signup = 'open';
    }
  });
});

describe(`dashboard: open sign-up counts each client's requests (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp({ signup: 'open', rateLimitLoginAddress: '3/15m' });
    await app.ctx.users.createUser('admin@example.com', PASSWORD);
  });
  after(async () => app?.close());

  it('sends no more emails past the client’s limit, to any address, and answers the same', async () => {
    const answers = [];
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'admin@example.com']) answers.push(await askToSignUp(app, email));
    assert.deepEqual(new Set(answers.map(({ answer }) => `${answer.status} ${answer.location}`)), new Set(['303 /signup/sent']));
    const masked = answers.map(({ sent }) => sent.html.replace(/We sent a link to [^<]+\./, ''));
    assert.equal(new Set(masked).size, 1, 'the same page past the limit');
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) assert.equal((await emailJobs(app, email)).length, 1, email);
    for (const email of ['d@example.com', 'admin@example.com']) assert.equal((await emailJobs(app, email)).length, 0, `${email}: over the limit`);
  });
});
