import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { UserRow } from '../../src/db/schema/user.js';
import type { OidcSettingsInput } from '../../src/services/oidc-settings.js';
import { hashSecret } from '../../src/services/secrets.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { SignInBrowser, TEST_CLIENT_ID, TEST_CLIENT_SECRET, TestProvider } from '../helpers/oidc-provider.js';

// Single sign-on against a real OpenID Provider (oidc-provider) on loopback, driven over real HTTP
// (issue 43, item 3). The environment sets the provider; each test sets the rest as the admin page does.
describe('single sign-on with OpenID Connect', () => {
  let provider: TestProvider;
  let app: TestApp;
  let admin: UserRow;
  const log = collectingLogger();
  let people = 0;

  before(async () => {
    provider = await TestProvider.start();
    app = await startApp(
      {
        oidcIssuer: provider.issuer,
        oidcClientId: TEST_CLIENT_ID,
        oidcClientSecret: TEST_CLIENT_SECRET,
        oidcName: 'Keycloak',
        metrics: 'on',
        rateLimitLoginAccount: '3/15m',
      },
      { logger: log.logger },
    );
    provider.allow(`${app.publicUrl}/login/oidc/callback`);
    admin = (await app.ctx.users.createUser('admin@example.com', 'password-of-the-admin')).user;
    // team mode: the admin makes the workspaces the rules name
    await app.ctx.instance.setUsage('team');
  });
  after(async () => {
    await app?.close();
    await provider?.stop();
  });
  beforeEach(() => configure({}));

  /** Sets what the environment does not, as the admin page would. */
  async function configure(settings: Partial<OidcSettingsInput>): Promise<void> {
    await app.ctx.oidcSettings.save(admin, { issuer: '', clientId: '', clientSecret: '', name: '', signup: false, only: false, rules: '', ...settings });
  }

  /** A new person at the provider, with a verified address of their own unless told otherwise. */
  function person(claims: { email?: string; email_verified?: boolean; groups?: string[] } = {}) {
    people += 1;
    provider.signingIn = { sub: `person-${people}`, email: `person${people}@example.net`, email_verified: true, ...claims };
    return provider.signingIn;
  }

  const browser = () => new SignInBrowser(new DashboardClient(app));
  const linkOf = (sub: string) => app.ctx.database.db.selectFrom('oidcLinks').selectAll().where('subject', '=', sub).executeTakeFirst();
  const user = (email: string) => app.ctx.users.findByEmail(email);
  const counted = async (result: string) => {
    const text = await app.ctx.metrics!.registry.metrics();
    return Number(new RegExp(`^formgate_oidc_sign_ins_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };

  it('offers the provider on the login page, beside the password form', async () => {
    const page = await new DashboardClient(app).get('/login?next=/account');
    assert.equal(page.status, 200);
    assert.match(page.html, /<a[^>]*href="\/login\/oidc\?next=%2Faccount"[^>]*>Sign in with Keycloak<\/a>/);
    assert.match(page.html, /name="password"/);
  });

  it('makes an account at a first sign-in when allowed, with a workspace of its own, and later follows the sub, not the email', async () => {
    await configure({ signup: true });
    const someone = person();
    const before = await counted('created');
    const answer = await browser().signIn('/login/oidc?next=/account');
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/account');
    const made = (await user(someone.email!))!;
    assert.equal(made.passwordHash, null, 'no password: the provider signs it in');
    assert.equal((await app.ctx.workspaces.listForUser(made.id, { limit: 10, after: null })).rows.length, 1, 'as open sign-up gives');
    assert.equal((await linkOf(someone.sub))?.userId, made.id);
    assert.equal(await counted('created'), before + 1);
    assert.ok(log.lines.some((l) => l.msg === 'oidc sign-in' && l.result === 'created' && l.userId === made.id));
    assert.ok(!log.lines.some((l) => JSON.stringify(l).includes('code=')), 'no authorization code in the logs');

    // the address changed at the provider: the same account, by its sub
    provider.signingIn = { ...someone, email: 'renamed@example.net' };
    const again = browser();
    assert.equal((await again.signIn()).location, '/');
    assert.equal((await again.page.get('/account')).status, 200);
    assert.match((await again.page.get('/account')).html, new RegExp(someone.email!.replace('.', '\\.')));
    assert.equal(await user('renamed@example.net'), undefined);
  });

  it('makes no account when the operator does not allow it', async () => {
    const someone = person();
    const answer = await browser().signIn();
    assert.equal(answer.status, 403);
    assert.match(answer.html, /No account here has the address person\d+@example\.net/);
    assert.equal(await user(someone.email!), undefined);
    assert.ok(log.lines.some((l) => l.msg === 'oidc sign-in refused' && l.result === 'no_account'));
  });

  it('lets an invited address in without the operator making accounts, to accept its invitation', async () => {
    const team = (await app.ctx.workspaces.createWorkspace(admin.id, 'Invited team')).id;
    const { link } = await app.ctx.invitations.invite(admin.id, team, 'invited@example.net');
    const invitation = new URL(link).pathname;
    provider.signingIn = { sub: 'invited', email: 'invited@example.net', email_verified: true };
    const answer = await browser().signIn(`/login/oidc?next=${encodeURIComponent(invitation)}`);
    assert.equal(answer.location, invitation);
    const made = (await user('invited@example.net'))!;
    assert.equal(
      (await app.ctx.workspaces.listForUser(made.id, { limit: 10, after: null })).rows.length,
      0,
      'no workspace of its own: it joins by the invitation',
    );
  });

  it('links an existing account once its password is given; a wrong one is refused and counted by the login limits', async () => {
    const { user: ann } = await app.ctx.users.createUser('ann@example.org', 'password-of-ann');
    provider.signingIn = { sub: 'ann-at-provider', email: 'Ann@Example.org', email_verified: true };
    const first = browser();
    const asked = await first.signIn('/login/oidc?next=/account');
    assert.equal(asked.location, '/login/oidc/link');
    const page = await first.page.get('/login/oidc/link');
    assert.match(page.html, /Link your account/);
    assert.match(page.html, /ann@example\.org/);
    const wrong = await first.page.post('/login/oidc/link', { password: 'not-it' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.html, /This is not the password of your account here/);
    assert.equal(await linkOf('ann-at-provider'), undefined, 'nothing linked yet');
    const linked = await first.page.post('/login/oidc/link', { password: 'password-of-ann' });
    assert.equal(linked.status, 303);
    assert.equal(linked.location, '/account');
    assert.equal((await linkOf('ann-at-provider'))?.userId, ann.id);
    assert.equal((await first.page.get('/account')).status, 200, 'signed in');

    // later: no password asked, whatever the address says now
    provider.signingIn = { sub: 'ann-at-provider', email: 'ann.new@example.org', email_verified: false };
    assert.equal((await browser().signIn()).location, '/');

    // wrong passwords count as failed logins: past the limit (3 in tests), even the right one waits
    await app.ctx.users.createUser('bob@example.org', 'password-of-bob');
    provider.signingIn = { sub: 'bob-at-provider', email: 'bob@example.org', email_verified: true };
    const guesser = browser();
    assert.equal((await guesser.signIn()).location, '/login/oidc/link');
    await guesser.page.get('/login/oidc/link');
    for (let i = 0; i < 3; i++) assert.equal((await guesser.page.post('/login/oidc/link', { password: `guess-${i}` })).status, 400);
    const limited = await guesser.page.post('/login/oidc/link', { password: 'password-of-bob' });
    assert.equal(limited.status, 429);
    assert.match(limited.html, /Too many attempts/);
    assert.equal(await linkOf('bob-at-provider'), undefined);
  });

  it('links an account without a password (formgate users create) at once, by its verified email', async () => {
    const { user: made } = await app.ctx.users.createUser('nopass@example.org');
    provider.signingIn = { sub: 'nopass', email: 'nopass@example.org', email_verified: true };
    assert.equal((await browser().signIn()).location, '/');
    assert.equal((await linkOf('nopass'))?.userId, made.id);
  });

  it('matches no account by an email the provider does not say is verified', async () => {
    await configure({ signup: true });
    await app.ctx.users.createUser('carol@example.org', 'password-of-carol');
    provider.signingIn = { sub: 'mallory', email: 'carol@example.org', email_verified: false };
    const answer = await browser().signIn();
    assert.equal(answer.status, 403);
    assert.match(answer.html, /does not say that carol@example\.org is verified/);
    assert.equal(await linkOf('mallory'), undefined);
    // nor makes one for it
    const stranger = person({ email_verified: false });
    assert.equal((await browser().signIn()).status, 403);
    assert.equal(await user(stranger.email!), undefined);
  });

  it('refuses a callback whose state was changed, and one replayed', async () => {
    await configure({ signup: true });
    person();
    const forger = browser();
    const callback = await forger.callbackFor();
    const forged = await forger.page.get(callback.replace(/state=[^&]+/, 'state=forged'));
    assert.equal(forged.status, 400);
    assert.match(forged.html, /could not be completed/);
    assert.equal((await forger.page.get(callback)).status, 400, 'the flow was used up by the first answer');

    const honest = browser();
    const good = await honest.callbackFor();
    const flowCookie = [...honest.page.cookies].find(([name]) => name.includes('oidc_flow'))!;
    assert.equal((await honest.follow(await honest.page.get(good))).status, 303);
    assert.equal((await honest.page.get(good)).status, 400, 'replayed: no flow under way');
    honest.page.cookies.set(flowCookie[0], flowCookie[1]);
    const replayed = await honest.page.get(good);
    assert.equal(replayed.status, 400, 'replayed with its cookie: the provider refuses the used code');
    assert.ok(log.lines.some((l) => l.result === 'invalid_callback' && /invalid_grant/.test(l.why)));
  });

  it('ignores a next that leads off the site', async () => {
    await configure({ signup: true });
    person();
    assert.equal((await browser().signIn(`/login/oidc?next=${encodeURIComponent('//evil.example/x')}`)).location, '/');
    person();
    assert.equal((await browser().signIn(`/login/oidc?next=${encodeURIComponent('https://evil.example/')}`)).location, '/');
    person();
    assert.equal((await browser().signIn(`/login/oidc?next=${encodeURIComponent('/\\evil.example')}`)).location, '/');
  });

  it('asks the second factor of an account that has one', async () => {
    await configure({ signup: true });
    const someone = person();
    await browser().signIn();
    const made = (await user(someone.email!))!;
    await app.ctx.database.db.updateTable('users').set({ secondFactorAt: Date.now() }).where('id', '=', made.id).execute();
    const second = browser();
    const answer = await second.signIn();
    assert.equal(answer.location, '/login/two-factor');
    assert.equal((await second.page.get('/account')).status, 303, 'no session before the second factor');
  });

  it('refuses a disabled account with the login page’s words', async () => {
    await configure({ signup: true });
    const someone = person();
    await browser().signIn();
    await app.ctx.database.db.updateTable('users').set({ disabledAt: Date.now() }).where('email', '=', someone.email!).execute();
    const answer = await browser().signIn();
    assert.equal(answer.status, 403);
    assert.match(answer.html, /This account is disabled by the installation’s admin: it cannot log in\./);
  });

  it('applies the membership rules at each sign-in, adding and raising, and makes accounts for matched people only', async () => {
    const team = (await app.ctx.workspaces.createWorkspace(admin.id, 'Team')).id;
    const leads = (await app.ctx.workspaces.createWorkspace(admin.id, 'Leads')).id;
    await configure({ signup: true, rules: `groups=editors -> ${team}\n@example.com -> ${leads} as owner` });
    const editor = person({ groups: ['staff', 'editors'] });
    assert.equal((await browser().signIn()).location, '/');
    const made = (await user(editor.email!))!;
    const places = async () =>
      (await app.ctx.workspaces.listForUser(made.id, { limit: 10, after: null })).rows
        .map((w) => [w.name, w.role])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(await places(), [['Team', 'member']], 'joins by the rule, with no workspace of its own');

    // a rule matched later adds (as owner here), and nothing is taken away when a rule stops matching
    await configure({ signup: true, rules: `groups=editors -> ${team} as owner` });
    provider.signingIn = { ...editor, groups: ['editors'] };
    await browser().signIn();
    assert.deepEqual(await places(), [['Team', 'owner']], 'raised to owner');
    await configure({ signup: true, rules: `groups=editors -> ${leads}` });
    provider.signingIn = { ...editor, groups: [] };
    await browser().signIn();
    assert.deepEqual(await places(), [['Team', 'owner']], 'never removed or lowered');

    // with rules, a person none matches gets no account
    await configure({ signup: true, rules: `groups=editors -> ${team}` });
    const outsider = person({ groups: ['sales'] });
    const refused = await browser().signIn();
    assert.equal(refused.status, 403);
    assert.match(refused.html, /gives you no place on this installation/);
    assert.equal(await user(outsider.email!), undefined);
  });

  it('turns passwords off for everyone but the instance admins with single sign-on only', async () => {
    await configure({ only: true });
    await app.ctx.users.createUser('dora@example.org', 'password-of-dora');
    const login = await new DashboardClient(app).get('/login');
    assert.match(login.html, /Sign in with Keycloak/);
    assert.doesNotMatch(login.html, /name="password"/, 'no password form');
    assert.match(login.html, /href="\/login\?admin=1">Admin sign-in</);
    assert.match((await new DashboardClient(app).get('/login?admin=1')).html, /name="password"/);

    const dora = new DashboardClient(app);
    await dora.get('/login?admin=1');
    const refused = await dora.post('/login', { email: 'dora@example.org', password: 'password-of-dora' });
    assert.equal(refused.status, 403);
    assert.match(refused.html, /Passwords are off on this installation, except for its admins/);
    const wrong = await dora.post('/login', { email: 'dora@example.org', password: 'wrong' });
    assert.match(wrong.html, /The email address or the password is not right/, 'a wrong password says nothing more');

    // the break-glass admin signs in by password
    const breakGlass = new DashboardClient(app);
    await breakGlass.get('/login?admin=1');
    assert.equal((await breakGlass.post('/login', { email: 'admin@example.com', password: 'password-of-the-admin' })).status, 303);
    assert.equal((await breakGlass.get('/account')).status, 200);
    assert.match((await breakGlass.get('/account')).html, /Change password/);

    // no reset link for a non-admin; the pages say why
    const forgot = new DashboardClient(app);
    assert.match((await forgot.get('/forgot-password')).html, /passwords work for its admins only/);
    const outbox = async () =>
      Number(
        (
          await app.ctx.database.db
            .selectFrom('passwordResets')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const resets = await outbox();
    assert.equal((await forgot.post('/forgot-password', { email: 'dora@example.org' })).location, '/forgot-password/sent');
    assert.equal(await outbox(), resets, 'no link made for her');
    await forgot.post('/forgot-password', { email: 'admin@example.com' });
    assert.equal(await outbox(), resets + 1, 'the admin gets one');

    // a reset link sent before single sign-on only sets no password of hers any more
    const secret = 'r'.repeat(43);
    const doraId = (await user('dora@example.org'))!.id;
    await app.ctx.database.db
      .insertInto('passwordResets')
      .values({ tokenHash: hashSecret(secret), userId: doraId, createdAt: Date.now(), expiresAt: Date.now() + 3_600_000, usedAt: null })
      .execute();
    const resetting = new DashboardClient(app);
    assert.equal((await resetting.get(`/reset-password/${secret}`)).status, 403);
    await resetting.get('/forgot-password');
    assert.equal((await resetting.post(`/reset-password/${secret}`, { password: 'a-new-password' })).status, 403);
    assert.equal(await app.ctx.users.authenticate('dora@example.org', 'a-new-password'), null);

    // sign-up with a password is refused, with the provider's button
    const signup = await new DashboardClient(app).get('/signup');
    assert.equal(signup.status, 403);
    assert.match(signup.html, /Single sign-on only/);
    assert.match(signup.html, /Sign in with Keycloak/);

    // a non-admin signed in by the provider has no password to change
    await app.ctx.database.db.updateTable('users').set({ passwordHash: null }).where('email', '=', 'dora@example.org').execute();
    provider.signingIn = { sub: 'dora', email: 'dora@example.org', email_verified: true };
    const signedIn = browser();
    assert.equal((await signedIn.signIn()).location, '/');
    const account = await signedIn.page.get('/account');
    assert.doesNotMatch(account.html, /Change password/);
    assert.match(account.html, /passwords work for its admins only/);
    assert.equal((await signedIn.page.post('/account/password', { currentPassword: 'x', newPassword: 'a-new-password' })).status, 403);
  });

  it('confirms a signed-in person by a fresh sign-in at the provider, for their session only', async () => {
    await configure({ signup: true });
    const someone = person();
    const signedIn = browser();
    await signedIn.signIn();
    // an account made by the provider has no password: the token form asks for a fresh sign-in there instead
    const before = await signedIn.page.get('/account/tokens');
    assert.match(before.html, /href="\/login\/oidc\/confirm\?next=%2Faccount%2Ftokens">confirm it is you there<\/a>/);
    assert.doesNotMatch(before.html, /name="currentPassword"/);
    const refused = await signedIn.page.post('/account/tokens', { name: 'ci', scopes: 'forms:read' });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /Confirm it is you with your sign-in provider first/);
    const confirmed = await signedIn.signIn('/login/oidc/confirm?next=/account/tokens');
    assert.equal(confirmed.status, 303);
    assert.equal(confirmed.location, '/account/tokens');
    assert.ok([...signedIn.page.cookies.keys()].some((name) => name.includes('oidc_confirmed')));
    assert.match((await signedIn.page.get('/account/tokens')).html, /You confirmed it is you with your sign-in provider a moment ago/);
    const made = await signedIn.page.post('/account/tokens', { name: 'ci', scopes: 'forms:read' });
    assert.equal(made.status, 200, 'a token without a password, after the provider confirmed the person');
    assert.match(made.html, /fg_[A-Za-z0-9_-]{20,}/);

    // another person at the provider does not confirm this session
    person();
    signedIn.forgetProviderSession();
    const other = await signedIn.signIn('/login/oidc/confirm');
    assert.equal(other.status, 403);
    assert.match(other.html, /not linked to the account of this session/);
    provider.signingIn = someone;
  });

  it('shows a clear page when the provider is down or hangs, and answers in time', async () => {
    const down = await TestProvider.start();
    const downIssuer = down.issuer;
    await down.stop();
    const hanging = await import('node:net').then((net) => net.createServer(() => undefined));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const port = (hanging.address() as { port: number }).port;
    try {
      for (const issuer of [downIssuer, `http://127.0.0.1:${port}`]) {
        const other = await startApp({ oidcIssuer: issuer, oidcClientId: 'x', oidcClientSecret: 'y', oidcName: 'Keycloak' });
        try {
          other.ctx.oidcClient.timeoutMs = 1000;
          await other.ctx.users.createUser('admin@example.com', 'password-of-the-admin');
          const started = Date.now();
          const answer = await new DashboardClient(other).get('/login/oidc');
          assert.equal(answer.status, 502, issuer);
          assert.match(answer.html, /Sign-in is not available/);
          assert.match(answer.html, /Keycloak did not answer/);
          assert.ok(Date.now() - started < 5000, 'gave up within its timeout');
          assert.match((await new DashboardClient(other).get('/login')).html, /name="password"/, 'the login page still works');
        } finally {
          await other.close();
        }
      }
    } finally {
      hanging.close();
    }
  });
});

