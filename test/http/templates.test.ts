import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromJson } from '../../src/db/database.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { createAccount, createForm, createToken, type Account } from '../helpers/fixtures.js';
import { assertProblem, assertValidation } from '../helpers/problems.js';
import { postJson } from '../helpers/submit.js';

const NOTIFICATION = '<h1 style="color:#333">New message from {{data.name}}</h1><p>{{data.message}}</p>';
const POLITE = '<p>Hi {{data.name}}, thanks for writing to us. We will reply within two working days.</p><p>The Acme team</p>';
const PUSHY = '<p>LIMITED TIME OFFER!!! Buy now and get 50% off: http://deals.example.com/promo click here http://deals.example.com/x</p>';

describe('templates API (4.4)', () => {
  let app: TestApp;
  let owner: Account;
  let stranger: Account;
  let form: any;
  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    stranger = await createAccount(app);
    form = await createForm(app, owner, { notificationEmails: ['team@example.com'] });
  });
  after(() => app.close());

  const path = (kind: string, formId = form.id) => `/forms/${formId}/templates/${kind}`;

  it('has no template at first: GET is 404 not_found, and notifications use the default layout', async () => {
    assertProblem(app, await app.api('GET', path('notification'), { token: owner.token }), 'not_found');
    assertProblem(app, await app.api('GET', path('autoresponder'), { token: owner.token }), 'not_found');
  });

  it('writes a notification template with PUT (200, the Template), reads it back, and deletes it (204)', async () => {
    const put = await app.api('PUT', path('notification'), { token: owner.token, body: { code: NOTIFICATION } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(Object.keys(put.body).sort(), ['code', 'kind', 'mode', 'paused', 'updatedAt']);
    assert.equal(put.body.kind, 'notification');
    assert.equal(put.body.mode, 'code');
    assert.equal(put.body.code, NOTIFICATION);
    assert.equal(put.body.paused, null, 'notification templates are not content checked');
    const got = await app.api('GET', path('notification'), { token: owner.token });
    assert.deepEqual(got.body, put.body);

    const rewritten = await app.api('PUT', path('notification'), { token: owner.token, body: { code: '<p>{{data.email}}</p>', mode: 'visual' } });
    assert.equal(rewritten.body.mode, 'code', 'written through the API: code');
    assert.equal(rewritten.body.code, '<p>{{data.email}}</p>');

    const deleted = await app.api('DELETE', path('notification'), { token: owner.token });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, null);
    assertProblem(app, await app.api('GET', path('notification'), { token: owner.token }), 'not_found');
    assertProblem(app, await app.api('DELETE', path('notification'), { token: owner.token }), 'not_found');
  });

  it('refuses a template that does not compile with 400 template_invalid, one entry per problem, and keeps the stored one', async () => {
    const target = await createForm(app, owner);
    await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: NOTIFICATION } });
    const refused = await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: '{{#if data.x}}<p>{{data.y}}</p>' } });
    assertProblem(app, refused, 'template_invalid');
    assert.ok(Array.isArray(refused.body.errors) && refused.body.errors.length >= 1);
    const several = await app.api('PUT', path('notification', target.id), {
      token: owner.token,
      body: { code: '{{> header}}{{{data.raw}}}{{lookup data "constructor"}}' },
    });
    assertProblem(app, several, 'template_invalid');
    assert.ok(several.body.errors.length >= 2, JSON.stringify(several.body.errors));
    assert.equal((await app.api('GET', path('notification', target.id), { token: owner.token })).body.code, NOTIFICATION);
  });

  it('content checks the autoresponder: a polite reply is on, marketing and bare links pause it, rewriting re-scores it', async () => {
    const target = await createForm(app, owner);
    const polite = await app.api('PUT', path('autoresponder', target.id), { token: owner.token, body: { code: POLITE } });
    assert.equal(polite.status, 200);
    assert.equal(polite.body.paused, false);
    const pushy = await app.api('PUT', path('autoresponder', target.id), { token: owner.token, body: { code: PUSHY } });
    assert.equal(pushy.status, 200, 'the write that pauses it still answers 200');
    assert.equal(pushy.body.paused, true);
    const again = await app.api('PUT', path('autoresponder', target.id), { token: owner.token, body: { code: POLITE } });
    assert.equal(again.body.paused, false);
  });

  it('takes back a Template read from the API: its own kind, and any mode, updatedAt and paused; a different kind is refused', async () => {
    const target = await createForm(app, owner);
    const pushy = await app.api('PUT', path('autoresponder', target.id), { token: owner.token, body: { code: PUSHY } });
    assert.equal(pushy.body.paused, true);
    const read = (await app.api('GET', path('autoresponder', target.id), { token: owner.token })).body;

    // paused: false sent back does not release it: the content check decides, on the code sent
    const sentBack = await app.api('PUT', path('autoresponder', target.id), {
      token: owner.token,
      body: { ...read, paused: false, updatedAt: '2001-01-01T00:00:00Z' },
    });
    assert.equal(sentBack.status, 200, JSON.stringify(sentBack.body));
    assert.equal(sentBack.body.paused, true);
    assert.ok(Date.parse(sentBack.body.updatedAt) >= Date.parse(read.updatedAt), 'updatedAt sent back is ignored');
    const polite = await app.api('PUT', path('autoresponder', target.id), { token: owner.token, body: { ...read, code: POLITE, paused: true } });
    assert.equal(polite.body.paused, false);
    assert.equal(polite.body.code, POLITE);

    const wrongKind = await app.api('PUT', path('notification', target.id), { token: owner.token, body: { ...read, code: NOTIFICATION } });
    assertValidation(app, wrongKind, 'kind');
    assert.deepEqual(wrongKind.body.errors, ['kind: must be the kind in the path (notification)']);
    assertProblem(app, await app.api('GET', path('notification', target.id), { token: owner.token }), 'not_found');
    // counted, not timed: as deep as a template may nest is stored, one block deeper refused, on any machine
    const nested = (depth: number) => `${'{{#each data.list}}'.repeat(depth)}{{this}}${'{{/each}}'.repeat(depth)}`;
    const deepest = await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: nested(32) } });
    assert.equal(deepest.status, 200, JSON.stringify(deepest.body));
    const deeper = await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: nested(33) } });
    assertProblem(app, deeper, 'template_invalid');
    assert.deepEqual(deeper.body.errors, ['code: blocks and helper calls nested 33 deep, deeper than the 32 a template may nest']);
    for (const [field, value] of [
      ['kind', 'welcome'],
      ['paused', 'no'],
      ['updatedAt', 'yesterday'],
      ['formId', target.id],
    ] as const) {
      assertValidation(app, await app.api('PUT', path('autoresponder', target.id), { token: owner.token, body: { code: POLITE, [field]: value } }), field);
    }
    assert.equal(await app.api('GET', path('autoresponder', target.id), { token: owner.token }).then((got) => got.body.code), POLITE);
    assert.deepEqual((await app.api('GET', `${path('autoresponder', target.id)}?_=1732612345678`, { token: owner.token })).body, polite.body);
  });

  it('previews without sending: against data, else the latest submission, else a sample; the default layout without a template', async () => {
    const target = await createForm(app, owner, { notificationEmails: ['x@example.com'] });
    await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: NOTIFICATION } });
    const given = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: { data: { name: '<Ada>', message: 'Hi' } } });
    assert.equal(given.status, 200, JSON.stringify(given.body));
    assert.deepEqual(Object.keys(given.body).sort(), ['html', 'text']);
    assert.ok(given.body.html.includes('New message from &lt;Ada&gt;'));
    assert.match(given.body.text, /New message from <Ada>/);

    const sample = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: {} });
    assert.ok(sample.body.html.includes('Jane Doe'), 'a sample before any submission');
    assert.equal((await postJson(app, target.id, { name: 'Grace', message: 'From the latest submission' })).status, 200);
    const latest = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: {} });
    assert.ok(latest.body.html.includes('Grace'), latest.body.html);

    await app.api('DELETE', path('notification', target.id), { token: owner.token });
    const byDefault = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: { data: { city: 'Paris' } } });
    assert.equal(byDefault.status, 200);
    assert.match(byDefault.body.text, /^city: Paris$/m);
    assertProblem(app, await app.api('POST', `${path('autoresponder', target.id)}/preview`, { token: owner.token, body: {} }), 'not_found');
    const count = await app.ctx.database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', 'email')
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0, 'a preview sends nothing');
  });

  it('fills {{submissionUrl}} with the submission’s page, or the form’s inbox when the sample or given data stands in (previews and the test email)', async () => {
    const target = await createForm(app, owner, { notificationEmails: ['x@example.com'] });
    await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: '<p><a href="{{submissionUrl}}">Open</a></p>' } });
    const base = app.ctx.config.publicUrl;
    const inbox = `<p><a href="${base}/forms/${target.id}">Open</a></p>`;
    const preview = (body: object, token = owner.token) => app.api('POST', `${path('notification', target.id)}/preview`, { token, body });
    assert.equal((await preview({})).body.html, inbox, 'the sample: no submission to open');
    assert.equal((await app.ctx.templates.previewEmail(owner.userId, target.id, 'notification')).html, inbox);

    const submitted = await postJson(app, target.id, { name: 'Grace' });
    const page = `<p><a href="${base}/submissions/${submitted.body.id}">Open</a></p>`;
    assert.equal((await preview({})).body.html, page, 'the latest submission: its page');
    assert.equal((await preview({ data: { name: 'Given' } })).body.html, inbox, 'given data: the inbox');
    assert.equal((await preview({}, await createToken(app, owner.userId, ['forms:read']))).body.html, inbox, 'the sample, for a token that cannot read it');
    assert.equal((await app.ctx.templates.previewEmail(owner.userId, target.id, 'notification')).html, page);
    const draft = await app.ctx.templates.previewEmail(owner.userId, target.id, 'notification', '{{submissionUrl}}');
    assert.equal(draft.text, `${base}/submissions/${submitted.body.id}`);

    // "Send me a test" sends what the preview shows
    await app.ctx.templates.sendTest(owner.userId, target.id, 'notification', 'me@example.com');
    const emails = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
    const test = emails.map((job) => fromJson<{ to: string[]; html: string }>(job.payload)).find((email) => email.to.includes('me@example.com'));
    assert.equal(test?.html, page);

    // without a template, the default layout links the same page
    await app.api('DELETE', path('notification', target.id), { token: owner.token });
    assert.match((await preview({})).body.text, new RegExp(`^Open in Formgate: ${base}/submissions/${submitted.body.id}$`, 'm'));
    assert.match((await preview({ data: { city: 'Paris' } })).body.text, new RegExp(`^Open in Formgate: ${base}/forms/${target.id}$`, 'm'));
  });

  it('previews without a body, or with an empty one, as with `{}`: `data` is optional, so the body is', async () => {
    const target = await createForm(app, owner);
    const withObject = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: {} });
    assert.equal(withObject.status, 200, JSON.stringify(withObject.body));
    const none = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token });
    assert.equal(none.status, 200, JSON.stringify(none.body));
    assert.deepEqual(none.body, withObject.body);
    const empty = await app.api('POST', `${path('notification', target.id)}/preview`, {
      token: owner.token,
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    assert.deepEqual(empty.body, withObject.body);
    // what is sent is still checked: a body that is not an object is refused as before
    for (const raw of ['null', '[]', '"x"']) {
      const answer = await app.api('POST', `${path('notification', target.id)}/preview`, {
        token: owner.token,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      assertValidation(app, answer, 'body');
    }
  });

  it('refuses with 400 validation_error a preview whose data makes the render too large, and sends nothing', async () => {
    const target = await createForm(app, owner);
    // one value of 600,000 characters printed twice by each item: the limit is reached at the second print, long before any time limit
    const items = ['x'.repeat(600_000)];
    await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: '{{#each data.a}}<p>{{this}}</p><p>{{this}}</p>{{/each}}' } });
    const answer = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: { data: { a: items } } });
    assertValidation(app, answer, 'data');
    assert.match(answer.body.errors[0], /larger than 1048576 characters/);
    const small = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: { data: { a: ['x'] } } });
    assert.equal(small.body.html, '<p>x</p><p>x</p>');
  });

  it('previews with the sample, never a real submission, for a token without submissions:read', async () => {
    const target = await createForm(app, owner);
    await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: '<p>{{data.name}}: {{data.secret}}</p>' } });
    assert.equal((await postJson(app, target.id, { name: 'Grace', secret: 'my card number' })).status, 200);
    const formsOnly = await createToken(app, owner.userId, ['forms:read']);
    for (const kind of ['notification'] as const) {
      const preview = await app.api('POST', `${path(kind, target.id)}/preview`, { token: formsOnly, body: {} });
      assert.equal(preview.status, 200, JSON.stringify(preview.body));
      assert.equal(preview.body.html, '<p>Jane Doe: </p>', 'the sample');
      const listing = await app.api('GET', `/forms/${target.id}/submissions`, { token: formsOnly });
      assertProblem(app, listing, 'insufficient_scope', { requiredScope: 'submissions:read' });
    }
    await app.api('DELETE', path('notification', target.id), { token: owner.token });
    const byDefault = await app.api('POST', `${path('notification', target.id)}/preview`, { token: formsOnly, body: {} });
    assert.ok(!byDefault.body.text.includes('my card number') && byDefault.body.text.includes('Jane Doe'), 'the default layout shows the sample too');
    const reader = await createToken(app, owner.userId, ['forms:read', 'submissions:read']);
    const real = await app.api('POST', `${path('notification', target.id)}/preview`, { token: reader, body: {} });
    assert.match(real.body.text, /my card number/, 'with submissions:read, the latest submission');
  });

  it('previews any shape of data: objects print as name: value lines, never a 500', async () => {
    const target = await createForm(app, owner);
    await app.api('PUT', path('notification', target.id), {
      token: owner.token,
      body: { code: '<p>{{data.car}}</p><pre>{{data}}</pre>{{#each data.car}}[{{this}}]{{/each}}' },
    });
    const data = { car: { color: 'red', wheels: [{ size: 16 }], extras: ['roof', 'rack'] }, none: null, n: 1 };
    const answer = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: { data } });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(
      answer.body.html,
      '<p>color: red\nwheels[0].size: 16\nextras: roof, rack</p><pre>car.color: red\ncar.wheels[0].size: 16\ncar.extras: roof, rack\nnone: \nn: 1</pre>[red][[0].size: 16][roof, rack]',
    );
  });

  it('bounds big templates by what they hold (400 template_invalid) and big values (a 1.9 MB value, 400 validation_error)', async () => {
    const target = await createForm(app, owner);
    // 26,000 placeholders in 260 KB: seconds and over 128 MB to compile, refused by their count before Handlebars reads them
    const huge = '{{data.a}}'.repeat(26_000);
    const refused = await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: huge } });
    assertProblem(app, refused, 'template_invalid');
    assert.deepEqual(refused.body.errors, ['code: 26000 placeholders, blocks and helper calls, more than the 2000 a template may hold']);
    assertProblem(app, await app.api('GET', path('notification', target.id), { token: owner.token }), 'not_found');

    const stored = await app.api('PUT', path('notification', target.id), { token: owner.token, body: { code: '<p>{{data.big}}</p>'.repeat(20) } });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    const big = await app.api('POST', `${path('notification', target.id)}/preview`, { token: owner.token, body: { data: { big: 'x'.repeat(1_900_000) } } });
    assertValidation(app, big, 'data');
    assert.match(big.body.errors[0], /larger than 1048576 characters with this data/);
  });

  it('validates the kind, the body and the size', async () => {
    const wrongKind = await app.api('GET', path('welcome'), { token: owner.token });
    assertValidation(app, wrongKind, 'kind');
    assert.equal(wrongKind.body.detail, 'The request path is invalid.', 'a path parameter is reported as the path, not the query');
    assertValidation(app, await app.api('PUT', path('notification'), { token: owner.token, body: {} }), 'code');
    assertValidation(app, await app.api('PUT', path('notification'), { token: owner.token, body: { code: 5 } }), 'code');
    assertValidation(app, await app.api('PUT', path('notification'), { token: owner.token, body: { code: 'x', extra: 1 } }), 'extra');
    assertValidation(app, await app.api('PUT', path('notification'), { token: owner.token, body: { code: 'x'.repeat(262_145) } }), 'code');
    assertValidation(app, await app.api('POST', `${path('notification')}/preview`, { token: owner.token, body: { data: 'text' } }), 'data');
  });

  it('keeps other accounts out (404) and free workspaces need an upgrade (403 upgrade_required)', async () => {
    assertProblem(app, await app.api('GET', path('notification'), { token: stranger.token }), 'not_found');
    assertProblem(app, await app.api('PUT', path('autoresponder'), { token: stranger.token, body: { code: POLITE } }), 'not_found');
    const free = await createAccount(app);
    const freeForm = await createForm(app, free);
    await app.ctx.workspaces.setPlan(free.workspaceId, 'FREE');
    assertProblem(app, await app.api('PUT', path('autoresponder', freeForm.id), { token: free.token, body: { code: POLITE } }), 'upgrade_required', {
      workspaceId: free.workspaceId,
    });
  });

  it('answers the 401/403 matrix on every template operation', async () => {
    await assertAuthMatrix(app, owner, { method: 'GET', path: path('notification'), scope: 'forms:read' });
    await assertAuthMatrix(app, owner, { method: 'PUT', path: path('notification'), scope: 'forms:write', body: { code: 'x' } });
    await assertAuthMatrix(app, owner, { method: 'DELETE', path: path('notification'), scope: 'forms:write' });
    await assertAuthMatrix(app, owner, { method: 'POST', path: `${path('notification')}/preview`, scope: 'forms:read', body: {} });
  });
});
