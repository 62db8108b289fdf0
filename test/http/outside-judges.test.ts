// The outside spam judges through the submit surface and the dashboard (issue 40, item 4), on the
// test database's dialect: off by default (nothing sent), turned on per form, never stalling intake.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { startApp, type TestApp } from '../helpers/app.js';
import { AKISMET_DISCARD, AKISMET_HAM, AKISMET_SILENT, AKISMET_SPAM, type AkismetStandIn, startAkismetStandIn } from '../helpers/akismet-stand-in.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { person, type Person } from '../helpers/members.js';
import { HAM, SPAM, type SpamdStandIn, startSpamdStandIn } from '../helpers/spamd-stand-in.js';
import { postJson, storedRows, visitorAddresses } from '../helpers/submit.js';

const MESSAGE = 'Hello, I would like a quote for a new roof on our house in Leeds, about 80 square metres.';
const BUDGET_MS = 500;

describe(`outside spam judges (${TEST_DIALECT})`, () => {
  let spamd: SpamdStandIn;
  let akismet: AkismetStandIn;
  let app: TestApp;
  let owner: Person;
  let outsider: Person;
  const visitor = visitorAddresses(192);

  before(async () => {
    spamd = await startSpamdStandIn(HAM);
    akismet = await startAkismetStandIn(AKISMET_HAM);
    app = await startApp({ spamdUrl: spamd.url, akismetUrl: akismet.url, spamJudgesBudget: `${BUDGET_MS}ms`, metrics: 'on' });
    owner = await person(app, 'owner');
    outsider = await person(app, 'outsider');
  });
  after(async () => {
    await app?.close();
    await spamd?.close();
    await akismet?.close();
  });

  const newForm = async () =>
    (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact', allowedOrigins: ['https://roofs.example'] })).id;
  const turnOn = (formId: string, judges: Record<string, boolean>) => app.ctx.forms.updateForm(owner.userId, formId, judges);
  const submit = (formId: string, fields: Record<string, string> = { name: 'Ann Lee', email: 'ann@example.com', message: MESSAGE }, from = visitor()) =>
    postJson(app, formId, fields, { ...from, headers: { 'user-agent': 'Mozilla/5.0 Firefox/140.0', referer: 'https://roofs.example/contact' } });
  const lastRow = async (formId: string) => {
    const row = await app.ctx.database.db
      .selectFrom('submissions')
      .select(['status', 'spamReasons'])
      .where('formId', '=', formId)
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    const reasons = typeof row.spamReasons === 'string' ? JSON.parse(row.spamReasons) : (row.spamReasons ?? []);
    return { status: row.status, reasons: reasons as string[] };
  };

  it('asks no judge while the form turned none on: the stand-ins see no request', async () => {
    const formId = await newForm();
    const [spamdBefore, akismetBefore] = [spamd.requests.length, akismet.requests.length];
    assert.equal((await submit(formId, { email: 'bot@mailinator.com', message: MESSAGE })).status, 200);
    assert.deepEqual([spamd.requests.length, akismet.requests.length], [spamdBefore, akismetBefore]);
    assert.equal((await lastRow(formId)).status, 'accepted');
  });

  it('asks spamd about each submission once turned on, and its score joins the verdict', async () => {
    const formId = await newForm();
    await turnOn(formId, { spamAssassin: true });
    spamd.reply = SPAM;
    const before = spamd.requests.length;
    assert.equal((await submit(formId)).status, 200);
    assert.equal(spamd.requests.length, before + 1);
    const mail = await simpleParser(spamd.requests.at(-1)!.body);
    assert.equal(mail.from?.text, 'ann@example.com');
    assert.match(mail.text ?? '', /quote for a new roof/);
    const row = await lastRow(formId);
    assert.ok(row.reasons.includes('SpamAssassin scored 7.3 (+6)'), JSON.stringify(row.reasons));
    spamd.reply = HAM;
  });

  it('asks Akismet with the key stored through the dashboard; spam from a discard, the reasons saying why', async () => {
    const formId = await newForm();
    await owner.client.get(`/forms/${formId}/settings`);
    const saved = await owner.client.post(`/forms/${formId}/settings/secrets/AKISMET`, { secret: ' abc123def456 ' });
    assert.equal(saved.status, 303, saved.html.slice(0, 300));
    const page = await owner.client.get(`/forms/${formId}/settings`);
    assert.equal(page.html.includes('abc123def456'), false, 'the key is never shown again');
    assert.match(page.html, /Akismet: on\./);

    akismet.reply = AKISMET_DISCARD;
    assert.equal((await submit(formId)).status, 200, 'the visitor sees success');
    const sent = akismet.requests.at(-1)!;
    assert.equal(sent.params.get('api_key'), 'abc123def456');
    assert.equal(sent.params.get('blog'), 'https://roofs.example');
    assert.equal(sent.params.get('user_agent'), 'Mozilla/5.0 Firefox/140.0');
    assert.equal(sent.params.get('referrer'), 'https://roofs.example/contact');
    assert.match(sent.params.get('user_ip') ?? '', /^127\.192\./);
    const discarded = await lastRow(formId);
    assert.equal(discarded.status, 'spam', 'spam whatever the learned filter says');
    assert.ok(discarded.reasons.includes('Akismet: blatant spam (+10)'), JSON.stringify(discarded.reasons));

    akismet.reply = AKISMET_SPAM;
    await submit(formId);
    assert.ok((await lastRow(formId)).reasons.includes('Akismet: spam (+8)'));

    const removed = await owner.client.post(`/forms/${formId}/settings/secrets/AKISMET/remove`, {});
    assert.equal(removed.status, 303);
    const before = akismet.requests.length;
    await submit(formId);
    assert.equal(akismet.requests.length, before, 'without the key, Akismet is not asked');
    akismet.reply = AKISMET_HAM;
  });

  it('stores the submission within the budget while the judges are silent or down', async () => {
    const formId = await newForm();
    await app.ctx.forms.putSecret(owner.userId, formId, 'AKISMET', 'k');
    await turnOn(formId, { spamAssassin: true });
    spamd.reply = () => null;
    akismet.reply = AKISMET_SILENT;
    const started = performance.now();
    const answer = await submit(formId);
    const took = performance.now() - started;
    assert.equal(answer.status, 200);
    assert.ok(took < BUDGET_MS + 1000, `answered in ${Math.round(took)} ms, the budget ${BUDGET_MS} ms`);
    assert.equal((await lastRow(formId)).status, 'accepted');
    const metrics = await app.fetch('GET', `${app.publicUrl}/metrics`);
    assert.match(String(metrics.body), /formgate_spam_judge_answers_total\{judge="spamassassin",outcome="timeout"\} [1-9]/);
    assert.match(String(metrics.body), /formgate_spam_judge_answers_total\{judge="akismet",outcome="timeout"\} [1-9]/);
    spamd.reply = HAM;
    akismet.reply = AKISMET_HAM;
  });

  it('flags a disposable address, and the same message from the fifth address on', async () => {
    const formId = await newForm();
    await turnOn(formId, { flagDisposableAddresses: true, flagSameMessage: true });
    await submit(formId, { email: 'x@mailinator.com', message: 'A short note.' });
    assert.deepEqual((await lastRow(formId)).reasons.includes('disposable e-mail address (+4)'), true);
    for (let i = 1; i <= 4; i++) {
      await submit(formId, { email: `person${i}@example.com`, message: MESSAGE });
      assert.equal((await lastRow(formId)).status, 'accepted', `sender ${i}`);
    }
    await submit(formId, { email: 'person5@example.com', message: MESSAGE });
    const fifth = await lastRow(formId);
    assert.equal(fifth.status, 'spam');
    assert.ok(fifth.reasons.includes('same message from 5 or more addresses within 60 minutes (+10)'), JSON.stringify(fifth.reasons));
    assert.equal((await storedRows(app, formId)).length, 6, 'every one stored');
  });

  it('saves the switches from the settings page, and refuses another account with 404', async () => {
    const formId = await newForm();
    const page = await owner.client.get(`/forms/${formId}/settings`);
    assert.match(page.html, /<legend>Outside judges<\/legend>/);
    assert.doesNotMatch(page.html, /id="field-spamAssassin"[^>]*checked/);
    const fields = { name: 'Contact', spamJudgesShown: '1', spamAssassin: 'on', flagSameMessage: 'on', allowedOrigins: 'https://roofs.example' };
    const saved = await owner.client.post(`/forms/${formId}/settings`, fields);
    assert.equal(saved.status, 303, saved.html.slice(0, 500));
    const form = await app.ctx.forms.getForm(owner.userId, formId);
    assert.deepEqual([form.spamAssassin, form.flagDisposableAddresses, form.flagSameMessage], [1, 0, 1]);

    await outsider.client.get(`/w/${outsider.workspaceId}`);
    const foreign = await outsider.client.post(`/forms/${formId}/settings`, { ...fields, flagDisposableAddresses: 'on' });
    assert.equal(foreign.status, 404);
    const foreignKey = await outsider.client.post(`/forms/${formId}/settings/secrets/AKISMET`, { secret: 'theirs' });
    assert.equal(foreignKey.status, 404);
    const unchanged = await app.ctx.forms.getForm(owner.userId, formId);
    assert.deepEqual([unchanged.flagDisposableAddresses], [0]);
    assert.equal((await app.ctx.forms.listSecrets(owner.userId, formId)).length, 0);

    const forged = await owner.client.post(`/forms/${formId}/settings`, { ...fields, _csrf: 'forged', flagDisposableAddresses: 'on' });
    assert.equal(forged.status, 403);
    assert.equal((await app.ctx.forms.getForm(owner.userId, formId)).flagDisposableAddresses, 0);

    const off = await owner.client.post(`/forms/${formId}/settings`, { name: 'Contact', spamJudgesShown: '1', allowedOrigins: 'https://roofs.example' });
    assert.equal(off.status, 303);
    const cleared = await app.ctx.forms.getForm(owner.userId, formId);
    assert.deepEqual([cleared.spamAssassin, cleared.flagSameMessage], [0, 0]);
  });
});
