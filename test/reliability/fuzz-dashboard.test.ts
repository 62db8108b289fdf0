import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { diffDumps, dumpTables } from '../helpers/dump.js';
import { printFigures } from '../helpers/figures.js';
import { assertProperty, FuzzCounts, fuzzSeed, nastyString, PROTOTYPE_KEYS } from '../helpers/fuzz.js';
import { dashboardRoutes } from '../helpers/routes.js';
import { refOf } from '../../src/services/passkeys.js';
import { postJson } from '../helpers/submit.js';

/**
 * Every form of the dashboard (each POST route the Fastify instance registered) posted with random
 * and boundary fields by a logged-in person: no 5xx; each answer is a page with a message or a
 * redirect; a refusal (4xx) changes nothing stored. The routes are listed from the running
 * instance, so a new form is fuzzed too, once FIELDS says which fields it reads.
 */

const RUNS = 250;
const PASSWORD = 'correct horse battery staple';

/** The fields each POST route reads; a route not listed here fails the first test. */
/** What a destination's add and settings forms post (each kind uses some of them). */
const DESTINATION_FIELDS = ['baseId', 'table', 'databaseId', 'spreadsheetId', 'sheet', 'listId', 'consentField', 'url', 'username', 'secret'];

const FIELDS: Record<string, string[]> = {
  '/signup': ['email', 'password', 'invitation'],
  '/signup/confirm': ['token', 'password', 'workspaceName'],
  '/login': ['email', 'password', 'next'],
  '/logout': [],
  '/forgot-password': ['email'],
  '/reset-password/:token': ['password', 'revokeTokens'],
  '/account/password': ['currentPassword', 'newPassword', 'revokeTokens'],
  '/account/logout-everywhere': ['revokeTokens'],
  '/account/tokens': ['name', 'scopes', 'expiresAt', 'currentPassword', 'code'],
  '/login/two-factor': ['code', 'remember'],
  '/login/two-factor/cancel': [],
  '/login/oidc/link': ['password'],
  '/account/two-factor/app': ['setup', 'code'],
  '/account/two-factor/recovery-codes': ['code'],
  '/account/two-factor/off': ['code'],
  '/account/two-factor/forget-browsers': [],
  '/account/sessions/end': ['session'],
  '/admin/two-factor': ['required'],
  '/w/:workspaceId/settings/two-factor': ['required'],
  '/account/tokens/:tokenId/revoke': [],
  '/account/passkeys': ['name', 'response'],
  '/account/passkeys/confirm': ['response', 'next'],
  '/account/passkeys/confirm/password': ['currentPassword', 'next'],
  '/account/passkeys/confirm/code': ['code', 'next'],
  '/account/passkeys/:passkeyId/rename': ['name'],
  '/account/passkeys/:passkeyId/remove': [],
  '/login/passkey': ['response', 'next'],
  '/login/two-factor/passkey': ['response', 'remember'],
  '/workspaces/new': ['name'],
  '/w/:workspaceId/settings': ['name'],
  '/w/:workspaceId/settings/spam-digest': ['frequency', 'mine'],
  '/w/:workspaceId/settings/assigned-digest': ['mine'],
  '/w/:workspaceId/erase/preview': ['email'],
  '/w/:workspaceId/erase': ['email'],
  '/w/:workspaceId/forms/new': ['name'],
  '/w/:workspaceId/invitations': ['email'],
  '/w/:workspaceId/invitations/:invitationId/revoke': [],
  '/w/:workspaceId/invitations/:invitationId/new-link': [],
  '/w/:workspaceId/members/:userId/remove': [],
  '/w/:workspaceId/leave': [],
  '/w/:workspaceId/delete': ['confirmName'],
  '/invitations/:secret': [],
  '/invitations/:secret/logout': [],
  '/not-spam/:token': [],
  '/recipients/:secret': ['answer'],
  '/admin/workspaces/:workspaceId/plan': ['plan', 'back'],
  '/admin/mail/test': [],
  '/admin/deliveries': ['deliveries'],
  '/admin/usage': ['usage'],
  '/admin/webhook-allow': ['webhookAllow'],
  '/admin/sign-in': ['issuer', 'clientId', 'clientSecret', 'name', 'signup', 'only', 'rules'],
  '/admin/sign-in/check': [],
  '/admin/accounts/:accountId/:action': [],
  '/setup': ['email', 'password', 'usage', 'workspaceName'],
  '/forms/:formId/test-submission': ['message', 'email', 'name'],
  '/forms/:formId/templates/:kind': ['code', 'mode'],
  '/forms/:formId/templates/:kind/preview': ['code'],
  '/forms/:formId/templates/:kind/test': [],
  '/forms/:formId/templates/:kind/delete': [],
  '/forms/:formId/settings': [
    'name',
    'description',
    'technology',
    'notificationEmails',
    'allowedOrigins',
    'emailThreading',
    'webhookUrl',
    'slackChannel',
    'customHoneypot',
    'customSpamWords',
    'spamProtection',
    'retentionDays',
    'uploadsShown',
    'uploadsEnabled',
    'uploadMaxFileSizeMb',
    'uploadMaxTotalSizeMb',
    'uploadAllowedTypes',
    'behaviourShown',
    'redirectUrl',
    'thanksTitle',
    'thanksMessage',
    'notificationSubject',
    'notificationFromName',
    'autoresponseSubject',
    'autoresponseFromName',
    'closesAt',
    'maxSubmissions',
    'action',
    'adding.notificationEmails',
    'adding.allowedOrigins',
  ],
  '/forms/:formId/settings/pause': ['paused'],
  '/forms/:formId/settings/secrets/:provider': ['secret'],
  '/forms/:formId/settings/secrets/:provider/remove': [],
  '/forms/:formId/settings/chat/:channel': ['url', 'botToken', 'chatId'],
  '/forms/:formId/settings/chat/:channel/remove': [],
  '/forms/:formId/settings/chat/:channel/test': [],
  '/forms/:formId/settings/webhook/test': [],
  '/forms/:formId/settings/destinations/:service': DESTINATION_FIELDS,
  '/forms/:formId/destinations/:destinationId': DESTINATION_FIELDS,
  '/forms/:formId/destinations/:destinationId/mapping': ['field', 'to'],
  '/forms/:formId/destinations/:destinationId/test': [],
  '/forms/:formId/destinations/:destinationId/remove': [],
  '/forms/:formId/settings/webhook-body': ['webhookBodyFormat', 'webhookBodyTemplate'],
  '/forms/:formId/settings/webhook-body/preview': ['webhookBodyFormat', 'webhookBodyTemplate'],
  '/forms/:formId/settings/webhook-secret': [],
  '/forms/:formId/settings/recipients/resend': ['resend'],
  '/forms/:formId/settings/webhook-secret/rotate': [],
  '/forms/:formId/delete': ['confirm', 'name'],
  '/forms/:formId/deliveries/:jobId/retry': ['back'],
  '/forms/:formId/deliveries/retry-failed': ['back'],
  '/submissions/delete': ['id', 'back'],
  '/submissions/:submissionId/not-spam': ['back'],
  '/submissions/:submissionId/unread': [],
  '/submissions/:submissionId/spam': [],
  '/submissions/:submissionId/note': ['note'],
  '/submissions/:submissionId/triage': ['status', 'assignee'],
  '/submissions/:submissionId/labels': ['label'],
  '/w/:workspaceId/labels': ['name', 'color'],
  '/w/:workspaceId/labels/:labelId': ['name', 'color'],
  '/w/:workspaceId/labels/:labelId/delete': [],
  '/w/:workspaceId/automations/keys': ['name', 'currentPassword', 'code'],
  '/w/:workspaceId/automations/keys/:keyId/revoke': [],
  '/w/:workspaceId/automations/hooks/:hookId/delete': [],
  '/w/:workspaceId/views': ['name', 'form', 'query'],
  '/w/:workspaceId/views/:viewId/delete': [],
  '/forms/:formId/bulk': ['id', 'pageId', 'all', 'back', 'action', 'assignee', 'label'],
  '/forms/:formId/spam/bulk': ['id', 'pageId', 'all', 'back', 'action'],
  '/w/:workspaceId/submissions/bulk': ['id', 'pageId', 'all', 'back', 'action', 'assignee', 'label'],
  '/account/time-zone': ['timeZone'],
};

