import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { decodeEntities, elementText } from '../helpers/dashboard.js';
import {
  AIRTABLE_BASE,
  AIRTABLE_TOKEN,
  BREVO_KEY,
  type DestinationStandIns,
  LISTMONK_TOKEN,
  MAILCHIMP_KEY,
  NOTION_DATABASE,
  NOTION_TOKEN,
  SPREADSHEET_ID,
  startDestinationStandIns,
} from '../helpers/destination-stand-ins.js';
import { person, type Person } from '../helpers/members.js';
import { postJson } from '../helpers/submit.js';

describe(`dashboard: a form's destinations (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let services: DestinationStandIns;
  let owner: Person;
  let outsider: Person;

  before(async () => {
    services = await startDestinationStandIns();
    app = await startApp({ ...services.env, allowPrivateWebhooks: 'true' });
    owner = await person(app, 'owner');
    outsider = await person(app, 'outsider');
  });
  after(async () => {
    await app?.close();
    await services?.close();
  });

  const newForm = async (who: Person = owner, name = 'Contact') => (await app.ctx.forms.createForm(who.userId, who.workspaceId, { name })).id;
  const settingsOf = (formId: string) => `/forms/${formId}/settings`;
  const stored = (formId: string) => app.ctx.database.db.selectFrom('formDestinations').selectAll().where('formId', '=', formId).execute();

  /** Posts as the page's form does, follows the redirect, and says what the flash said. */
  async function postFollowing(who: Person, path: string, fields: Record<string, string> | [string, string][] = {}) {
    const answer = await who.client.post(path, fields);
    assert.equal(answer.status, 303, [...answer.html.matchAll(/class="(?:error|alert)"[^>]*>([^<]*)/g)].map((m) => m[1]).join(' | '));
    const page = await who.client.get(answer.location!);
    const flash = /<div class="flash" role="status">([\s\S]*?)<\/div>/.exec(page.html)?.[1];
    return {
      flash: flash === undefined ? undefined : decodeEntities(flash),
      html: page.html,
      location: answer.location!,
      path: answer.location!.replace(/#.*$/, ''),
    };
  }

  it('adds each kind from the Settings page; the secret is stored and never shown again, on any page', async () => {
    const formId = await newForm(owner, 'Leads');
    const settings = await owner.client.get(settingsOf(formId));
    assert.match(settings.html, /<h2 id="destinations-heading">Destinations<\/h2>/);
    assert.match(settings.html, /No destinations yet\./);
    const added = await postFollowing(owner, `${settingsOf(formId)}/destinations/airtable`, { baseId: AIRTABLE_BASE, table: 'Leads', secret: AIRTABLE_TOKEN });
    assert.match(added.location, new RegExp(`^/forms/${formId}/destinations/[\\w-]+#destination-settings$`));
    assert.equal(added.flash, 'Airtable destination added: each accepted submission is sent there. Check its field mapping below.');
    assert.match(added.html, /Stored; type a new one to replace it\./);
    await postFollowing(owner, `${settingsOf(formId)}/destinations/notion`, { databaseId: NOTION_DATABASE, secret: NOTION_TOKEN });
    const sheets = await postFollowing(owner, `${settingsOf(formId)}/destinations/google-sheets`, {
      spreadsheetId: `https://docs.google.com/spreadsheets/d/${SPREADSHEET_ID}/edit`,
      sheet: '',
      secret: services.serviceAccountJson,
    });
    // the address to share the sheet with
    assert.ok(
      sheets.html.includes(
        `Share the spreadsheet with <code class="destination-address">${services.serviceAccountEmail}</code> as Editor (Share, paste the address): that is who adds the rows.`,
      ),
    );
    await postFollowing(owner, `${settingsOf(formId)}/destinations/brevo`, { listId: '7', consentField: 'newsletter', secret: BREVO_KEY });
    await postFollowing(owner, `${settingsOf(formId)}/destinations/listmonk`, {
      url: services.listmonkUrl,
      username: 'formgate',
      listId: '3',
      consentField: 'newsletter',
      secret: LISTMONK_TOKEN,
    });
    const rows = await stored(formId);
    assert.deepEqual(rows.map((r) => r.kind).sort(), ['airtable', 'brevo', 'google-sheets', 'listmonk', 'notion']);
    const page = await owner.client.get(settingsOf(formId));
    const pages = [page.html, ...(await Promise.all(rows.map((r) => owner.client.get(`/forms/${formId}/destinations/${r.id}`)))).map((p) => p.html)];
    const privateKey = JSON.parse(services.serviceAccountJson).private_key as string;
    for (const html of pages) {
      for (const secret of [AIRTABLE_TOKEN, NOTION_TOKEN, BREVO_KEY, LISTMONK_TOKEN, privateKey.split('\n')[1]!, 'BEGIN PRIVATE KEY']) {
        assert.ok(!html.includes(secret), `a page shows ${secret.slice(0, 20)}…`);
      }
    }
    assert.match(page.html, /Sends to base appABCDEFGHIJ1234, table “Leads”\./);
    assert.match(page.html, /Nothing sent yet\./);
    // a sixth is refused, in plain words
    assert.match(page.html, /A form has at most 5 destinations: remove one to add another\./);
    const sixth = await owner.client.post(`${settingsOf(formId)}/destinations/mailchimp`, { listId: 'a1b2c3d4e5', consentField: 'n', secret: MAILCHIMP_KEY });
    assert.equal(sixth.status, 400);
    assert.match(sixth.html, /<div class="alert" role="alert">A form has at most 5 destinations: remove one first\.<\/div>/);
    assert.equal((await stored(formId)).length, 5);
  });

  it('refuses bad values beside their fields, in plain words, changes nothing, and never echoes the secret', async () => {
    const formId = await newForm(owner, 'Refusals');
    await owner.client.get(settingsOf(formId));
    const airtable = await owner.client.post(`${settingsOf(formId)}/destinations/airtable`, { baseId: 'base1', table: '', secret: 'my-SECRETISH-token' });
    assert.equal(airtable.status, 400);
    assert.equal(
      elementText(airtable.html, 'destination-add-airtable-baseId-error'),
      'A base id is app followed by 14 letters and digits, as in airtable.com/appXXXXXXXXXXXXXX/….',
    );
    assert.equal(elementText(airtable.html, 'destination-add-airtable-table-error'), 'Enter the table’s name as the base shows it, or its id (tbl…).');
    assert.match(elementText(airtable.html, 'destination-add-airtable-secret-error') ?? '', /^This is not a personal access token/);
    assert.match(airtable.html, /id="destination-add-airtable-baseId"[^>]*value="base1"/);
    assert.ok(!airtable.html.includes('SECRETISH'));
    const sheets = await owner.client.post(`${settingsOf(formId)}/destinations/google-sheets`, {
      spreadsheetId: SPREADSHEET_ID,
      secret: JSON.stringify({ type: 'authorized_user', client_email: 'x@example.com' }),
    });
    assert.equal(
      elementText(sheets.html, 'destination-add-google-sheets-secret-error'),
      'This is not a service account’s key: its "type" must be "service_account".',
    );
    const brevo = await owner.client.post(`${settingsOf(formId)}/destinations/brevo`, { listId: 'seven', consentField: '', secret: '' });
    assert.equal(elementText(brevo.html, 'destination-add-brevo-listId-error'), 'A list’s number is a whole number, as the list’s page shows it.');
    assert.equal(
      elementText(brevo.html, 'destination-add-brevo-consentField-error'),
      'Enter the name of the form’s checkbox that says the visitor wants the newsletter.',
    );
    assert.equal(elementText(brevo.html, 'destination-add-brevo-secret-error'), 'Enter the API key.');
    const unknown = await owner.client.post(`${settingsOf(formId)}/destinations/zapier`, { secret: 'x' });
    assert.equal(unknown.status, 404);
    assert.deepEqual(await stored(formId), []);
  });

  it('changes settings with the secret kept when left empty, and edits the field mapping with a row per known field', async () => {
    const formId = await newForm(owner, 'Mapping');
    await owner.client.get(settingsOf(formId));
    const added = await postFollowing(owner, `${settingsOf(formId)}/destinations/airtable`, { baseId: AIRTABLE_BASE, table: 'Leads', secret: AIRTABLE_TOKEN });
    const path = added.path;
    assert.match(added.html, /No submissions yet/);
    await postJson(app, formId, { name: 'Ada', email: 'ada@example.com', message: 'Hi' }, { localAddress: '127.0.7.1' });
    const page = await owner.client.get(path);
    assert.equal(elementText(page.html, 'destination-mapping-heading'), 'Field mapping');
    for (const [i, field] of ['name', 'email', 'message'].entries())
      assert.match(page.html, new RegExp(`id="mapping-${i}" name="to" type="text" value="${field}"`));

    const saved = await postFollowing(owner, path, { baseId: AIRTABLE_BASE, table: 'tblLeads0123456789', secret: '' });
    assert.equal(saved.flash, 'Airtable settings saved');
    const [row] = await stored(formId);
    assert.equal(row?.secret, AIRTABLE_TOKEN, 'an empty secret keeps the stored one');

    const mapped = await postFollowing(owner, `${path}/mapping`, [
      ['field', 'name'],
      ['to', 'Full name'],
      ['field', 'email'],
      ['to', 'email'],
      ['field', 'message'],
      ['to', ''],
    ]);
    assert.equal(mapped.flash, 'Field mapping saved: the next submissions are sent with it');
    assert.match(mapped.html, /id="mapping-0" name="to" type="text" value="Full name"/);
    assert.match(mapped.html, /id="mapping-2" name="to" type="text" value(="")? autocomplete/);

    const twice = await owner.client.post(`${path}/mapping`, [
      ['field', 'name'],
      ['to', 'email'],
      ['field', 'email'],
      ['to', 'email'],
    ]);
    assert.equal(twice.status, 400);
    assert.equal(elementText(twice.html, 'mapping-1-error'), '“name” is already sent as “email”: give each field its own name.');
  });

  it('sends a test at once (a record, or for a newsletter a read of the list) and says what the service answered', async () => {
    const formId = await newForm(owner, 'Tests');
    await owner.client.get(settingsOf(formId));
    const airtable = await postFollowing(owner, `${settingsOf(formId)}/destinations/airtable`, {
      baseId: AIRTABLE_BASE,
      table: 'Leads',
      secret: AIRTABLE_TOKEN,
    });
    const since = services.requests.length;
    // Airtable's own words come back
    services.next.airtable = [{ status: 422, body: { error: { type: 'UNKNOWN_FIELD_NAME', message: 'Unknown field name: "message"' } } }];
    const refused = await postFollowing(owner, `${airtable.path}/test`);
    assert.equal(
      refused.flash,
      'Test to Airtable not sent: Airtable refused the request to add a record to table “Leads” (422): Unknown field name: "message"',
    );
    await postJson(app, formId, { name: 'Ada', email: 'ada@example.com' }, { localAddress: '127.0.7.2' });
    const sent = await postFollowing(owner, `${airtable.path}/test`);
    assert.match(sent.flash ?? '', /^Test to Airtable sent \(HTTP 200\): record rec\d+; check that it arrived$/);
    assert.deepEqual(services.requests.at(-1)?.body.records[0].fields, { name: 'Ada', email: 'ada@example.com' });

    const brevo = await postFollowing(owner, `${settingsOf(formId)}/destinations/brevo`, { listId: '7', consentField: 'newsletter', secret: BREVO_KEY });
    const checked = await postFollowing(owner, `${brevo.path}/test`);
    assert.equal(checked.flash, 'Test to Brevo sent (HTTP 200): list “Newsletter”; check that it arrived');
    assert.equal(services.requests.at(-1)?.method, 'GET');
    assert.equal(services.requests.at(-1)?.path, '/brevo/v3/contacts/lists/7');
    assert.equal(services.requests.slice(since).filter((r) => r.service === 'brevo' && r.method === 'POST').length, 0, 'nobody signed up');
    // nothing went through the queue
    const jobs = await app.ctx.database.db
      .selectFrom('jobs')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select('jobs.kind')
      .where('submissions.formId', '=', formId)
      .execute();
    assert.equal(jobs.length, 1, 'only the submission’s own delivery');
    // the delivery log names it
    const log = await owner.client.get(`/forms/${formId}/deliveries`);
    assert.equal(log.status, 200);
    assert.match(log.html, /Airtable record/);
    assert.ok(!log.html.includes(AIRTABLE_TOKEN) && !log.html.includes(BREVO_KEY));
  });

  it('allows 10 tests an hour per account, then says when to try again', async () => {
    const tester = await person(app, 'tester');
    const formId = await newForm(tester, 'Limited');
    await tester.client.get(settingsOf(formId));
    const brevo = await postFollowing(tester, `${settingsOf(formId)}/destinations/brevo`, { listId: '7', consentField: 'newsletter', secret: BREVO_KEY });
    for (let i = 0; i < 10; i++) assert.match((await postFollowing(tester, `${brevo.path}/test`)).flash ?? '', /^Test to Brevo sent/);
    const before = services.requests.length;
    const refused = await postFollowing(tester, `${brevo.path}/test`);
    assert.match(refused.flash ?? '', /^No test sent: you have sent 10 tests in the last hour\. Try again in \d+ minutes?\.$/);
    assert.equal(services.requests.length, before);
  });

  it('removes a destination', async () => {
    const formId = await newForm(owner, 'Removing');
    await owner.client.get(settingsOf(formId));
    const added = await postFollowing(owner, `${settingsOf(formId)}/destinations/notion`, { databaseId: NOTION_DATABASE, secret: NOTION_TOKEN });
    const removed = await postFollowing(owner, `${added.path}/remove`);
    assert.equal(removed.flash, 'Notion destination removed: nothing more is sent there');
    assert.equal(removed.location, `${settingsOf(formId)}#destinations`);
    assert.deepEqual(await stored(formId), []);
    assert.equal((await owner.client.get(added.path)).status, 404);
  });

  it('gives an outsider the 404 page on every route, and changes or sends nothing', async () => {
    const formId = await newForm(owner, 'Private');
    await owner.client.get(settingsOf(formId));
    const added = await postFollowing(owner, `${settingsOf(formId)}/destinations/airtable`, { baseId: AIRTABLE_BASE, table: 'Leads', secret: AIRTABLE_TOKEN });
    const before = { requests: services.requests.length, stored: JSON.stringify(await stored(formId)) };
    await outsider.client.get(`/w/${outsider.workspaceId}`);
    assert.equal((await outsider.client.get(added.path)).status, 404);
    for (const [path, fields] of [
      [`${settingsOf(formId)}/destinations/airtable`, { baseId: AIRTABLE_BASE, table: 'Mine', secret: AIRTABLE_TOKEN }],
      [added.path, { baseId: AIRTABLE_BASE, table: 'Mine', secret: '' }],
      [`${added.path}/mapping`, { field: 'name', to: 'x' }],
      [`${added.path}/test`, {}],
      [`${added.path}/remove`, {}],
    ] as const) {
      const answer = await outsider.client.post(path, fields);
      assert.equal(answer.status, 404, path);
    }
    // a destination of one form is not reached through another form the outsider owns
    const theirs = await newForm(outsider, 'Theirs');
    const destinationId = added.path.split('/').at(-1)!;
    assert.equal((await outsider.client.get(`/forms/${theirs}/destinations/${destinationId}`)).status, 404);
    assert.equal((await outsider.client.post(`/forms/${theirs}/destinations/${destinationId}/remove`, {})).status, 404);
    assert.deepEqual({ requests: services.requests.length, stored: JSON.stringify(await stored(formId)) }, before);
    // without the CSRF token, the owner's own post is refused too
    const forged = await owner.client.post(`${added.path}/remove`, { _csrf: 'not-the-token' });
    assert.equal(forged.status, 403);
    assert.equal(JSON.stringify(await stored(formId)), before.stored);
  });
});
