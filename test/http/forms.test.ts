import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FormRow } from '../../src/db/schema/form.js';
import type { SubmissionStatus } from '../../src/db/schema/submission.js';
import { newId } from '../../src/ids.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { createAccount, createForm, DEFAULT_FORM_BEHAVIOUR, FORM_FIELDS, blankFormRow, type Account } from '../helpers/fixtures.js';
import { walkPages } from '../helpers/pagination.js';
import { assertJson, assertProblem, assertSameNotFound, assertValidation } from '../helpers/problems.js';
import { DEFAULT_FILE_UPLOADS } from '../../src/domain/uploads.js';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What a form created with a name only holds. */
const DEFAULTS = {
  description: null,
  technology: null,
  notificationEmails: [] as string[],
  emailThreading: false,
  webhookUrl: null,
  slackChannel: null,
  customHoneypot: null,
  customSpamWords: null,
  spamProtection: null,
  allowedOrigins: [] as string[],
  retentionDays: null,
  fileUploads: { ...DEFAULT_FILE_UPLOADS } as unknown,
  // the form's behaviour and state (issue 29): open, the defaults (test/http/form-rules.test.ts)
  ...DEFAULT_FORM_BEHAVIOUR,
};

/** Every setting given a value (spamProtection needs a stored secret, so it stays null here). */
const FULL = {
  description: 'The contact form of the main site',
  technology: 'Astro',
  notificationEmails: ['sales@example.com', 'ops@example.org'],
  emailThreading: true,
  webhookUrl: 'https://example.com/hook',
  slackChannel: '#leads',
  customHoneypot: 'website',
  customSpamWords: 'casino, lottery',
  spamProtection: null,
  allowedOrigins: ['https://example.com', 'https://www.example.com', 'http://localhost:3000'],
  retentionDays: 30,
};

const NULLABLE = ['description', 'technology', 'webhookUrl', 'slackChannel', 'customHoneypot', 'customSpamWords', 'spamProtection', 'retentionDays'] as const;
const PROVIDERS = ['BOTPOISON', 'GOOGLE_RECAPTCHA_V2', 'HCAPTCHA', 'TURNSTILE'] as const;

const EMAIL_128 = `${'a'.repeat(64)}@${'b'.repeat(51)}.example.com`;
const EMAIL_129 = `${'a'.repeat(64)}@${'b'.repeat(52)}.example.com`;
const emails = (n: number) => Array.from({ length: n }, (_, i) => `person${i}@example.com`);
const URL_PREFIX = 'https://example.com/';
/** An origin of `length` characters (labels of at most 63). */
const originOf = (length: number, tld = 'com') => {
  const host = Array.from({ length: 4 }, (_, i) => 'abcd'[i]!.repeat(63))
    .join('.')
    .slice(0, length - 'https://'.length - tld.length - 1);
  return `https://${host.replace(/\.$/, 'x')}.${tld}`;
};
const origins = (n: number) => Array.from({ length: n }, (_, i) => `https://site${i}.example.com`);

/** Each field at its limit (2.3, 8). */
const AT_LIMIT = {
  name: 'n'.repeat(128),
  description: 'd'.repeat(512),
  technology: 't'.repeat(128),
  slackChannel: 's'.repeat(128),
  customHoneypot: 'h'.repeat(128),
  customSpamWords: 'w'.repeat(2560),
  webhookUrl: URL_PREFIX + 'p'.repeat(512 - URL_PREFIX.length),
  notificationEmails: [EMAIL_128, ...emails(99)],
  allowedOrigins: [originOf(256), ...origins(19)],
  retentionDays: 3650,
  thanksTitle: 't'.repeat(200),
  notificationFromName: 'f'.repeat(64),
  maxSubmissions: 10_000_000,
};

/** Each field one past its limit (or otherwise just outside what it allows). */
const PAST_LIMIT: [string, unknown][] = [
  ['thanksTitle', 't'.repeat(201)],
  ['notificationFromName', 'f'.repeat(65)],
  ['maxSubmissions', 10_000_001],
  ['redirectUrl', 'ftp://example.com/x'],
  ['name', ''],
  ['name', 'n'.repeat(129)],
  ['description', 'd'.repeat(513)],
  ['technology', 't'.repeat(129)],
  ['slackChannel', 's'.repeat(129)],
  ['customHoneypot', 'h'.repeat(129)],
  ['customSpamWords', 'w'.repeat(2561)],
  ['webhookUrl', URL_PREFIX + 'p'.repeat(513 - URL_PREFIX.length)],
  ['notificationEmails', emails(101)],
  ['notificationEmails', [EMAIL_129]],
  ['notificationEmails', ['sales@example.com', 'not-an-address']],
  ['notificationEmails', ['@example.com']],
  ['allowedOrigins', origins(21)],
  ['allowedOrigins', [originOf(257)]],
  ['allowedOrigins', ['https://example.com', 'https://example.com']],
  ['retentionDays', 0],
  ['retentionDays', 3651],
  ['retentionDays', -1],
];

/** Values of the wrong type, or outside an enumeration. */
const WRONG_TYPES: [string, unknown][] = [
  ['name', 1],
  ['name', null],
  ['name', ['Contact']],
  ['description', 5],
  ['technology', true],
  ['notificationEmails', 'sales@example.com'],
  ['notificationEmails', null],
  ['notificationEmails', [1]],
  ['notificationEmails', { 0: 'sales@example.com' }],
  ['allowedOrigins', 'https://example.com'],
  ['allowedOrigins', null],
  ['allowedOrigins', [1]],
  ['emailThreading', 'yes'],
  ['emailThreading', 1],
  ['emailThreading', null],
  ['webhookUrl', 5],
  ['slackChannel', ['#leads']],
  ['customHoneypot', { name: 'x' }],
  ['customSpamWords', 7],
  ['spamProtection', 1],
  ['spamProtection', 'turnstile'],
  ['spamProtection', 'RECAPTCHA_V3'],
  ['spamProtection', 'SLACK'],
  ['retentionDays', '30'],
  ['retentionDays', 1.5],
  ['retentionDays', true],
];