/** Routes after which the session may be gone (by design): the client logs in again. */
const SESSION_ENDING = /^\/(logout|login|signup|account\/(password|logout-everywhere)|invitations\/|reset-password|w\/:workspaceId\/leave)/;

const ODD_SEGMENT = fc.constantFrom('x'.repeat(101), '%00', '%2F', '..', '%zz', '%ED%A0%80', '__proto__', 'constructor', '0', '-1', '%20', '~');
/** A path parameter: `own` (a real id of the logged-in account), `foreign` (someone else's) or odd text. */
const PARAMETER = fc.oneof(
  { weight: 6, arbitrary: fc.constant('own') },
  { weight: 1, arbitrary: fc.constant('foreign') },
  { weight: 2, arbitrary: ODD_SEGMENT },
);

const fieldValue = fc.oneof(
  { weight: 3, arbitrary: fc.constant('VALID') },
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 4, arbitrary: nastyString },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'x'.repeat(70_000),
      'save',
      'add',
      'remove:0',
      'remove:999',
      'remove:-1',
      'on',
      'BUNDLE_50000',
      'FREE',
      'https://example.com/hook',
      'a@example.com',
    ),
  },
);

/** How the fields of a post are spoiled. */
interface Post {
  params: Record<string, string>;
  fields: [string, string][];
  csrf: 'kept' | 'missing' | 'wrong' | 'repeated';
}