describe('the admin page of single sign-on, /admin/sign-in', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(async () => app?.close());

  it('is the instance admin’s alone; the secret is written, never shown; a bad field changes nothing', async () => {
    const { user: admin, workspace } = await app.ctx.users.createUser('admin@example.com', 'password-of-the-admin');
    await app.ctx.users.createUser('member@example.com', 'password-of-the-member');
    const member = new DashboardClient(app);
    await member.enter('/login', 'member@example.com', 'password-of-the-member');
    assert.equal((await member.get('/admin/sign-in')).status, 404);
    await member.get('/account');
    assert.equal((await member.post('/admin/sign-in', { issuer: 'https://evil.example' })).status, 404);

    const page = new DashboardClient(app);
    await page.enter('/login', 'admin@example.com', 'password-of-the-admin');
    const empty = await page.get('/admin/sign-in');
    assert.match(empty.html, new RegExp(`${app.publicUrl}/login/oidc/callback`));
    assert.match(empty.html, /Single sign-on is off until/);
    const saved = await page.post('/admin/sign-in', {
      issuer: 'https://sso.example.com/realms/main',
      clientId: 'formgate',
      clientSecret: 'the-client-secret-0123',
      name: 'Keycloak',
      signup: 'on',
      rules: `groups=editors -> ${workspace.id} as owner`,
    });
    assert.equal(saved.status, 303);
    const shown = await page.get('/admin/sign-in');
    assert.doesNotMatch(shown.html, /the-client-secret-0123/, 'write-only');
    assert.match(shown.html, /A secret is stored and never shown/);
    assert.equal((await app.ctx.oidcSettings.setup())?.clientSecret, 'the-client-secret-0123');
    const stored = await app.ctx.database.db.selectFrom('settings').select('value').where('key', '=', 'oidc').executeTakeFirstOrThrow();
    assert.doesNotMatch(stored.value, /the-client-secret-0123/, 'sealed in the database');

    // an empty secret keeps the stored one; a rule naming no workspace refuses the whole form
    const refused = await page.post('/admin/sign-in', {
      issuer: 'http://sso.example.com',
      clientId: 'other',
      clientSecret: '',
      name: 'Keycloak',
      rules: 'groups=x -> aaaaaaaaaaaaaaaaaaaa',
    });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /must be an https URL/i);
    assert.match(refused.html, /no workspace has the id aaaaaaaaaaaaaaaaaaaa/i);
    const after = await app.ctx.oidcSettings.setup();
    assert.deepEqual(
      [after?.issuer, after?.clientId, after?.clientSecret, after?.signup],
      ['https://sso.example.com/realms/main', 'formgate', 'the-client-secret-0123', true],
    );
    assert.equal(after?.rules[0]?.role, 'owner');
    const events = await app.ctx.database.db.selectFrom('auditEvents').select(['action', 'details']).where('action', '=', 'sso.settings_changed').execute();
    assert.equal(events.length, 1);
    assert.doesNotMatch(String(events[0]!.details), /the-client-secret/);
    assert.equal(admin.isAdmin, 1);
  });
});