const REFUSED_WEBHOOKS = [
  'ftp://example.com/hook',
  'javascript:alert(1)',
  'mailto:hooks@example.com',
  'file:///etc/passwd',
  'not a url',
  '',
  'example.com/hook',
  'http://127.0.0.1/',
  'http://127.0.0.1:8080/hook',
  'http://10.0.0.1/',
  'http://192.168.1.1/',
  'http://172.16.0.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://[::1]/',
  'http://[::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://localhost/',
  'https://LOCALHOST:3000/hook',
  'http://localhost./',
  'http://hooks.localhost/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://127.1/',
  'http://0177.0.0.1/',
  'http://127.0.0.1./',
  'http://224.0.0.1/',
];
/** Not an origin as a browser writes it in `Origin`: each is refused with what to write instead. */
const REFUSED_ORIGINS = [
  'example.com',
  'https://example.com/',
  'https://example.com/contact',
  'https://example.com?x=1',
  'https://example.com#top',
  'https://Example.com',
  'https://example.com:443',
  'http://example.com:80',
  'https://bücher.example',
  'https://user:pass@example.com',
  'ftp://example.com',
  'javascript:alert(1)',
  'data:text/html,hi',
  'null',
  '*',
  'https://*.example.com',
  '',
];
const ACCEPTED_WEBHOOKS = [
  'https://example.com/hook',
  'http://93.184.216.34/x',
  'https://[2606:2800:220:1:248:1893:25c8:1946]/hook',
  'https://hooks.example.com:8443/a?b=c',
];