function postArbitrary(route: string): fc.Arbitrary<Post> {
  const names = FIELDS[route]!;
  const paramNames = [...route.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const known = names.length > 0 ? fc.constantFrom(...names) : fc.constant('unknown');
  const name = fc.oneof(
    { weight: 8, arbitrary: known },
    { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, '', 'a[]', 'x'.repeat(300), '\u0000', '\ud800', `${names[0] ?? 'x'}[]`) },
  );
  return fc.record({
    params: fc.record(Object.fromEntries(paramNames.map((p) => [p, PARAMETER]))),
    fields: fc.oneof(
      { weight: 8, arbitrary: fc.array(fc.tuple(name, fieldValue), { maxLength: 8 }) },
      // every field present and valid-shaped, then one spoiled
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.nat(), fieldValue)
          .map(([i, v]): [string, string][] => names.map((n, j) => [n, j === i % Math.max(1, names.length) ? v : 'VALID'])),
      },
      { weight: 1, arbitrary: fc.constant<[string, string][]>(Array.from({ length: 3000 }, (_, i) => [names[0] ?? 'f', String(i)])) },
    ),
    csrf: fc.oneof(
      { weight: 12, arbitrary: fc.constant('kept' as const) },
      { weight: 1, arbitrary: fc.constantFrom('missing' as const, 'wrong' as const, 'repeated' as const) },
    ),
  });
}

