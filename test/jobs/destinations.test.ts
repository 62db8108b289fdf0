import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fromJson } from '../../src/db/database.js';
import type { DeliveryError } from '../../src/domain/delivery-error.js';
import type { DestinationInput, DestinationKind } from '../../src/domain/destinations.js';
import type { Job } from '../../src/jobs/channels/channel.js';
import { forgetGoogleTokens } from '../../src/jobs/channels/destination-apis.js';
import { DestinationDelivery } from '../../src/jobs/channels/destinations.js';
import { destinationOf, laneOf } from '../../src/jobs/lanes.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import {
  AIRTABLE_BASE,
  AIRTABLE_TOKEN,
  BREVO_KEY,
  type DestinationStandIns,
  LISTMONK_TOKEN,
  LISTMONK_USER,
  MAILCHIMP_KEY,
  NOTION_DATABASE,
  NOTION_TOKEN,
  SPREADSHEET_ID,
  startDestinationStandIns,
} from '../helpers/destination-stand-ins.js';
import { until } from '../helpers/eventually.js';
import { type Account, createAccount, createForm } from '../helpers/fixtures.js';
import { postJson } from '../helpers/submit.js';

describe(`destinations: Airtable, Notion, Google Sheets, Brevo, listmonk, Mailchimp (${TEST_DIALECT})`, () => {
  let services: DestinationStandIns;
  let app: TestApp;
  let account: Account;
  let visitor = 0;
  const from = () => ({ localAddress: `127.0.8.${++visitor}` });

  before(async () => {
    services = await startDestinationStandIns();
    app = await startApp({ ...services.env, allowPrivateWebhooks: 'true', metrics: 'on' }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app?.close();
    await services?.close();
  });
  beforeEach(() => forgetGoogleTokens());

  const inputs = (): Record<DestinationKind, DestinationInput> => ({
    airtable: { baseId: AIRTABLE_BASE, table: 'Leads', secret: AIRTABLE_TOKEN },
    notion: { databaseId: `https://www.notion.so/team/Leads-${NOTION_DATABASE}?v=ffffffffffffffffffffffffffffffff`, secret: NOTION_TOKEN },
    'google-sheets': {
      spreadsheetId: `https://docs.google.com/spreadsheets/d/${SPREADSHEET_ID}/edit#gid=0`,
      sheet: 'Sheet1',
      secret: services.serviceAccountJson,
    },
    brevo: { listId: '7', consentField: 'newsletter', secret: BREVO_KEY },
    listmonk: { url: services.listmonkUrl, username: LISTMONK_USER, listId: '3', consentField: 'newsletter', secret: LISTMONK_TOKEN },
    mailchimp: { listId: 'a1b2c3d4e5', consentField: 'newsletter', secret: MAILCHIMP_KEY },
  });

  async function formWith(kind: DestinationKind, name = `To ${kind}`, input: Partial<DestinationInput> = {}) {
    const form = await createForm(app, account, { name });
    const id = await app.ctx.destinations.addForMember(account.userId, form.id, kind, { ...inputs()[kind], ...input });
    return { formId: form.id as string, destinationId: id };
  }

  const jobsOf = (submissionId: string) =>
    app.ctx.database.db.selectFrom('jobs').selectAll().where('submissionId', '=', submissionId).orderBy('kind').execute();
  const requestsTo = (service: string, since: number) => services.requests.slice(since).filter((r) => r.service === service);
  const finished = (submissionId: string) => until('delivered', async () => (await jobsOf(submissionId)).every((j) => j.status !== 'pending'));

  it('adds an Airtable record per submission: POST /v0/{base}/{table}, the token as Bearer, typecast, fields by the mapping', async () => {
    const { formId, destinationId } = await formWith('airtable', 'Leads');
    const since = services.requests.length;
    const answer = await postJson(app, formId, { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello & welcome' }, from());
    assert.equal(answer.status, 200);
    const [job] = await jobsOf(answer.body.id);
    assert.equal(job?.kind, 'airtable');
    // the job names the destination only: the token stays in its row, read when sent
    assert.deepEqual(fromJson(job!.payload), { destinationId, formId });
    await finished(answer.body.id);
    const [request] = requestsTo('airtable', since);
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, `/airtable/v0/${AIRTABLE_BASE}/Leads`);
    assert.equal(request?.headers.authorization, `Bearer ${AIRTABLE_TOKEN}`);
    assert.match(String(request?.headers['content-type']), /^application\/json/);
    assert.deepEqual(request?.body, { records: [{ fields: { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello & welcome' } }], typecast: true });
    const [record] = await app.ctx.deliveries.forSubmission(answer.body.id);
    assert.equal(record?.status, 'done');
    assert.equal(record?.tries[0]?.statusCode, 200);
    assert.match(record?.tries[0]?.response ?? '', /^record rec\d+$/);
    const view = await app.ctx.destinations.getForMember(account.userId, formId, destinationId);
    assert.equal(view.lastStatus, 'ok');

    // a mapping renames a field and leaves another out
    services.airtableTables.Leads!.push('Full name');
    await app.ctx.destinations.setMappingForMember(account.userId, formId, destinationId, [
      { field: 'name', to: 'Full name' },
      { field: 'phone', to: '' },
    ]);
    const mapped = await postJson(app, formId, { name: 'Grace', phone: '555', email: 'grace@example.com' }, from());
    await finished(mapped.body.id);
    assert.deepEqual(requestsTo('airtable', since).at(-1)?.body.records[0].fields, { 'Full name': 'Grace', email: 'grace@example.com' });
  });

  it('fails at once on a 4xx (an unknown field, a bad token), the service’s words in the log; the destination shows it', async () => {
    const { formId, destinationId } = await formWith('airtable', 'Refused');
    const answer = await postJson(app, formId, { name: 'Alan', phone: '0123' }, from());
    await until('failed', async () => (await jobsOf(answer.body.id))[0]?.status === 'failed');
    const [record] = await app.ctx.deliveries.forSubmission(answer.body.id);
    assert.equal(record?.tries.length, 1);
    assert.equal(record?.tries[0]?.statusCode, 422);
    assert.equal(record?.tries[0]?.error, 'Airtable refused the request to add a record to table “Leads” (422): Unknown field name: "phone"');
    const view = await app.ctx.destinations.getForMember(account.userId, formId, destinationId);
    assert.equal(view.lastStatus, 'failed');
    assert.match(view.lastError ?? '', /Unknown field name/);

    await app.ctx.database.db
      .updateTable('formDestinations')
      .set({ secret: 'patWrong0000000.aaaaaaaaaaaaaaaaaaaaaaaa' })
      .where('id', '=', destinationId)
      .execute();
    const unauthorised = await postJson(app, formId, { name: 'Kurt' }, from());
    await until('failed', async () => (await jobsOf(unauthorised.body.id))[0]?.status === 'failed');
    const [denied] = await app.ctx.deliveries.forSubmission(unauthorised.body.id);
    assert.equal(
      denied?.tries[0]?.error,
      'Airtable refused the request to add a record to table “Leads” (401): Authentication required: check the token or key stored for it on the form’s Settings page',
    );
    assert.ok(!JSON.stringify(denied).includes('patWrong'), 'no token in the log');
  });

  it('retries a 429 no sooner than its Retry-After and the webhook schedule, and a 5xx; then delivers', async () => {
    const { formId } = await formWith('airtable', 'Limited');
    services.next.airtable = [
      {
        status: 429,
        body: { errors: [{ error: 'RATE_LIMIT_REACHED', message: 'Rate limit exceeded. Please try again later' }] },
        headers: { 'retry-after': '2' },
      },
    ];
    const since = services.requests.length;
    const answer = await postJson(app, formId, { name: 'Barbara' }, from());
    await until('tried once', async () => (await jobsOf(answer.body.id))[0]?.lastError != null);
    const [job] = await jobsOf(answer.body.id);
    assert.equal(job?.status, 'pending');
    assert.match(job?.lastError ?? '', /^Airtable answered 429, too many requests \(Retry-After: asked to wait 2 s\)/);
    // the webhook schedule's first wait (5 s, give or take 10%) is longer than the 2 s asked
    assert.ok(Number(job!.runAt) - Date.now() > 3_500, `runAt ${job!.runAt}`);
    await until('delivered on the second try', async () => (await jobsOf(answer.body.id))[0]?.status === 'done', 15_000);
    assert.equal(requestsTo('airtable', since).length, 2);

    services.next.airtable = [{ status: 503, body: 'Service Unavailable' }];
    const second = await postJson(app, formId, { name: 'Edsger' }, from());
    await until('tried once', async () => (await jobsOf(second.body.id))[0]?.lastError != null);
    const [retrying] = await jobsOf(second.body.id);
    assert.equal(retrying?.status, 'pending');
    assert.match(retrying?.lastError ?? '', /^Airtable could not take the request to add a record to table “Leads” \(503\)/);
    await app.ctx.database.db.updateTable('jobs').set({ runAt: Date.now() }).where('id', '=', retrying!.id).execute();
    await until('delivered', async () => (await jobsOf(second.body.id))[0]?.status === 'done');
  });

  it('adds a Notion page: reads the database, makes a text property for each new field, the title from the sender', async () => {
    const { formId } = await formWith('notion', 'Notion');
    const since = services.requests.length;
    const answer = await postJson(app, formId, { name: 'Ada', email: 'ada@example.com', message: 'Hi', budget: 1200 }, from());
    await finished(answer.body.id);
    const calls = requestsTo('notion', since);
    assert.deepEqual(
      calls.map((c) => `${c.method} ${c.path}`),
      [
        'GET /notion/v1/databases/01234567-89ab-cdef-0123-456789abcdef',
        'PATCH /notion/v1/databases/01234567-89ab-cdef-0123-456789abcdef',
        'POST /notion/v1/pages',
      ],
    );
    for (const call of calls) {
      assert.equal(call.headers['notion-version'], '2022-06-28');
      assert.equal(call.headers.authorization, `Bearer ${NOTION_TOKEN}`);
    }
    assert.deepEqual(calls[1]?.body, { properties: { message: { rich_text: {} }, budget: { rich_text: {} } } });
    assert.deepEqual(calls[2]?.body, {
      parent: { database_id: '01234567-89ab-cdef-0123-456789abcdef' },
      properties: {
        // `name` is the database's `Name` (its title), told apart by case only
        Name: { title: [{ type: 'text', text: { content: 'Ada' } }] },
        email: { email: 'ada@example.com' },
        message: { rich_text: [{ type: 'text', text: { content: 'Hi' } }] },
        budget: { rich_text: [{ type: 'text', text: { content: '1200' } }] },
      },
    });
    const [record] = await app.ctx.deliveries.forSubmission(answer.body.id);
    assert.equal(record?.status, 'done');

    // the properties exist now: no change to the database the second time; the title from the address when no name
    const again = await postJson(app, formId, { email: 'bob@example.com', message: 'Again' }, from());
    await finished(again.body.id);
    const second = requestsTo('notion', since).slice(3);
    assert.deepEqual(
      second.map((c) => c.method),
      ['GET', 'POST'],
    );
    assert.deepEqual(second[1]?.body.properties.Name, { title: [{ type: 'text', text: { content: 'bob@example.com' } }] });
  });

  it('fails a Notion delivery for good when the database is not shared (404), retries a 429', async () => {
    const { formId, destinationId } = await formWith('notion', 'Notion errors');
    services.next.notion = [
      {
        status: 404,
        body: {
          object: 'error',
          status: 404,
          code: 'object_not_found',
          message: 'Could not find database with ID: x. Make sure the relevant pages and databases are shared with your integration.',
        },
      },
    ];
    const answer = await postJson(app, formId, { name: 'Ada' }, from());
    await until('failed', async () => (await jobsOf(answer.body.id))[0]?.status === 'failed');
    const [record] = await app.ctx.deliveries.forSubmission(answer.body.id);
    assert.match(record?.tries[0]?.error ?? '', /^Notion refused the request to read the database .*\(404\): Could not find database/);
    const channel = new DestinationDelivery(app.ctx.database, { outbound: app.ctx.outbound, apis: app.ctx.config.destinationApis }, null);
    const job: Job = { id: 'n', kind: 'notion', payload: { destinationId, formId }, attempt: 1, submissionId: answer.body.id, idempotencyKey: 'n' };
    services.next.notion = [
      { status: 429, body: { object: 'error', status: 429, code: 'rate_limited', message: 'You have been rate limited.' }, headers: { 'retry-after': '3' } },
    ];
    await assert.rejects(channel.send(job), (err: DeliveryError) => !err.permanent && err.statusCode === 429 && err.retryAfterMs === 3000);
    services.next.notion = [{ status: 502, body: '<html>Bad gateway</html>' }];
    await assert.rejects(channel.send(job), (err: DeliveryError) => !err.permanent && err.statusCode === 502);
  });

  it('appends a Google Sheets row as the service account: signed JWT, token kept, header row matched, a column for each new field', async () => {
    services.sheets.Sheet1 = [['Name', 'email']];
    const { formId } = await formWith('google-sheets', 'Sheets');
    const since = services.requests.length;
    const tokensBefore = services.tokensIssued;
    const answer = await postJson(app, formId, { name: 'Ada', email: 'ada@example.com', message: '=HYPERLINK("http://evil.example","x")' }, from());
    await finished(answer.body.id);
    const calls = requestsTo('google', since);
    assert.deepEqual(
      calls.map((c) => `${c.method} ${decodeURIComponent(c.path)}`),
      [
        'POST /google/token',
        `GET /google/v4/spreadsheets/${SPREADSHEET_ID}/values/'Sheet1'!1:1`,
        `PUT /google/v4/spreadsheets/${SPREADSHEET_ID}/values/'Sheet1'!C1:C1?valueInputOption=RAW`,
        `POST /google/v4/spreadsheets/${SPREADSHEET_ID}/values/'Sheet1'!A1:append?valueInputOption=RAW&insertDataOption=INSERT_ROWS`,
      ],
    );
    assert.equal(calls[0]?.body.grant_type, 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    assert.match(String(calls[0]?.headers['content-type']), /^application\/x-www-form-urlencoded/);
    for (const call of calls.slice(1)) assert.match(String(call.headers.authorization), /^Bearer ya29\.standin-/);
    assert.deepEqual(calls[2]?.body, { range: "'Sheet1'!C1:C1", majorDimension: 'ROWS', values: [['message']] });
    // the formula is sent as it was typed, RAW: Google stores it as text
    assert.deepEqual(calls[3]?.body, { majorDimension: 'ROWS', values: [['Ada', 'ada@example.com', '=HYPERLINK("http://evil.example","x")']] });
    assert.deepEqual(services.sheets.Sheet1, [
      ['Name', 'email', 'message'],
      ['Ada', 'ada@example.com', '=HYPERLINK("http://evil.example","x")'],
    ]);
    const [record] = await app.ctx.deliveries.forSubmission(answer.body.id);
    assert.equal(record?.tries[0]?.response, 'row Sheet1!A2:C2');

    const again = await postJson(app, formId, { email: 'bob@example.com', name: 'Bob' }, from());
    await finished(again.body.id);
    assert.equal(services.tokensIssued, tokensBefore + 1, 'the access token is kept for the next row');
    assert.deepEqual(
      requestsTo('google', since)
        .slice(4)
        .map((c) => c.method),
      ['GET', 'POST'],
    );
    assert.deepEqual(services.sheets.Sheet1?.at(-1), ['Bob', 'bob@example.com', '']);
  });

  it('fails a Sheets delivery for good when the sheet is not shared (403)', async () => {
    const { formId } = await formWith('google-sheets', 'Unshared', { spreadsheetId: '1ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ' });
    const answer = await postJson(app, formId, { name: 'Ada' }, from());
    await until('failed', async () => (await jobsOf(answer.body.id))[0]?.status === 'failed');
    const [record] = await app.ctx.deliveries.forSubmission(answer.body.id);
    assert.match(
      record?.tries[0]?.error ?? '',
      /^Google Sheets refused the request to read the header row of “Sheet1” .*\(403\): The caller does not have permission/,
    );
  });

  for (const kind of ['brevo', 'listmonk', 'mailchimp'] as const) {
    it(`signs up a ${kind} subscriber only when the consent field is ticked; already on the list counts as done`, async () => {
      const { formId } = await formWith(kind, `News ${kind}`);
      const since = services.requests.length;
      const unticked = await postJson(app, formId, { name: 'Ada', email: 'ada@example.com' }, from());
      await finished(unticked.body.id);
      const [skipped] = await app.ctx.deliveries.forSubmission(unticked.body.id);
      assert.equal(skipped?.status, 'done');
      assert.equal(skipped?.tries[0]?.response, 'not subscribed: consent not given');
      const no = await postJson(app, formId, { name: 'Ada', email: 'ada@example.com', newsletter: 'no' }, from());
      await finished(no.body.id);
      assert.equal(requestsTo(kind, since).length, 0, 'nothing sent without consent');

      const ticked = await postJson(app, formId, { name: 'Ada Lovelace', email: `ada-${kind}@example.com`, newsletter: 'on' }, from());
      await finished(ticked.body.id);
      const [request] = requestsTo(kind, since);
      assert.equal(request?.method, 'POST');
      if (kind === 'brevo') {
        assert.equal(request?.path, '/brevo/v3/contacts');
        assert.equal(request?.headers['api-key'], BREVO_KEY);
        assert.deepEqual(request?.body, { email: 'ada-brevo@example.com', listIds: [7], updateEnabled: true });
      } else if (kind === 'listmonk') {
        assert.equal(request?.path, '/listmonk/api/subscribers');
        assert.equal(request?.headers.authorization, `Basic ${Buffer.from(`${LISTMONK_USER}:${LISTMONK_TOKEN}`).toString('base64')}`);
        assert.deepEqual(request?.body, { email: 'ada-listmonk@example.com', name: 'Ada Lovelace', status: 'enabled', lists: [3], attribs: {} });
      } else {
        assert.equal(request?.path, '/mailchimp/3.0/lists/a1b2c3d4e5/members');
        const [user, key] = Buffer.from(String(request?.headers.authorization).replace(/^Basic /, ''), 'base64')
          .toString()
          .split(':');
        assert.ok(user);
        assert.equal(key, MAILCHIMP_KEY);
        assert.deepEqual(request?.body, { email_address: 'ada-mailchimp@example.com', status: 'pending' });
      }
      const [signed] = await app.ctx.deliveries.forSubmission(ticked.body.id);
      assert.equal(signed?.status, 'done');
      assert.equal(signed?.tries[0]?.response, `subscribed ada-${kind}@example.com`);

      const twice = await postJson(app, formId, { email: `ada-${kind}@example.com`, newsletter: 'yes' }, from());
      await finished(twice.body.id);
      const [again] = await app.ctx.deliveries.forSubmission(twice.body.id);
      assert.equal(again?.status, 'done');
      assert.equal(again?.tries[0]?.response, kind === 'brevo' ? 'subscribed ada-brevo@example.com' : 'already on the list');
    });
  }

  it('fails a newsletter sign-up for good on bad credentials, and retries a 5xx', async () => {
    const { formId, destinationId } = await formWith('listmonk', 'Bad listmonk', { secret: 'wrong-token' });
    const answer = await postJson(app, formId, { email: 'x@example.com', newsletter: 'on' }, from());
    await until('failed', async () => (await jobsOf(answer.body.id))[0]?.status === 'failed');
    const [record] = await app.ctx.deliveries.forSubmission(answer.body.id);
    assert.match(record?.tries[0]?.error ?? '', /^listmonk refused the request to add x@example\.com to list 3 \(403\): Invalid API credentials/);
    const channel = new DestinationDelivery(app.ctx.database, { outbound: app.ctx.outbound, apis: app.ctx.config.destinationApis }, null);
    const job: Job = { id: 'b', kind: 'listmonk', payload: { destinationId, formId }, attempt: 1, submissionId: answer.body.id, idempotencyKey: 'b' };
    services.next.listmonk = [{ status: 500, body: { message: 'database error' } }];
    await assert.rejects(channel.send(job), (err: DeliveryError) => !err.permanent && err.statusCode === 500 && /database error/.test(err.message));
  });

  it('reads the destination when sent: a removed one sends nothing, for good; removed with its form', async () => {
    const { formId, destinationId } = await formWith('brevo', 'Removed');
    const answer = await postJson(app, formId, { email: 'r@example.com', newsletter: 'on' }, from());
    await finished(answer.body.id);
    assert.equal(await app.ctx.destinations.removeForMember(account.userId, formId, destinationId), true);
    const channel = new DestinationDelivery(app.ctx.database, { outbound: app.ctx.outbound, apis: app.ctx.config.destinationApis }, null);
    const job: Job = { id: 'r', kind: 'brevo', payload: { destinationId, formId }, attempt: 1, submissionId: answer.body.id, idempotencyKey: 'r' };
    await assert.rejects(channel.send(job), (err: DeliveryError) => err.permanent && err.message === 'not sent: the form’s Brevo destination was removed');
    // and the next submission gets no job at all (the intake's copy of the form was dropped)
    const later = await postJson(app, formId, { email: 'later@example.com', newsletter: 'on' }, from());
    assert.deepEqual(await jobsOf(later.body.id), []);

    const kept = await formWith('airtable', 'Deleted form');
    await app.ctx.forms.deleteForm(account.userId, kept.formId);
    const rows = await app.ctx.database.db.selectFrom('formDestinations').select('id').where('formId', '=', kept.formId).execute();
    assert.deepEqual(rows, []);
  });

  it('a destination added after the form took submissions gets the next one (intake reads it afresh)', async () => {
    const form = await createForm(app, account, { name: 'Added later' });
    const first = await postJson(app, form.id, { name: 'One' }, from());
    assert.deepEqual(await jobsOf(first.body.id), []);
    await app.ctx.destinations.addForMember(account.userId, form.id, 'airtable', inputs().airtable);
    const second = await postJson(app, form.id, { name: 'Two' }, from());
    assert.deepEqual(
      (await jobsOf(second.body.id)).map((j) => j.kind),
      ['airtable'],
    );
  });

  it('sends a submission marked not spam to the destinations, as an accepted one', async () => {
    const form = await createForm(app, account, { name: 'Spam words', customSpamWords: 'casino' });
    await app.ctx.destinations.addForMember(account.userId, form.id, 'airtable', inputs().airtable);
    const spam = await postJson(app, form.id, { name: 'Casino fan', message: 'casino casino' }, from());
    assert.deepEqual(await jobsOf(spam.body.id), []);
    await app.ctx.spamVerdicts.markNotSpam(account.userId, spam.body.id);
    assert.deepEqual(
      (await jobsOf(spam.body.id)).map((j) => j.kind),
      ['airtable'],
    );
  });

  it('sends a held submission to the destinations when an upgrade releases it', async () => {
    const held = await createAccount(app);
    const form = await createForm(app, held, { name: 'Held' });
    await app.ctx.destinations.addForMember(held.userId, form.id, 'airtable', inputs().airtable);
    await app.ctx.workspaces.setPlan(held.workspaceId, 'FREE', { tellOwners: false });
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', held.workspaceId).execute();
    const answer = await postJson(app, form.id, { name: 'Held back' }, from());
    const row = await app.ctx.database.db.selectFrom('submissions').select('status').where('id', '=', answer.body.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'held');
    assert.deepEqual(await jobsOf(answer.body.id), []);
    await app.ctx.workspaces.setPlan(held.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    assert.deepEqual(
      (await jobsOf(answer.body.id)).map((j) => j.kind),
      ['airtable'],
    );
    await finished(answer.body.id);
  });

  it('rides the webhook lane, one destination per service (listmonk: per destination), counted in /metrics', async () => {
    assert.equal(laneOf('airtable'), 'webhook');
    assert.equal(laneOf('google-sheets'), 'webhook');
    assert.equal(destinationOf('airtable', { destinationId: 'd1' }), 'https://api.airtable.com');
    assert.equal(destinationOf('notion', { destinationId: 'd1' }), 'https://api.notion.com');
    assert.equal(destinationOf('listmonk', { destinationId: 'd1' }), 'listmonk:d1');
    const scraped = await app.fetch('GET', `${app.publicUrl}/metrics`);
    const value = (series: string) =>
      Number(
        String(scraped.body)
          .split('\n')
          .find((line) => line.startsWith(`${series} `))
          ?.slice(series.length + 1) ?? 0,
      );
    for (const kind of ['airtable', 'notion', 'google-sheets', 'brevo', 'listmonk', 'mailchimp'])
      assert.ok(value(`formgate_deliveries_total{channel="${kind}",outcome="sent"}`) >= 1, kind);
    assert.ok(value('formgate_deliveries_total{channel="airtable",outcome="failed"}') >= 1);
    assert.ok(value('formgate_deliveries_total{channel="airtable",outcome="retried"}') >= 1);
  });
});