describe('forms API', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  const iso = (ms: number) => new Date(ms).toISOString();

  async function formRow(id: string): Promise<FormRow | undefined> {
    return app.ctx.database.db.selectFrom('forms').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async function formCount(workspaceId: string): Promise<number> {
    const { count } = await app.ctx.database.db
      .selectFrom('forms')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('workspaceId', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  async function setTimes(id: string, createdAt: number, updatedAt = createdAt): Promise<void> {
    await app.ctx.database.db.updateTable('forms').set({ createdAt, updatedAt }).where('id', '=', id).execute();
  }

  function assertDateTime(value: unknown, field: string): void {
    assert.equal(typeof value, 'string', `${field} is a string`);
    assert.match(value as string, ISO_DATE_TIME, `${field} is an ISO 8601 date-time`);
    assert.equal(new Date(value as string).toISOString(), value, `${field} is a valid date-time`);
  }

  /** Asserts the whole Form resource (2.3): exactly these fields and values, timestamps as stored. */
  async function assertForm(body: any, expected: Record<string, unknown>): Promise<void> {
    assert.deepEqual(Object.keys(body).sort(), FORM_FIELDS);
    assert.equal(typeof body.id, 'string');
    assert.ok(body.id.length > 0);
    assertDateTime(body.createdAt, 'createdAt');
    assertDateTime(body.updatedAt, 'updatedAt');
    const stored = await formRow(body.id);
    assert.ok(stored, 'the form is stored');
    assert.deepEqual(body, { ...DEFAULTS, ...expected, id: body.id, createdAt: iso(stored.createdAt), updatedAt: iso(stored.updatedAt) });
  }

  const post = (account: Account, body: Record<string, unknown>) =>
    app.api('POST', '/forms', { token: account.token, body: { workspaceId: account.workspaceId, name: 'Contact', ...body } });
  const get = (account: Account, formId: string) => app.api('GET', `/forms/${formId}`, { token: account.token });
  const patch = (account: Account, formId: string, body: unknown) => app.api('PATCH', `/forms/${formId}`, { token: account.token, body });
  const del = (account: Account, formId: string) => app.api('DELETE', `/forms/${formId}`, { token: account.token });

  /** A form on an upgraded workspace that is then downgraded to FREE. */
  async function formOnFreeWorkspace(): Promise<{ account: Account; form: any }> {
    const account = await createAccount(app);
    const form = await createForm(app, account, FULL);
    await app.ctx.workspaces.setPlan(account.workspaceId, 'FREE');
    return { account, form };
  }

  /** A form with every setting, TURNSTILE included (its secret stored first). */
  async function fullForm(account: Account): Promise<any> {
    const form = await createForm(app, account, FULL);
    await app.ctx.forms.setSecret(form.id, 'TURNSTILE', 'turnstile-secret-value');
    const answer = await patch(account, form.id, { spamProtection: 'TURNSTILE' });
    assertJson(answer, 200);
    return answer.body;
  }

  async function insertSubmission(formId: string, workspaceId: string, status: SubmissionStatus): Promise<string> {
    const id = newId();
    await app.ctx.database.db
      .insertInto('submissions')
      .values({ id, formId, workspaceId, data: JSON.stringify({ email: 'visitor@example.com', message: 'Hello' }), status, createdAt: Date.now() })
      .execute();
    return id;
  }

  async function submissionIds(formId: string): Promise<string[]> {
    const rows = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).execute();
    return rows.map((r) => r.id).sort();
  }

  async function insertForms(workspaceId: string, createdAts: number[]): Promise<void> {
    for (const [i, createdAt] of createdAts.entries()) {
      await app.ctx.database.db
        .insertInto('forms')
        .values(blankFormRow(workspaceId, `Form ${i}`, createdAt))
        .execute();
    }
  }

  describe('POST /forms', () => {
    it('creates a form with a name only; every field is present with its default', async () => {
      const account = await createAccount(app);
      const before = Date.now();
      const answer = await post(account, {});
      assertJson(answer, 201);
      await assertForm(answer.body, { name: 'Contact', workspaceId: account.workspaceId });
      assert.equal(answer.body.createdAt, answer.body.updatedAt);
      assert.ok(Date.parse(answer.body.createdAt) >= before - 1 && Date.parse(answer.body.createdAt) <= Date.now());
      assert.equal(await formCount(account.workspaceId), 1);
    });

    it('applies every setting supplied at creation', async () => {
      const account = await createAccount(app, { plan: 'DEALIFY' });
      const answer = await post(account, { name: 'Quote request', ...FULL });
      assertJson(answer, 201);
      await assertForm(answer.body, { name: 'Quote request', workspaceId: account.workspaceId, ...FULL });
      const read = await get(account, answer.body.id);
      assertJson(read, 200);
      assert.deepEqual(read.body, answer.body);
    });

    it('accepts every field at its limit', async () => {
      const account = await createAccount(app);
      const answer = await post(account, AT_LIMIT);
      assertJson(answer, 201);
      await assertForm(answer.body, { workspaceId: account.workspaceId, ...AT_LIMIT });
      assert.equal(answer.body.notificationEmails.length, 100);
      assert.equal(answer.body.notificationEmails[0].length, 128);
      assert.equal(answer.body.webhookUrl.length, 512);
      // a name counts characters, not UTF-16 units; a one-character name is fine too
      for (const name of ['😀'.repeat(128), 'x']) {
        const other = await post(account, { name });
        assertJson(other, 201);
        assert.equal(other.body.name, name);
      }
    });

    it('refuses each field one past its limit, naming it, and creates nothing', async () => {
      const account = await createAccount(app);
      for (const [field, value] of PAST_LIMIT) {
        assertValidation(app, await post(account, { [field]: value }), field);
      }
      assert.equal(await formCount(account.workspaceId), 0);
    });

    it('refuses values of the wrong type, naming the field, and creates nothing', async () => {
      const account = await createAccount(app);
      for (const [field, value] of [...WRONG_TYPES, ['workspaceId', 5], ['workspaceId', null]] as [string, unknown][]) {
        assertValidation(app, await post(account, { [field]: value }), field);
      }
      assert.equal(await formCount(account.workspaceId), 0);
    });

    it('requires workspaceId and name', async () => {
      const account = await createAccount(app);
      assertValidation(app, await app.api('POST', '/forms', { token: account.token, body: { name: 'Contact' } }), 'workspaceId');
      assertValidation(app, await app.api('POST', '/forms', { token: account.token, body: { workspaceId: '', name: 'Contact' } }), 'workspaceId');
      assertValidation(app, await app.api('POST', '/forms', { token: account.token, body: { workspaceId: account.workspaceId } }), 'name');
      assertValidation(app, await app.api('POST', '/forms', { token: account.token, body: {} }), 'workspaceId', 'name');
      assert.equal(await formCount(account.workspaceId), 0);
    });

    it('refuses unknown body fields', async () => {
      const account = await createAccount(app);
      for (const [field, value] of [
        ['id', 'abc'],
        ['createdAt', new Date().toISOString()],
        ['secret', 's'],
        ['captchaSecret', 's'],
        ['color', 'red'],
      ] as const) {
        assertValidation(app, await post(account, { [field]: value }), field);
      }
      assert.equal(await formCount(account.workspaceId), 0);
    });

    it('refuses a webhookUrl that is not http(s) or points at a non-public address', async () => {
      const account = await createAccount(app);
      for (const webhookUrl of REFUSED_WEBHOOKS) {
        const answer = await post(account, { webhookUrl });
        assert.equal(answer.status, 400, `${webhookUrl} is refused, got ${answer.status}`);
        assertValidation(app, answer, 'webhookUrl');
      }
      assert.equal(await formCount(account.workspaceId), 0);
    });

    it('accepts a public http(s) webhookUrl', async () => {
      const account = await createAccount(app);
      for (const webhookUrl of ACCEPTED_WEBHOOKS) {
        const answer = await post(account, { webhookUrl });
        assertJson(answer, 201);
        assert.equal(answer.body.webhookUrl, webhookUrl);
      }
    });

    it('refuses an allowed origin not written as a browser sends it, saying what to write, and creates nothing', async () => {
      const account = await createAccount(app);
      for (const origin of REFUSED_ORIGINS) {
        const answer = await post(account, { allowedOrigins: ['https://ok.example.com', origin] });
        assert.equal(answer.status, 400, `${origin} is refused, got ${answer.status}`);
        assertValidation(app, answer, 'allowedOrigins[1]');
      }
      const trailing = await post(account, { allowedOrigins: ['https://Example.com/'] });
      assert.deepEqual(trailing.body.errors, ['allowedOrigins[0]: must be written as a browser sends it: https://example.com']);
      const path = await post(account, { allowedOrigins: ['https://example.com/contact'] });
      assert.deepEqual(path.body.errors, ['allowedOrigins[0]: must be an origin only, without a path, query or fragment (https://example.com)']);
      const idn = await post(account, { allowedOrigins: ['https://bücher.example'] });
      assert.deepEqual(idn.body.errors, ['allowedOrigins[0]: must be written as a browser sends it: https://xn--bcher-kva.example']);
      assert.equal(await formCount(account.workspaceId), 0);
    });

    it('accepts http and https origins, with a port or an IPv6 address', async () => {
      const account = await createAccount(app);
      const allowedOrigins = ['https://xn--bcher-kva.example', 'http://localhost:3000', 'https://example.com:8443', 'http://[::1]:8080', 'http://127.0.0.1'];
      const answer = await post(account, { allowedOrigins });
      assertJson(answer, 201);
      assert.deepEqual(answer.body.allowedOrigins, allowedOrigins);
    });

    it('refuses any spamProtection provider (no secret can be stored yet) and accepts null', async () => {
      const account = await createAccount(app);
      for (const spamProtection of PROVIDERS) {
        assertValidation(app, await post(account, { spamProtection }), 'spamProtection');
      }
      assert.equal(await formCount(account.workspaceId), 0);
      const answer = await post(account, Object.fromEntries(NULLABLE.map((field) => [field, null])));
      assertJson(answer, 201);
      await assertForm(answer.body, { name: 'Contact', workspaceId: account.workspaceId });
    });

    it('accepts ALTCHA without any secret key: Formgate signs its challenges with its own', async () => {
      const account = await createAccount(app);
      const created = await post(account, { spamProtection: 'ALTCHA' });
      assertJson(created, 201);
      await assertForm(created.body, { name: 'Contact', workspaceId: account.workspaceId, spamProtection: 'ALTCHA' });
      const off = await patch(account, created.body.id, { spamProtection: null });
      assert.equal(off.body.spamProtection, null);
      assert.equal((await patch(account, created.body.id, { spamProtection: 'ALTCHA' })).body.spamProtection, 'ALTCHA');
    });

    it('answers not_found for another account’s workspace, exactly as for one that does not exist', async () => {
      const account = await createAccount(app);
      const paid = await createAccount(app);
      const free = await createAccount(app, { plan: 'FREE' });
      const missingId = newId();
      const missing = await app.api('POST', '/forms', { token: account.token, body: { workspaceId: missingId, name: 'Contact' } });
      for (const other of [paid, free]) {
        const answer = await app.api('POST', '/forms', { token: account.token, body: { workspaceId: other.workspaceId, name: 'Contact' } });
        assertSameNotFound(app, answer, other.workspaceId, missing, missingId);
        assert.equal(await formCount(other.workspaceId), 0);
      }
    });

    it('answers upgrade_required with the workspaceId on a FREE workspace', async () => {
      const account = await createAccount(app, { plan: 'FREE' });
      assertProblem(app, await post(account, {}), 'upgrade_required', { workspaceId: account.workspaceId });
      assert.equal(await formCount(account.workspaceId), 0);
    });

    it('lets a member create a form in the team’s workspace', async () => {
      const owner = await createAccount(app);
      const member = await createAccount(app, { plan: 'FREE' });
      await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
      const answer = await app.api('POST', '/forms', { token: member.token, body: { workspaceId: owner.workspaceId, name: 'By a member' } });
      assertJson(answer, 201);
      await assertForm(answer.body, { name: 'By a member', workspaceId: owner.workspaceId });
    });

    it('holds 100 forms on an upgraded workspace; the 101st is quota_exceeded, per workspace', async () => {
      const account = await createAccount(app);
      const created: string[] = [];
      for (let i = 0; i < 100; i++) {
        const answer = await post(account, { name: `Form ${i}` });
        assert.equal(answer.status, 201, `form ${i + 1} is created, got ${answer.status} ${JSON.stringify(answer.body)}`);
        created.push(answer.body.id);
      }
      assertProblem(app, await post(account, { name: 'One too many' }), 'quota_exceeded');
      assert.equal(await formCount(account.workspaceId), 100);

      // deleting one makes room for exactly one
      const removed = await del(account, created[0]!);
      assert.equal(removed.status, 204);
      assertJson(await post(account, { name: 'In its place' }), 201);
      assertProblem(app, await post(account, { name: 'One too many again' }), 'quota_exceeded');
      assert.equal(await formCount(account.workspaceId), 100);

      // simultaneous creates cannot overshoot: with room for 3, eight at once make exactly 3
      for (const id of created.slice(1, 4)) assert.equal((await del(account, id)).status, 204);
      const race = await Promise.all(Array.from({ length: 8 }, (_, i) => post(account, { name: `Race ${i}` })));
      assert.equal(race.filter((a) => a.status === 201).length, 3, `statuses ${race.map((a) => a.status).join(' ')}`);
      for (const answer of race.filter((a) => a.status !== 201)) assertProblem(app, answer, 'quota_exceeded');
      assert.equal(await formCount(account.workspaceId), 100);

      // the count is per workspace: another upgraded workspace of the account still has room
      const second = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Second' } });
      assert.equal(second.status, 201);
      await app.ctx.workspaces.setPlan(second.body.id, 'DEALIFY');
      assertJson(await app.api('POST', '/forms', { token: account.token, body: { workspaceId: second.body.id, name: 'Elsewhere' } }), 201);

      // the FREE limit (10) is not reachable through the API: a FREE workspace is refused before any count
      await app.ctx.workspaces.setPlan(account.workspaceId, 'FREE');
      assertProblem(app, await post(account, { name: 'Free now' }), 'upgrade_required', { workspaceId: account.workspaceId });
    });

    it('answers the auth matrix (forms:write)', async () => {
      const account = await createAccount(app);
      await assertAuthMatrix(app, account, {
        method: 'POST',
        path: '/forms',
        scope: 'forms:write',
        body: { workspaceId: account.workspaceId, name: 'Matrix' },
      });
      assert.equal(await formCount(account.workspaceId), 0);
    });
  });

  describe('GET /forms', () => {
    it('lists the forms of the workspace newest first, every field present', async () => {
      const account = await createAccount(app);
      const a = await createForm(app, account, { name: 'A', ...FULL });
      const b = await createForm(app, account, { name: 'B' });
      const c = await createForm(app, account, { name: 'C', technology: 'Hugo' });
      // the oldest one was updated last, so an order by updatedAt (or by id, by chance) would show
      const t = Date.now() - 100_000;
      await setTimes(a.id, t, t + 50_000);
      await setTimes(b.id, t + 1000);
      await setTimes(c.id, t + 2000);
      // a form of another workspace of the same account is not listed
      const second = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Second' } });
      await app.ctx.workspaces.setPlan(second.body.id, 'BUNDLE_50000');
      assertJson(await app.api('POST', '/forms', { token: account.token, body: { workspaceId: second.body.id, name: 'Elsewhere' } }), 201);

      const answer = await app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token: account.token });
      assertJson(answer, 200);
      assert.deepEqual(Object.keys(answer.body).sort(), ['data', 'hasMore', 'nextCursor']);
      assert.equal(answer.body.hasMore, false);
      assert.equal(answer.body.nextCursor, null);
      assert.deepEqual(
        answer.body.data.map((f: any) => f.name),
        ['C', 'B', 'A'],
      );
      await assertForm(answer.body.data[0], { name: 'C', workspaceId: account.workspaceId, technology: 'Hugo' });
      await assertForm(answer.body.data[1], { name: 'B', workspaceId: account.workspaceId });
      await assertForm(answer.body.data[2], { name: 'A', workspaceId: account.workspaceId, ...FULL });
      assert.equal(answer.body.data[2].createdAt, iso(t));
      assert.equal(answer.body.data[2].updatedAt, iso(t + 50_000));
    });

    it('answers an empty page for a workspace without forms', async () => {
      const account = await createAccount(app);
      const answer = await app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token: account.token });
      assertJson(answer, 200);
      assert.deepEqual(answer.body, { data: [], hasMore: false, nextCursor: null });
    });

    it('pages 25 by default and continues with nextCursor, each form once, newest first', async () => {
      const account = await createAccount(app);
      const base = Date.now() - 1_000_000;
      // 30 forms, several sharing a creation time, so the order needs its tie-break across pages
      await insertForms(
        account.workspaceId,
        Array.from({ length: 30 }, (_, i) => base + Math.floor(i / 3) * 1000),
      );
      const path = `/forms?workspaceId=${account.workspaceId}`;

      const first = await app.api('GET', path, { token: account.token });
      assertJson(first, 200);
      assert.equal(first.body.data.length, 25);
      assert.equal(first.body.hasMore, true);
      assert.equal(typeof first.body.nextCursor, 'string');
      const second = await app.api('GET', `${path}&startingAfter=${encodeURIComponent(first.body.nextCursor)}`, { token: account.token });
      assertJson(second, 200);
      assert.equal(second.body.data.length, 5);
      assert.equal(second.body.hasMore, false);
      assert.equal(second.body.nextCursor, null);

      const all = [...first.body.data, ...second.body.data];
      assert.equal(new Set(all.map((f: any) => f.id)).size, 30);
      for (let i = 1; i < all.length; i++) assert.ok(Date.parse(all[i - 1].createdAt) >= Date.parse(all[i].createdAt), 'newest first');

      const whole = await app.api('GET', `${path}&limit=100`, { token: account.token });
      assertJson(whole, 200);
      assert.deepEqual(
        whole.body.data.map((f: any) => f.id),
        all.map((f: any) => f.id),
      );
      assert.equal(whole.body.hasMore, false);

      const one = await app.api('GET', `${path}&limit=1`, { token: account.token });
      assertJson(one, 200);
      assert.deepEqual(
        one.body.data.map((f: any) => f.id),
        [all[0].id],
      );
      assert.equal(one.body.hasMore, true);

      const { ids: walked, pages } = await walkPages(app, account.token, path, 7);
      assert.equal(pages, 5);
      assert.deepEqual(
        walked,
        all.map((f: any) => f.id),
      );
    });

    it('requires workspaceId and refuses a limit outside 1..100', async () => {
      const account = await createAccount(app);
      assertValidation(app, await app.api('GET', '/forms', { token: account.token }), 'workspaceId');
      assertValidation(app, await app.api('GET', '/forms?workspaceId=', { token: account.token }), 'workspaceId');
      for (const limit of ['0', '101', 'abc', '2.5']) {
        assertValidation(app, await app.api('GET', `/forms?workspaceId=${account.workspaceId}&limit=${limit}`, { token: account.token }), 'limit');
      }
    });

    it('ignores query parameters it does not know (a cache-busting _=), and still refuses a known one with a bad value', async () => {
      const account = await createAccount(app);
      for (const name of ['A', 'B', 'C']) await createForm(app, account, { name });
      const plain = await app.api('GET', `/forms?workspaceId=${account.workspaceId}&limit=2`, { token: account.token });
      assertJson(plain, 200);
      const busted = await app.api('GET', `/forms?workspaceId=${account.workspaceId}&limit=2&_=1732612345678&utm_source=x&_=2`, { token: account.token });
      assertJson(busted, 200);
      assert.deepEqual(
        busted.body.data.map((form: any) => form.id),
        plain.body.data.map((form: any) => form.id),
      );
      const next = await app.api('GET', `/forms?_=1&workspaceId=${account.workspaceId}&limit=2&startingAfter=${encodeURIComponent(busted.body.nextCursor)}`, {
        token: account.token,
      });
      assertJson(next, 200);
      assert.equal(next.body.data.length, 1);
      assertValidation(app, await app.api('GET', `/forms?workspaceId=${account.workspaceId}&limit=0&_=1`, { token: account.token }), 'limit');
      assertValidation(app, await app.api('GET', '/forms?_=1', { token: account.token }), 'workspaceId');
      const read = await app.api('GET', `/forms/${plain.body.data[0].id}?_=1732612345678`, { token: account.token });
      assert.deepEqual(read.body, plain.body.data[0]);
    });

    it('refuses a cursor it did not issue or that was modified', async () => {
      const account = await createAccount(app);
      await insertForms(account.workspaceId, [Date.now() - 2000, Date.now() - 1000]);
      const path = `/forms?workspaceId=${account.workspaceId}`;
      const page = await app.api('GET', `${path}&limit=1`, { token: account.token });
      const cursor: string = page.body.nextCursor;
      assert.equal(typeof cursor, 'string');
      const flipped = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
      const formId: string = page.body.data[0].id;
      for (const bad of [flipped, 'abc', formId, Buffer.from(`${Date.now()}.${formId}`).toString('base64url')]) {
        assertValidation(app, await app.api('GET', `${path}&startingAfter=${encodeURIComponent(bad)}`, { token: account.token }), 'startingAfter');
      }
      const next = await app.api('GET', `${path}&startingAfter=${encodeURIComponent(cursor)}`, { token: account.token });
      assertJson(next, 200);
      assert.equal(next.body.data.length, 1);
    });

    it('answers not_found for another account’s workspace, exactly as for one that does not exist', async () => {
      const account = await createAccount(app);
      const paid = await createAccount(app);
      await createForm(app, paid, { name: 'Secret form' });
      const { account: free } = await formOnFreeWorkspace();
      const missingId = newId();
      const missing = await app.api('GET', `/forms?workspaceId=${missingId}`, { token: account.token });
      for (const other of [paid, free]) {
        const answer = await app.api('GET', `/forms?workspaceId=${other.workspaceId}`, { token: account.token });
        assertSameNotFound(app, answer, other.workspaceId, missing, missingId);
      }
    });

    it('answers upgrade_required with the workspaceId on a FREE workspace', async () => {
      const { account } = await formOnFreeWorkspace();
      const answer = await app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token: account.token });
      assertProblem(app, answer, 'upgrade_required', { workspaceId: account.workspaceId });
    });

    it('shows the team’s forms to a member with their own token', async () => {
      const owner = await createAccount(app);
      const form = await createForm(app, owner, FULL);
      const member = await createAccount(app, { plan: 'FREE' });
      const path = `/forms?workspaceId=${owner.workspaceId}`;
      assertProblem(app, await app.api('GET', path, { token: member.token }), 'not_found');
      await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
      const answer = await app.api('GET', path, { token: member.token });
      assertJson(answer, 200);
      assert.equal(answer.body.data.length, 1);
      assert.deepEqual(answer.body.data[0], form);
    });

    it('answers the auth matrix (forms:read)', async () => {
      const account = await createAccount(app);
      await assertAuthMatrix(app, account, { method: 'GET', path: `/forms?workspaceId=${account.workspaceId}`, scope: 'forms:read' });
    });
  });

  describe('GET /forms/{formId}', () => {
    it('answers the form with every field', async () => {
      const account = await createAccount(app);
      const created = await createForm(app, account, { name: 'Newsletter', ...FULL });
      const answer = await get(account, created.id);
      assertJson(answer, 200);
      await assertForm(answer.body, { name: 'Newsletter', workspaceId: account.workspaceId, ...FULL });
      assert.deepEqual(answer.body, created);
    });

    it('never returns a stored secret', async () => {
      const account = await createAccount(app);
      const form = await fullForm(account);
      await app.ctx.forms.setSecret(form.id, 'SLACK', 'xoxb-slack-token-value');
      const answer = await get(account, form.id);
      assertJson(answer, 200);
      await assertForm(answer.body, { name: 'Contact', workspaceId: account.workspaceId, ...FULL, spamProtection: 'TURNSTILE' });
      const text = JSON.stringify(answer.body);
      assert.ok(!text.includes('turnstile-secret-value') && !text.includes('xoxb-slack-token-value'));
    });

    it('answers not_found for another account’s form, exactly as for one that does not exist', async () => {
      const account = await createAccount(app);
      const paid = await createAccount(app);
      const paidForm = await createForm(app, paid, FULL);
      const { form: freeForm } = await formOnFreeWorkspace();
      const missingId = newId();
      const missing = await get(account, missingId);
      for (const form of [paidForm, freeForm]) {
        assertSameNotFound(app, await get(account, form.id), form.id, missing, missingId);
      }
    });

    it('answers upgrade_required with the workspaceId on a FREE workspace', async () => {
      const { account, form } = await formOnFreeWorkspace();
      assertProblem(app, await get(account, form.id), 'upgrade_required', { workspaceId: account.workspaceId });
    });

    it('shows a team form to a member with their own token', async () => {
      const owner = await createAccount(app);
      const form = await createForm(app, owner, FULL);
      const member = await createAccount(app, { plan: 'FREE' });
      assertProblem(app, await get(member, form.id), 'not_found');
      await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
      const answer = await get(member, form.id);
      assertJson(answer, 200);
      assert.deepEqual(answer.body, form);
    });

    it('answers the auth matrix (forms:read)', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      await assertAuthMatrix(app, account, { method: 'GET', path: `/forms/${form.id}`, scope: 'forms:read' });
    });
  });

  describe('PATCH /forms/{formId}', () => {
    it('changes only the fields present; omitted fields keep their values', async () => {
      const account = await createAccount(app);
      const form = await fullForm(account);
      const answer = await patch(account, form.id, { technology: 'Next.js' });
      assertJson(answer, 200);
      await assertForm(answer.body, { name: 'Contact', workspaceId: account.workspaceId, ...FULL, spamProtection: 'TURNSTILE', technology: 'Next.js' });
      assert.equal(answer.body.createdAt, form.createdAt);
      assert.deepEqual((await get(account, form.id)).body, answer.body);

      const every = {
        name: 'Renamed',
        description: 'New text',
        notificationEmails: ['new@example.net'],
        emailThreading: false,
        webhookUrl: 'https://hooks.example.net/in',
        slackChannel: '#support',
        customHoneypot: 'url',
        customSpamWords: 'crypto',
        allowedOrigins: ['https://example.net'],
        retentionDays: 7,
      };
      const all = await patch(account, form.id, every);
      assertJson(all, 200);
      await assertForm(all.body, { workspaceId: account.workspaceId, ...every, technology: 'Next.js', spamProtection: 'TURNSTILE' });
    });

    it('clears each nullable field with null, leaving the others', async () => {
      const account = await createAccount(app);
      for (const field of NULLABLE) {
        const form = await fullForm(account);
        const answer = await patch(account, form.id, { [field]: null });
        assertJson(answer, 200);
        await assertForm(answer.body, { name: 'Contact', workspaceId: account.workspaceId, ...FULL, spamProtection: 'TURNSTILE', [field]: null });
        assert.equal((await get(account, form.id)).body[field], null, `${field} stays cleared`);
      }
    });

    it('clears every nullable field at once', async () => {
      const account = await createAccount(app);
      const form = await fullForm(account);
      const answer = await patch(account, form.id, Object.fromEntries(NULLABLE.map((f) => [f, null])));
      assertJson(answer, 200);
      await assertForm(answer.body, {
        name: 'Contact',
        workspaceId: account.workspaceId,
        notificationEmails: FULL.notificationEmails,
        emailThreading: true,
        allowedOrigins: FULL.allowedOrigins,
      });
    });

    it('refuses name null (a form always has a name) and changes nothing', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account, FULL);
      assertValidation(app, await patch(account, form.id, { name: null }), 'name');
      assertValidation(app, await patch(account, form.id, { name: null, description: 'changed' }), 'name');
      assert.deepEqual((await get(account, form.id)).body, form);
    });

    it('replaces the whole notificationEmails list', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account, FULL);
      const replaced = await patch(account, form.id, { notificationEmails: ['third@example.net'] });
      assertJson(replaced, 200);
      assert.deepEqual(replaced.body.notificationEmails, ['third@example.net']);
      const added = await patch(account, form.id, { notificationEmails: [...replaced.body.notificationEmails, 'fourth@example.net'] });
      assert.deepEqual(added.body.notificationEmails, ['third@example.net', 'fourth@example.net']);
      const emptied = await patch(account, form.id, { notificationEmails: [] });
      assertJson(emptied, 200);
      assert.deepEqual(emptied.body.notificationEmails, []);
      assert.deepEqual((await get(account, form.id)).body.notificationEmails, []);
      const full = await patch(account, form.id, { notificationEmails: AT_LIMIT.notificationEmails });
      assertJson(full, 200);
      assert.deepEqual((await get(account, form.id)).body.notificationEmails, AT_LIMIT.notificationEmails);
    });

    it('turns emailThreading on and off', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      assert.equal(form.emailThreading, false);
      assert.equal((await patch(account, form.id, { emailThreading: true })).body.emailThreading, true);
      assert.equal((await get(account, form.id)).body.emailThreading, true);
      assert.equal((await patch(account, form.id, { emailThreading: false })).body.emailThreading, false);
      assert.equal((await get(account, form.id)).body.emailThreading, false);
    });

    it('answers 200 with the form unchanged for an empty body', async () => {
      const account = await createAccount(app);
      const form = await fullForm(account);
      const t = Date.now() - 60_000;
      await setTimes(form.id, t - 1000, t);
      const before = (await get(account, form.id)).body;
      const answer = await patch(account, form.id, {});
      assertJson(answer, 200);
      await assertForm(answer.body, { name: 'Contact', workspaceId: account.workspaceId, ...FULL, spamProtection: 'TURNSTILE' });
      assert.deepEqual(answer.body, before);
      assert.equal(answer.body.updatedAt, iso(t));
    });

    it('moves updatedAt on a real change and keeps createdAt', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      const t = Date.now() - 60_000;
      await setTimes(form.id, t);
      const answer = await patch(account, form.id, { name: 'Renamed' });
      assertJson(answer, 200);
      assert.equal(answer.body.createdAt, iso(t));
      assert.ok(Date.parse(answer.body.updatedAt) > t);
      assert.ok(Date.now() - Date.parse(answer.body.updatedAt) < 10_000);
      assert.equal(answer.body.name, 'Renamed');
      await assertForm(answer.body, { name: 'Renamed', workspaceId: account.workspaceId });
    });

    it('accepts a Form read from the API sent back whole: its own id and workspace, and any createdAt and updatedAt', async () => {
      const account = await createAccount(app);
      const form = await fullForm(account);
      const t = Date.now() - 60_000;
      await setTimes(form.id, t);
      const read = (await get(account, form.id)).body;

      const same = await patch(account, form.id, read);
      assertJson(same, 200);
      assert.deepEqual({ ...same.body, updatedAt: read.updatedAt }, read, 'nothing but updatedAt changes');

      const changed = await patch(account, form.id, { ...read, name: 'Renamed', createdAt: '2001-01-01T00:00:00.000Z', updatedAt: '2001-01-01T00:00:00Z' });
      assertJson(changed, 200);
      await assertForm(changed.body, { ...FULL, name: 'Renamed', workspaceId: account.workspaceId, spamProtection: 'TURNSTILE' });
      assert.equal(changed.body.createdAt, iso(t), 'createdAt sent back is ignored');
      assert.ok(Date.parse(changed.body.updatedAt) > t, 'updatedAt sent back is ignored');
      for (const field of ['id', 'workspaceId', 'createdAt', 'updatedAt']) {
        assertJson(await patch(account, form.id, { [field]: read[field] }), 200);
      }
    });

    it('refuses an id or workspaceId other than the form’s own, naming each, and moves nothing', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      const other = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Other' } });
      await app.ctx.workspaces.setPlan(other.body.id, 'BUNDLE_50000');
      const stranger = await createAccount(app);
      const otherForm = await createForm(app, account);
      for (const workspaceId of [other.body.id, stranger.workspaceId, 'nope']) {
        const answer = await patch(account, form.id, { workspaceId, name: 'Moved' });
        assertValidation(app, answer, 'workspaceId');
        assert.deepEqual(answer.body.errors, [`workspaceId: must be the form’s workspace (${account.workspaceId}): a form cannot move to another workspace`]);
      }
      assert.deepEqual((await patch(account, form.id, { id: otherForm.id, name: 'Other' })).body.errors, [
        `id: must be the form’s id (${form.id}), as in the path`,
      ]);
      assertValidation(app, await patch(account, form.id, { id: otherForm.id, workspaceId: other.body.id }), 'id', 'workspaceId');
      assert.deepEqual((await get(account, form.id)).body, form);
      // another account's form stays not found, whatever the body says
      assertProblem(app, await patch(stranger, form.id, { workspaceId: account.workspaceId }), 'not_found');
    });

    it('refuses unknown body fields, fields of other resources, and read-only fields of the wrong type', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      for (const [field, value] of [
        ['secret', 's'],
        ['color', 'red'],
        ['plan', 'DEALIFY'],
        ['ownerId', 'x'],
        ['formId', form.id],
        ['id', 5],
        ['workspaceId', null],
        ['createdAt', 'yesterday'],
        ['updatedAt', 1_700_000_000_000],
      ] as const) {
        assertValidation(app, await patch(account, form.id, { [field]: value }), field);
      }
      assert.deepEqual((await get(account, form.id)).body, form);
    });

    it('accepts every field at its limit', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      const answer = await patch(account, form.id, AT_LIMIT);
      assertJson(answer, 200);
      await assertForm(answer.body, { workspaceId: account.workspaceId, ...AT_LIMIT });
      for (const name of ['😀'.repeat(128), 'x']) {
        const renamed = await patch(account, form.id, { name });
        assertJson(renamed, 200);
        assert.equal(renamed.body.name, name);
      }
    });

    it('refuses each field one past its limit, naming it, and changes nothing', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account, FULL);
      for (const [field, value] of PAST_LIMIT) {
        assertValidation(app, await patch(account, form.id, { [field]: value }), field);
      }
      assert.deepEqual((await get(account, form.id)).body, form);
    });

    it('refuses values of the wrong type, naming the field, and changes nothing', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account, FULL);
      for (const [field, value] of WRONG_TYPES) {
        assertValidation(app, await patch(account, form.id, { [field]: value }), field);
      }
      assert.deepEqual((await get(account, form.id)).body, form);
    });

    it('refuses a body that is not a JSON object', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      assertProblem(app, await patch(account, form.id, ['name']), 'validation_error');
      assertProblem(app, await patch(account, form.id, 'Renamed'), 'validation_error');
      assert.deepEqual((await get(account, form.id)).body, form);
    });

    it('refuses a webhookUrl that is not http(s) or points at a non-public address, and keeps the old one', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account, FULL);
      for (const webhookUrl of REFUSED_WEBHOOKS) {
        const answer = await patch(account, form.id, { webhookUrl });
        assert.equal(answer.status, 400, `${webhookUrl} is refused, got ${answer.status}`);
        assertValidation(app, answer, 'webhookUrl');
      }
      assert.deepEqual((await get(account, form.id)).body, form);
    });

    it('replaces the whole allowedOrigins list, clears it with [], and refuses what is not an origin, keeping the old list', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account, FULL);
      for (const origin of REFUSED_ORIGINS) assertValidation(app, await patch(account, form.id, { allowedOrigins: [origin] }), 'allowedOrigins[0]');
      assert.deepEqual((await get(account, form.id)).body, form);
      const replaced = await patch(account, form.id, { allowedOrigins: ['https://shop.example.com'] });
      assertJson(replaced, 200);
      assert.deepEqual(replaced.body.allowedOrigins, ['https://shop.example.com']);
      assert.deepEqual((await get(account, form.id)).body.allowedOrigins, ['https://shop.example.com']);
      const cleared = await patch(account, form.id, { allowedOrigins: [] });
      assert.deepEqual(cleared.body.allowedOrigins, []);
      assert.deepEqual((await get(account, form.id)).body.allowedOrigins, []);
    });

    it('refuses the whole change when one setting is rejected', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account, FULL);
      assertValidation(app, await patch(account, form.id, { name: 'Renamed', webhookUrl: 'http://10.0.0.1/' }), 'webhookUrl');
      assertValidation(app, await patch(account, form.id, { name: 'Renamed', spamProtection: 'HCAPTCHA' }), 'spamProtection');
      assertValidation(app, await patch(account, form.id, { name: 'Renamed', description: 'd'.repeat(513) }), 'description');
      assertValidation(app, await patch(account, form.id, { name: 'Renamed', allowedOrigins: ['https://example.com/'] }), 'allowedOrigins[0]');
      assert.deepEqual((await get(account, form.id)).body, form);
    });

    it('accepts a public http(s) webhookUrl', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      for (const webhookUrl of ACCEPTED_WEBHOOKS) {
        const answer = await patch(account, form.id, { webhookUrl });
        assertJson(answer, 200);
        assert.equal(answer.body.webhookUrl, webhookUrl);
        assert.equal((await get(account, form.id)).body.webhookUrl, webhookUrl);
      }
    });

    it('accepts a spamProtection provider only once its secret is stored for this form', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      const sibling = await createForm(app, account, { name: 'Sibling' });
      for (const spamProtection of PROVIDERS) {
        assertValidation(app, await patch(account, form.id, { spamProtection }), 'spamProtection');
      }
      assert.equal((await get(account, form.id)).body.spamProtection, null);

      await app.ctx.forms.setSecret(form.id, 'TURNSTILE', 'secret');
      const on = await patch(account, form.id, { spamProtection: 'TURNSTILE' });
      assertJson(on, 200);
      await assertForm(on.body, { name: 'Contact', workspaceId: account.workspaceId, spamProtection: 'TURNSTILE' });
      // other providers still lack a secret, and the secret of one form does not serve another
      for (const spamProtection of PROVIDERS.filter((p) => p !== 'TURNSTILE')) {
        assertValidation(app, await patch(account, form.id, { spamProtection }), 'spamProtection');
      }
      assertValidation(app, await patch(account, sibling.id, { spamProtection: 'TURNSTILE' }), 'spamProtection');
      assert.equal((await get(account, form.id)).body.spamProtection, 'TURNSTILE');

      // a Slack token is a secret too, but SLACK is not a spam protection
      await app.ctx.forms.setSecret(form.id, 'SLACK', 'xoxb');
      assertValidation(app, await patch(account, form.id, { spamProtection: 'SLACK' }), 'spamProtection');

      const off = await patch(account, form.id, { spamProtection: null });
      assertJson(off, 200);
      assert.equal(off.body.spamProtection, null);
      assert.equal((await get(account, form.id)).body.spamProtection, null);
    });

    it('answers not_found for another account’s form, exactly as for one that does not exist, and changes nothing', async () => {
      const account = await createAccount(app);
      const paid = await createAccount(app);
      const paidForm = await createForm(app, paid, FULL);
      const { form: freeForm } = await formOnFreeWorkspace();
      const missingId = newId();
      const missing = await patch(account, missingId, { name: 'Hijacked' });
      for (const form of [paidForm, freeForm]) {
        assertSameNotFound(app, await patch(account, form.id, { name: 'Hijacked' }), form.id, missing, missingId);
        assert.equal((await formRow(form.id))?.name, 'Contact');
      }
    });

    it('answers upgrade_required with the workspaceId on a FREE workspace, and changes nothing', async () => {
      const { account, form } = await formOnFreeWorkspace();
      assertProblem(app, await patch(account, form.id, { name: 'Renamed' }), 'upgrade_required', { workspaceId: account.workspaceId });
      assertProblem(app, await patch(account, form.id, {}), 'upgrade_required', { workspaceId: account.workspaceId });
      assert.equal((await formRow(form.id))?.name, 'Contact');
    });

    it('lets a member change a team form with their own token', async () => {
      const owner = await createAccount(app);
      const form = await createForm(app, owner);
      const member = await createAccount(app, { plan: 'FREE' });
      await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
      const answer = await patch(member, form.id, { description: 'Edited by a teammate' });
      assertJson(answer, 200);
      await assertForm(answer.body, { name: 'Contact', workspaceId: owner.workspaceId, description: 'Edited by a teammate' });
    });

    it('answers the auth matrix (forms:write)', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      await assertAuthMatrix(app, account, { method: 'PATCH', path: `/forms/${form.id}`, scope: 'forms:write', body: { name: 'Matrix' } });
      assert.equal((await formRow(form.id))?.name, 'Contact');
    });
  });

  describe('DELETE /forms/{formId}', () => {
    it('answers 204 with no body; the form is gone', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account, FULL);
      const keep = await createForm(app, account, { name: 'Keep' });
      const answer = await del(account, form.id);
      assert.equal(answer.status, 204);
      assert.equal(answer.body, null);
      assert.equal(await formRow(form.id), undefined);
      assertProblem(app, await get(account, form.id), 'not_found');
      assertProblem(app, await patch(account, form.id, { name: 'Back?' }), 'not_found');
      assertProblem(app, await del(account, form.id), 'not_found');
      const list = await app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token: account.token });
      assert.deepEqual(
        list.body.data.map((f: any) => f.id),
        [keep.id],
      );
    });

    it('deletes the form’s submissions (every status) and secrets, and no other form’s', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      const other = await createForm(app, account, { name: 'Other' });
      for (const status of ['accepted', 'held', 'spam', 'accepted'] as const) await insertSubmission(form.id, account.workspaceId, status);
      const kept = [await insertSubmission(other.id, account.workspaceId, 'accepted')];
      await app.ctx.forms.setSecret(form.id, 'HCAPTCHA', 'secret');
      await app.ctx.forms.setSecret(other.id, 'HCAPTCHA', 'secret');
      assert.equal((await submissionIds(form.id)).length, 4);

      assert.equal((await del(account, form.id)).status, 204);
      assert.deepEqual(await submissionIds(form.id), []);
      assert.deepEqual(await submissionIds(other.id), kept);
      const secrets = await app.ctx.database.db.selectFrom('formSecrets').select('formId').execute();
      assert.ok(!secrets.some((s) => s.formId === form.id), 'the form’s secrets are gone');
      assert.ok(
        secrets.some((s) => s.formId === other.id),
        'another form’s secrets stay',
      );
      assertJson(await get(account, other.id), 200);
    });

    it('answers not_found for another account’s form, exactly as for one that does not exist, and deletes nothing', async () => {
      const account = await createAccount(app);
      const paid = await createAccount(app);
      const paidForm = await createForm(app, paid, FULL);
      const { form: freeForm } = await formOnFreeWorkspace();
      const missingId = newId();
      const missing = await del(account, missingId);
      for (const form of [paidForm, freeForm]) {
        assertSameNotFound(app, await del(account, form.id), form.id, missing, missingId);
        assert.ok(await formRow(form.id), 'the form still exists');
      }
    });

    it('answers upgrade_required with the workspaceId on a FREE workspace, and deletes nothing', async () => {
      const { account, form } = await formOnFreeWorkspace();
      const submission = await insertSubmission(form.id, account.workspaceId, 'accepted');
      assertProblem(app, await del(account, form.id), 'upgrade_required', { workspaceId: account.workspaceId });
      assert.ok(await formRow(form.id), 'the form still exists');
      assert.deepEqual(await submissionIds(form.id), [submission]);
    });

    it('lets a member delete a team form with their own token', async () => {
      const owner = await createAccount(app);
      const form = await createForm(app, owner);
      const member = await createAccount(app, { plan: 'FREE' });
      await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
      const answer = await del(member, form.id);
      assert.equal(answer.status, 204);
      assert.equal(answer.body, null);
      assert.equal(await formRow(form.id), undefined);
    });

    it('answers the auth matrix (forms:write), deleting nothing', async () => {
      const account = await createAccount(app);
      const form = await createForm(app, account);
      await assertAuthMatrix(app, account, { method: 'DELETE', path: `/forms/${form.id}`, scope: 'forms:write' });
      assert.ok(await formRow(form.id), 'the form still exists');
    });
  });
});