describe('fuzz: every form of the dashboard', () => {
  const seed = fuzzSeed('fuzz-dashboard');
  const counts = new FuzzCounts();
  let app: TestApp;
  let client: DashboardClient;
  const email = 'fuzz-owner@example.com';
  let userId = '';
  let routes: string[] = [];
  let refusalsUnchanged = 0;
  const own: Record<string, string> = {};
  const foreign: Record<string, string> = {};

  before(async () => {
    app = await startApp({ rateLimitLoginAccount: 'off', rateLimitLoginAddress: 'off' });
    // every POST route of the instance outside the API: the dashboard's forms
    routes = dashboardRoutes(app)
      .filter((route) => route.method === 'POST')
      .map((route) => route.path);
    client = new DashboardClient(app);
    await client.enter('/signup', email, PASSWORD);
    const user = await app.ctx.users.requireByEmail(email);
    userId = user.id;
    const other = await app.ctx.users.createUser('fuzz-other@example.com');
    foreign.workspaceId = other.workspace.id;
    foreign.formId = (await app.ctx.forms.createForm(other.user.id, other.workspace.id, { name: 'Not yours' })).id;
    foreign.submissionId = (await postJson(app, foreign.formId, { message: 'not yours' })).body.id;
    foreign.userId = other.user.id;
    foreign.passkeyId = await passkeyOf(other.user.id);
    await ensureFixtures();
  });

  after(async () => {
    printFigures('fuzz-dashboard', {
      requestsSent: counts.requests,
      badInputsTried: counts.badInputs,
      more: {
        'POST routes': routes.length,
        '5xx answers': counts.serverErrors,
        'refusals checked unchanged': refusalsUnchanged,
        'answers by status': counts.statusSummary(),
        seed,
      },
    });
    await app?.close();
  });

  /** The logged-in account's own resources, made again when a legitimate post removed one. */
  async function ensureFixtures(): Promise<void> {
    const db = app.ctx.database.db;
    const exists = async (table: 'workspaces' | 'forms' | 'submissions' | 'tokens' | 'invitations' | 'jobs', id: string | undefined) =>
      id !== undefined && (await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    if (!(await exists('workspaces', own.workspaceId))) {
      const membership = await db.selectFrom('workspaceMembers').select('workspaceId').where('userId', '=', userId).executeTakeFirst();
      own.workspaceId = membership?.workspaceId ?? (await app.ctx.workspaces.createWorkspace(userId, 'Again')).id;
      await app.ctx.workspaces.setPlan(own.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    }
    if (!(await exists('forms', own.formId)))
      own.formId = (await app.ctx.forms.createForm(userId, own.workspaceId!, { name: 'Contact', notificationEmails: ['owner@example.com'] })).id;
    if (!(await exists('submissions', own.submissionId))) own.submissionId = (await postJson(app, own.formId!, { message: 'hello' })).body.id;
    if (!(await exists('jobs', own.jobId))) {
      const job = await db.selectFrom('jobs').select('id').where('submissionId', '=', own.submissionId!).executeTakeFirst();
      own.jobId = job?.id ?? 'no-job';
    }
    if (
      !(await exists('tokens', own.tokenId)) ||
      (await db.selectFrom('tokens').select('revokedAt').where('id', '=', own.tokenId!).executeTakeFirst())?.revokedAt
    ) {
      own.tokenId = (await app.ctx.tokens.createToken(userId, { name: `fuzz-${Date.now()}-${Math.random()}`, scopes: ['forms:read'] })).token.id;
    }
    if (!(await exists('invitations', own.invitationId))) {
      const invited = await app.ctx.invitations.invite(userId, own.workspaceId!, `invited-${Date.now()}@example.com`).catch(() => null);
      own.invitationId = invited?.invitation.id ?? 'no-invitation';
    }
    const label = await db.selectFrom('labels').select('id').where('workspaceId', '=', own.workspaceId!).executeTakeFirst();
    own.labelId = label?.id ?? (await app.ctx.labels.create(userId, own.workspaceId!, { name: `Fuzz ${Date.now()}`, color: 'blue' })).id;
    const [key] = (await app.ctx.automationKeys.list(userId, own.workspaceId!)).filter((k) => k.revokedAt === null);
    own.keyId = key?.id ?? (await app.ctx.automationKeys.create(userId, own.workspaceId!, `Fuzz ${Date.now()}`)).key.id;
    const hook = await db.selectFrom('hooks').select('id').where('workspaceId', '=', own.workspaceId!).executeTakeFirst();
    own.hookId = hook?.id ?? `hook${Date.now()}`;
    if (!hook) {
      // as the API writes one (a free workspace may not subscribe through it)
      await db
        .insertInto('hooks')
        .values({
          ...{ id: own.hookId, workspaceId: own.workspaceId!, formId: null, event: 'submission.created', targetUrl: 'https://example.com/hook' },
          ...{ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', createdBy: userId, tokenId: null, automationKeyId: own.keyId },
          ...{ lastTriedAt: null, lastStatus: null, lastError: null, createdAt: Date.now() },
        })
        .execute();
    }
    const destination = await db.selectFrom('formDestinations').select('id').where('formId', '=', own.formId!).executeTakeFirst();
    own.destinationId = destination?.id ?? `destination${Date.now()}`;
    if (!destination) {
      // a listmonk on a loopback address, as stored: its test is refused at once (this instance calls no private address), nothing leaves the machine
      const settings = JSON.stringify({ url: 'http://127.0.0.1:1', username: 'api', listId: '1', consentField: 'newsletter' });
      await db
        .insertInto('formDestinations')
        .values({ id: own.destinationId, formId: own.formId!, kind: 'listmonk', settings, secret: 'fuzz-token', createdAt: Date.now(), updatedAt: Date.now() })
        .execute();
    }
    own.passkeyId = await passkeyOf(userId);
    const [view] = await app.ctx.savedViews.list(userId, own.workspaceId!);
    own.viewId = view?.id ?? (await app.ctx.savedViews.save(userId, own.workspaceId!, { name: `Fuzz ${Date.now()}`, formId: null, query: 'unread=1' })).id;
    const member = await db
      .selectFrom('workspaceMembers')
      .select('userId')
      .where('workspaceId', '=', own.workspaceId!)
      .where('userId', '!=', userId)
      .executeTakeFirst();
    if (member) own.userId = member.userId;
    else {
      const added = await app.ctx.users.createUser(`member-${Date.now()}-${Math.random()}@example.com`);
      await app.ctx.workspaces.addMember(own.workspaceId!, added.user.email);
      own.userId = added.user.id;
    }
  }

  /** The ref of a passkey of the account, stored as the ceremony stores one (its second_factor_at left alone). */
  async function passkeyOf(accountId: string): Promise<string> {
    const db = app.ctx.database.db;
    const held = await db.selectFrom('passkeys').select('id').where('userId', '=', accountId).executeTakeFirst();
    const id = held?.id ?? Buffer.from(`fuzz credential ${accountId} ${Date.now()}`).toString('base64url');
    if (!held) {
      await db
        .insertInto('passkeys')
        .values({ id, userId: accountId, name: 'Fuzz key', publicKey: 'AA', transports: null, lastUsedAt: null, createdAt: Date.now() })
        .execute();
    }
    return refOf(id);
  }

  function parameter(name: string, choice: string): string {
    if (choice === 'foreign') return foreign[name] ?? 'foreign';
    if (choice !== 'own') return choice;
    if (name === 'kind') return 'notification';
    if (name === 'provider') return 'HCAPTCHA';
    if (name === 'channel') return 'discord';
    if (name === 'service') return 'brevo';
    return own[name] ?? 'own';
  }

  function validValue(name: string): string {
    const values: Record<string, string> = {
      email: 'someone@example.com',
      password: 'a long enough password',
      newPassword: 'another long password',
      currentPassword: 'not the password',
      name: 'Fuzzed',
      scopes: 'forms:read',
      expiresAt: '2099-01-01',
      plan: 'BUNDLE_50000',
      code: '<p>{{data.message}}</p>',
      mode: 'code',
      id: own.submissionId ?? '',
      back: '/',
      next: '/',
      action: 'save',
      secret: 's3cret',
      confirm: 'Contact',
    };
    return Object.hasOwn(values, name) ? values[name]! : 'x';
  }

  async function check(route: string, post: Post): Promise<void> {
    await ensureFixtures();
    let path = route;
    for (const [name, choice] of Object.entries(post.params)) path = path.replace(`:${name}`, parameter(name, choice));
    const fields = post.fields.map(([n, v]): [string, string] => [n, v === 'VALID' ? validValue(n) : v]);
    if (post.csrf === 'missing') fields.unshift(['_csrf', '']);
    if (post.csrf === 'wrong') fields.unshift(['_csrf', 'not-the-token']);
    if (post.csrf === 'repeated') fields.unshift(['_csrf', client.csrf], ['_csrf', 'not-the-token']);
    const bad = post.csrf !== 'kept' || Object.values(post.params).some((c) => c !== 'own') || post.fields.some(([, v]) => v !== 'VALID');
    if (bad) counts.badInputs++;

    const before = await dumpTables(app.ctx.database);
    const answer = await client.post(path, fields);
    counts.record(answer.status);
    const label = `POST ${path.slice(0, 150)} [${fields.length} fields: ${fields
      .slice(0, 4)
      .map(([n, v]) => `${n.slice(0, 20)}=${JSON.stringify(v.slice(0, 20))}`)
      .join(' ')}; csrf ${post.csrf}]`;
    assert.ok(answer.status < 500, `${label}: ${answer.status} ${answer.html.slice(0, 300)}`);
    if (answer.status === 303 || answer.status === 302) {
      assert.ok(answer.location, `${label}: a redirect without a Location`);
    } else {
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, `${label}: ${answer.status} is not a page`);
      // a refusal is a page that says what went wrong (a preview's 200 is a fragment, not a page)
      if (answer.status >= 400) assert.match(answer.html, /<h1[^>]*>[^<]+|role="alert"|class="[^"]*error/, `${label}: ${answer.status} page without a message`);
    }
    if (answer.status >= 400) {
      const changed = diffDumps(before, await dumpTables(app.ctx.database));
      assert.deepEqual(changed, [], `${label}: the refusal ${answer.status} changed stored data:\n${changed.slice(0, 5).join('\n')}`);
      refusalsUnchanged++;
    }
    // a legitimate post may end the session (log out, a new password): log in again for the next
    if (SESSION_ENDING.test(route) || answer.location?.includes('/login')) {
      if ((await client.get('/account')).status !== 200) {
        client.cookies.clear();
        await app.ctx.users.setPassword(userId, PASSWORD);
        await client.enter('/login', email, PASSWORD);
      }
    }
  }

  test('every POST route of the dashboard has a generator, and every generator a route', () => {
    assert.ok(routes.length >= 30, `found ${routes.length} POST routes: ${routes.join(' ')}`);
    assert.deepEqual(
      routes.filter((r) => !(r in FIELDS)),
      [],
      'POST routes without an entry in FIELDS',
    );
    assert.deepEqual(
      Object.keys(FIELDS).filter((r) => !routes.includes(r)),
      [],
      'entries of FIELDS with no route',
    );
  });

  test('random and boundary fields on every form: no 5xx, a page or a redirect, refusals change nothing', { timeout: 120_000 }, async () => {
    const post = fc.constantFrom(...routes).chain((route) => postArbitrary(route).map((p) => ({ route, post: p })));
    await assertProperty(
      fc.asyncProperty(post, ({ route, post: p }) => check(route, p)),
      { seed, numRuns: RUNS },
    );
    assert.equal(counts.serverErrors, 0, '5xx answers');
  });

  test('the process survives: the dashboard still answers', async () => {
    const health = await client.get('/healthz');
    assert.equal(health.status, 200);
    assert.equal(counts.serverErrors, 0);
  });
});
