import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { csvRecords, download, insertMany, insertSubmission } from '../helpers/export.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem, assertSameNotFound, assertValidation } from '../helpers/problems.js';

const DAY = 86_400_000;

describe('submissions export API', () => {
  let app: TestApp;
  let owner: Account;
  let form: any;
  const t0 = Date.parse('2026-03-01T10:00:00Z');
  const ids: Record<string, string> = {};

  const exportOf = (query: string, token = owner.token, formId = form.id) =>
    download(`${app.baseUrl}/forms/${formId}/submissions/export?${query}`, { authorization: `Bearer ${token}` });
  const iso = (ms: number) => new Date(ms).toISOString();

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    form = await createForm(app, owner, { name: 'Contact us: Zoë' });
    ids.ann = await insertSubmission(app, form, { name: 'Ann', message: 'a, "quoted"\r\nsecond\nline', address: { city: 'Oslo', zip: '0150' } }, t0);
    ids.bob = await insertSubmission(
      app,
      form,
      {
        name: '=HYPERLINK("http://evil")',
        tags: ['red', 'blue'],
        items: [{ sku: 'A1' }, { sku: 'B2', size: 'L' }],
        '@field': '-5',
        count: -5,
        agree: true,
        phone: '+44 20 7946 0000',
        note: null,
      },
      t0 + DAY,
    );
    ids.cay = await insertSubmission(app, form, { name: 'Cay 北京', message: 'tab\tinside' }, t0 + 2 * DAY);
    await insertSubmission(app, form, { name: 'Spam' }, t0 + 3 * DAY, 'spam');
    await insertSubmission(app, form, { name: 'Held' }, t0 + 4 * DAY, 'held');
  });
  after(() => app.close());

  it('exports CSV: BOM, CRLF, RFC 4180 quoting, a column per flattened field, formulas escaped, newest first, accepted only', async () => {
    const answer = await exportOf('format=csv');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'text/csv; charset=utf-8; header=present');
    const day = new Date().toISOString().slice(0, 10);
    assert.equal(
      answer.headers.get('content-disposition'),
      `attachment; filename="contact-us-zoe-submissions-${day}.csv"; filename*=UTF-8''contact-us-zo%C3%AB-submissions-${day}.csv`,
    );
    // quoting, exactly as written: the CRLF and LF inside a value are quoted, not record ends
    assert.ok(answer.text.includes(`,"a, ""quoted""\r\nsecond\nline",`), answer.text);
    const [header, ...rows] = csvRecords(answer.text);
    assert.deepEqual(header, [
      'id',
      'createdAt',
      'formId',
      'name',
      'message',
      'tags',
      'items[0].sku',
      'items[1].sku',
      'items[1].size',
      "'@field",
      'count',
      'agree',
      'phone',
      'note',
      'address.city',
      'address.zip',
    ]);
    const byName = rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]])));
    assert.deepEqual(
      byName.map((row) => row.id),
      [ids.cay, ids.bob, ids.ann],
    );
    assert.deepEqual(byName[1], {
      id: ids.bob,
      createdAt: iso(t0 + DAY),
      formId: form.id,
      name: `'=HYPERLINK("http://evil")`,
      message: '',
      tags: 'red, blue',
      'items[0].sku': 'A1',
      'items[1].sku': 'B2',
      'items[1].size': 'L',
      "'@field": "'-5",
      count: '-5',
      agree: 'true',
      phone: "'+44 20 7946 0000",
      note: '',
      'address.city': '',
      'address.zip': '',
    });
    assert.equal(byName[2]!.message, 'a, "quoted"\r\nsecond\nline');
    assert.equal(byName[2]!['address.city'], 'Oslo');
    assert.equal(byName[2]!['address.zip'], '0150');
    assert.equal(byName[0]!.name, 'Cay 北京');
    assert.equal(byName[0]!.message, 'tab\tinside');
  });

  it('quotes formulas behind invisible characters too: space, no-break space, line feed, BOM, zero-width space', async () => {
    const hidden = await createForm(app, owner, { name: 'Hidden formulas' });
    const data = {
      space: ' =1+1',
      nbsp: '\u00a0+1',
      lineFeed: '\n-1',
      bom: '\ufeff@SUM(A1)',
      zeroWidth: '\u200b=HYPERLINK("http://evil")',
      ideographic: '\u3000\u2060=1',
      plain: ' just text',
      ' =name': 'x',
    };
    await insertSubmission(app, hidden, data, t0);
    const [header, row] = csvRecords((await exportOf('format=csv', owner.token, hidden.id)).text);
    const cells = Object.fromEntries(header!.map((name, i) => [name, row![i]]));
    for (const name of ['space', 'nbsp', 'lineFeed', 'bom', 'zeroWidth', 'ideographic']) {
      assert.equal(cells[name], `'${data[name as keyof typeof data]}`, name);
    }
    assert.equal(cells.plain, ' just text');
    assert.equal(cells["' =name"], 'x', 'a header cell is quoted the same way');
  });

  it('exports JSON: an array of the API’s Submission resources, data as stored, the same as the list', async () => {
    const answer = await exportOf('format=json');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.match(answer.headers.get('content-disposition') ?? '', /filename="contact-us-zoe-submissions-\d{4}-\d{2}-\d{2}\.json"/);
    assert.ok(answer.text.endsWith(']\n'));
    const list = await app.api('GET', `/forms/${form.id}/submissions`, { token: owner.token });
    assert.deepEqual(JSON.parse(answer.text), list.body.data);
    assert.equal(JSON.parse(answer.text)[1].data.count, -5);
  });

  it('filters by search and by from (inclusive) and to (exclusive), as the list does', async () => {
    const idsOf = async (query: string) => JSON.parse((await exportOf(`format=json&${query}`)).text).map((s: any) => s.id);
    for (const stage of ['stored', 'indexed']) {
      if (stage === 'indexed') await new SearchIndexer(app.ctx.database).indexAll();
      assert.deepEqual(await idsOf('search=OSLO'), [ids.ann], stage);
      assert.deepEqual(await idsOf(`search=oslo&to=${iso(t0)}`), [], stage);
    }
    assert.deepEqual(await idsOf(`from=${iso(t0 + DAY)}`), [ids.cay, ids.bob]);
    assert.deepEqual(await idsOf(`from=${iso(t0)}&to=${iso(t0 + DAY)}`), [ids.ann]);
    assert.deepEqual(await idsOf(`to=${encodeURIComponent('2026-03-02T11:00:00.000+01:00')}`), [ids.ann]);
    const csv = csvRecords((await exportOf(`format=csv&search=${encodeURIComponent('北京')}`)).text);
    assert.deepEqual(
      csv.map((row) => row[0]),
      ['id', ids.cay],
    );
    assert.deepEqual(csv[0], ['id', 'createdAt', 'formId', 'name', 'message'], 'columns of the filtered set only');
  });

  it('exports an empty set as a header alone, or []', async () => {
    const none = `from=${iso(t0 + 10 * DAY)}`;
    assert.equal((await exportOf(`format=csv&${none}`)).text, '\uFEFFid,createdAt,formId\r\n');
    assert.equal((await exportOf(`format=json&${none}`)).text, '[]\n');
  });

  it('refuses a missing or unknown format, a bad time and an empty range: 400 validation_error; ignores unknown parameters; HEAD is 405', async () => {
    const problem = async (query: string) => {
      const answer = await exportOf(query);
      return { status: answer.status, headers: answer.headers, body: JSON.parse(answer.text) };
    };
    const bad = await problem('format=xml');
    assertValidation(app, bad, 'format');
    assert.deepEqual(bad.body.errors, ['format: must be one of "csv", "json"']);
    assertValidation(app, await problem(''), 'format');
    assertValidation(app, await problem('format=csv&from=yesterday'), 'from');
    assertValidation(app, await problem('format=csv&to=2026-03-01'), 'to');
    assertValidation(app, await problem(`format=csv&from=${iso(t0)}&to=${iso(t0)}`), 'to');
    assertValidation(app, await problem(`format=csv&search=${'x'.repeat(257)}`), 'search');
    assertValidation(app, await problem('format=xml&_=1732612345678'), 'format');
    // a parameter it does not know (a cache buster, a list's limit) changes nothing
    const plain = await exportOf('format=json');
    for (const extra of ['_=1732612345678', 'limit=1', 'startingAfter=x']) assert.equal((await exportOf(`format=json&${extra}`)).text, plain.text, extra);
    // HEAD would have to produce the whole file to say nothing of it
    const head = await app.api('HEAD', `/forms/${form.id}/submissions/export?format=csv`, { token: owner.token });
    assert.equal(head.status, 405);
    assert.equal(head.headers.get('allow'), 'GET');
  });

  it('is in the OpenAPI document: its scope, its query, both file types and the problems', async () => {
    const doc = (await app.fetch('GET', `${app.baseUrl}/openapi.json`)).body;
    const operation = doc.paths['/forms/{formId}/submissions/export'].get;
    assert.equal(operation.operationId, 'exportFormSubmissions');
    assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
    assert.equal(operation['x-required-scope'], 'submissions:read');
    assert.ok(operation.responses['200'].headers['Content-Disposition'], 'the download declares Content-Disposition');
    const query = Object.fromEntries(operation.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p]));
    assert.deepEqual(Object.keys(query).sort(), ['format', 'from', 'search', 'to']);
    assert.deepEqual(query.format.schema.enum, ['csv', 'json']);
    assert.equal(query.format.required, true);
    assert.equal(query.from.schema.format, 'date-time');
    assert.deepEqual(Object.keys(operation.responses['200'].content).sort(), ['application/json', 'text/csv']);
    for (const status of ['400', '401', '403', '404', '429', '500']) assert.ok(operation.responses[status].content['application/problem+json'], status);
    assert.match(operation.responses['403'].description, /upgrade_required/);
  });

  it('answers 401 and 403 insufficient_scope like every operation (submissions:read)', async () => {
    await assertAuthMatrix(app, owner, { method: 'GET', path: `/forms/${form.id}/submissions/export?format=csv`, scope: 'submissions:read' });
  });

  it('is 404 for another account’s form, the same as for none; 403 upgrade_required on a FREE workspace', async () => {
    const stranger = await createAccount(app);
    const api = (path: string, token: string) => app.api('GET', path, { token });
    assertSameNotFound(
      app,
      await api(`/forms/${form.id}/submissions/export?format=csv`, stranger.token),
      form.id,
      await api('/forms/nosuchform/submissions/export?format=csv', stranger.token),
      'nosuchform',
    );
    const free = await createAccount(app, { plan: 'FREE' });
    const freeForm = await app.ctx.forms.createForm(free.userId, free.workspaceId, { name: 'Free' });
    await insertSubmission(app, freeForm, { a: '1' }, t0);
    for (const format of ['csv', 'json']) {
      assertProblem(app, await api(`/forms/${freeForm.id}/submissions/export?format=${format}`, free.token), 'upgrade_required', {
        workspaceId: free.workspaceId,
      });
    }
  });

  it('reads 500 rows a query, and puts fields past the 1,000th column in _other_fields as JSON', async () => {
    const big = await createForm(app, owner, { name: 'Survey' });
    const fields = Object.fromEntries(Array.from({ length: 1002 }, (_, i) => [`q${i}`, String(i)]));
    await insertSubmission(app, big, fields, t0);
    await insertMany(app, big, 1100, (i) => ({ q0: `row ${i}` }), t0 + 1);
    const list = app.ctx.submissions.listSubmissions;
    const limits: number[] = [];
    app.ctx.submissions.listSubmissions = function (this: unknown, ...args: Parameters<typeof list>) {
      limits.push(args[2].limit);
      return list.apply(app.ctx.submissions, args);
    };
    try {
      const [header, ...rows] = csvRecords((await exportOf('format=csv', owner.token, big.id)).text);
      assert.equal(header!.length, 3 + 1000 + 1);
      assert.equal(header![1002], 'q999');
      assert.equal(header![1003], '_other_fields');
      assert.equal(rows.length, 1101);
      assert.equal(rows[0]![3], 'row 1099');
      assert.equal(rows[0]![1003], '');
      assert.deepEqual(JSON.parse(rows[1100]![1003]!), { q1000: '1000', q1001: '1001' });
      // two walks of three pages each (500, 500, 101)
      assert.deepEqual(limits, [500, 500, 500, 500, 500, 500]);
    } finally {
      app.ctx.submissions.listSubmissions = list;
    }
  });

  it('writes the CSV rows of the set its header came from: submissions arriving between its two walks are left out', async () => {
    const live = await createForm(app, owner, { name: 'Live' });
    const kept = await insertSubmission(app, live, { a: '1' }, t0);
    const list = app.ctx.submissions.listSubmissions;
    let calls = 0;
    app.ctx.submissions.listSubmissions = async function (this: unknown, ...args: Parameters<typeof list>) {
      const page = await list.apply(app.ctx.submissions, args);
      if (++calls === 1) {
        // one later, one in the same millisecond as the newest row (its id sorts after it)
        await insertSubmission(app, live, { late: 'x' }, Date.now());
        await insertSubmission(app, live, { late: 'y' }, t0);
      }
      return page;
    };
    try {
      const [header, ...rows] = csvRecords((await exportOf('format=csv', owner.token, live.id)).text);
      assert.deepEqual(header, ['id', 'createdAt', 'formId', 'a']);
      assert.deepEqual(rows, [[kept, iso(t0), live.id, '1']]);
    } finally {
      app.ctx.submissions.listSubmissions = list;
    }
    assert.equal(JSON.parse((await exportOf('format=json', owner.token, live.id)).text).length, 3, 'the next export has them');
  });

  it('fails before the first byte as a problem, and later by cutting the connection: never a file that looks complete', async () => {
    const busy = await createForm(app, owner, { name: 'Busy' });
    await insertMany(app, busy, 600, (i) => ({ n: String(i) }), t0);
    const list = app.ctx.submissions.listSubmissions;
    let calls = 0;
    app.ctx.submissions.listSubmissions = function (this: unknown, ...args: Parameters<typeof list>) {
      if (++calls === 2) return Promise.reject(new Error('the database went away'));
      return list.apply(app.ctx.submissions, args);
    };
    try {
      // CSV: the second page of the column walk fails before anything is sent
      const early = await exportOf('format=csv', owner.token, busy.id);
      assert.equal(early.status, 500);
      assert.equal(JSON.parse(early.text).code, 'internal_error');
      // JSON: the first page is out when the second fails
      calls = 0;
      const response = await fetch(`${app.baseUrl}/forms/${busy.id}/submissions/export?format=json`, { headers: { authorization: `Bearer ${owner.token}` } });
      assert.equal(response.status, 200);
      await assert.rejects(response.text(), 'the body is cut off, not ended');
    } finally {
      app.ctx.submissions.listSubmissions = list;
    }
  });
});
