import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { fromJson } from '../../src/db/database.js';
import type { NewSubmissionFileRow } from '../../src/db/schema/submission-file.js';
import { storageKey } from '../../src/files/file-store.js';
import { FILE_LINK_LIFETIME_MS } from '../../src/files/signed-links.js';
import { newId } from '../../src/ids.js';
import { DeliveryFiles } from '../../src/jobs/channels/submission-files.js';
import { WebhookChannel } from '../../src/jobs/channels/webhook.js';
import { enqueueDeliveries } from '../../src/jobs/submission-jobs.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startSlackStandIn, type SlackStandIn } from '../helpers/slack-stand-in.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';

const SLACK_TOKEN = 'xoxb-stand-in';
const from = visitorAddresses(41);

interface TestFile {
  id: string;
  field: string;
  name: string;
  type: string;
  content: string;
}

/** The link's file id, expiry (epoch s) and signature. */
function signedParts(url: string): { fileId: string; expires: string; signature: string } {
  const parsed = new URL(url);
  return {
    fileId: parsed.pathname.split('/').at(-1)!,
    expires: parsed.searchParams.get('expires') ?? '',
    signature: parsed.searchParams.get('signature') ?? '',
  };
}

describe(`what deliveries say about files (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let sink: SmtpSink;
  let slack: SlackStandIn;
  let account: Account;
  before(async () => {
    receiver = await startWebhookReceiver();
    sink = await startSmtpSink();
    slack = await startSlackStandIn(SLACK_TOKEN);
    app = await startApp({ allowPrivateWebhooks: 'true', smtpUrl: sink.url, slackApiUrl: slack.url }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await Promise.all([receiver.close(), sink.close(), slack.close()]);
  });

  /**
   * A submission as intake stores one with files: the objects in `data` (their url the API's), a
   * `submission_files` row and a stored object each; a dropped file has a row and nothing else. The
   * deliveries are enqueued as intake does, once the rows exist (the form had none when it was posted).
   */
  async function submitWithFiles(options: { text: Record<string, unknown>; files: TestFile[]; dropped?: string; extra?: Record<string, unknown> }) {
    const form = await createForm(app, account, { name: 'Jobs & <CVs>' });
    const data: Record<string, unknown> = { ...options.text };
    for (const file of options.files) {
      const object = { name: file.name, type: file.type, size: Buffer.byteLength(file.content), url: app.ctx.fileLinks.url(file.id) };
      const listed = data[file.field];
      data[file.field] = listed === undefined ? object : Array.isArray(listed) ? [...listed, object] : [listed, object];
    }
    Object.assign(data, options.extra);
    const answer = await postJson(app, form.id, data, from());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const submissionId = answer.body.id as string;
    const rows: NewSubmissionFileRow[] = options.files.map((file, position) => ({
      id: file.id,
      submissionId,
      formId: form.id,
      workspaceId: account.workspaceId,
      field: file.field,
      position,
      name: file.name,
      type: file.type,
      size: Buffer.byteLength(file.content),
      storageKey: storageKey(account.workspaceId, file.id),
      droppedReason: null,
      createdAt: Date.now(),
    }));
    for (const file of options.files) await app.ctx.files.write(storageKey(account.workspaceId, file.id), Readable.from([file.content]), file.name);
    if (options.dropped)
      rows.push({
        ...rows[0]!,
        id: newId(),
        field: 'extra',
        position: rows.length,
        name: options.dropped,
        storageKey: null,
        droppedReason: 'Uploads are off.',
      });
    if (rows.length > 0) await app.ctx.database.db.insertInto('submissionFiles').values(rows).execute();
    await app.ctx.forms.setSecret(form.id, 'SLACK', SLACK_TOKEN);
    await app.ctx.database.db
      .updateTable('forms')
      .set({ webhookUrl: receiver.url, slackChannel: '#hiring', notificationEmails: JSON.stringify([account.email]) })
      .where('id', '=', form.id)
      .execute();
    const stored = await app.ctx.database.db
      .selectFrom('submissions')
      .select(['id', 'formId', 'data', 'createdAt'])
      .where('id', '=', submissionId)
      .executeTakeFirstOrThrow();
    await app.ctx.database.transaction((trx) =>
      enqueueDeliveries(trx, stored, { kinds: ['notification', 'slack', 'webhook'], notificationEmails: [account.email], webhookUrl: receiver.url }),
    );
    return { form, submissionId, storedData: fromJson<Record<string, unknown>>(stored.data) };
  }

  /** The submission's webhook, notification and Slack message (found by its id, and by `name` in Slack). */
  async function deliveries(submissionId: string, name: string) {
    const webhook = await eventually(async () => receiver.requests.find((r) => r.headers['webhook-id'] === submissionId), 'the webhook');
    const mail = await eventually(async () => sink.messages.find((m) => (m.parsed.text ?? '').includes(`Submission ${submissionId}`)), 'the email');
    const post = await eventually(async () => slack.posts.find((p) => p.body.text?.includes(`*name:* ${name}`)), 'the Slack message');
    return { webhook, mail, post };
  }

  it('gives each file in a webhook a signed link that works for 7 days, in Slack too, and lists the files in the email with the submission’s page', async () => {
    const cv = { id: newId(), field: 'cv', name: 'cv.pdf', type: 'application/pdf', content: '%PDF-1.7 résumé' };
    const photos = [
      { id: newId(), field: 'photos', name: 'a.png', type: 'image/png', content: 'x'.repeat(2048) },
      { id: newId(), field: 'photos', name: 'b <1>.png', type: 'image/png', content: 'y' },
    ];
    const sentAt = Date.now();
    // a visitor's own object naming another submission's file: neither linked nor described
    const foreign = { name: 'not mine', url: `https://elsewhere.example/files/${cv.id}x` };
    const { form, submissionId } = await submitWithFiles({ text: { name: 'Ada' }, files: [cv, ...photos], dropped: 'virus.exe', extra: { other: foreign } });
    const { webhook, mail, post } = await deliveries(submissionId, 'Ada');

    // the webhook: the same objects, each url signed; the signature is over the body as sent
    const body = JSON.parse(webhook.rawBody);
    assert.deepEqual(Object.keys(body), ['name', 'cv', 'photos', 'other']);
    assert.deepEqual(body.other, foreign);
    const sentFiles = [body.cv, ...body.photos];
    assert.deepEqual(
      sentFiles.map((f: { name: string; size: number }) => [f.name, f.size]),
      [
        ['cv.pdf', Buffer.byteLength(cv.content)],
        ['a.png', 2048],
        ['b <1>.png', 1],
      ],
    );
    for (const [i, file] of [cv, ...photos].entries()) {
      const url = sentFiles[i].url as string;
      assert.ok(url.startsWith(`${app.ctx.fileLinks.url(file.id)}?`), url);
      const { fileId, expires, signature } = signedParts(url);
      assert.equal(fileId, file.id);
      assert.ok(app.ctx.fileLinks.verify(fileId, expires, signature), 'the link verifies');
      const expiresAt = Number(expires) * 1000;
      assert.ok(
        expiresAt >= Math.floor(sentAt / 1000) * 1000 + FILE_LINK_LIFETIME_MS && expiresAt <= Date.now() + FILE_LINK_LIFETIME_MS,
        'it expires 7 days after sending',
      );
      assert.equal(app.ctx.fileLinks.verify(fileId, expires, signature, expiresAt + 1), false, 'and not after');
      assert.equal(app.ctx.fileLinks.verify(newId(), expires, signature), false, 'it names one file only');
    }
    const secret = await app.ctx.forms.webhookSecret(form.id);
    const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(webhook.headers[h])]));
    assert.deepEqual(new Webhook(secret).verify(webhook.rawBody, headers), body);

    // the email: every file by name, size and type, and where to download it (behind a login), in text and HTML
    const page = `${app.ctx.config.publicUrl}/submissions/${submissionId}`;
    const text = mail.parsed.text ?? '';
    assert.match(text, /^cv: cv\.pdf \(17 bytes, application\/pdf\)$/m);
    assert.match(text, /^photos\[0\]: a\.png \(2\.0 KB, image\/png\)$/m);
    assert.match(text, /^photos\[1\]: b <1>\.png \(1 byte, image\/png\)$/m);
    assert.ok(text.includes(`Download the 3 files from the submission's page in Formgate (you will be asked to log in).\nOpen in Formgate: ${page}`), text);
    assert.ok(!text.includes('signature='), 'no signed link in an email');
    assert.ok(!text.includes('virus.exe'), 'a dropped file is not listed');
    assert.match(text, /^other\.url: https:\/\/elsewhere\.example\/files\/\w+x$/m, 'a visitor’s look-alike object is a field like any other');
    const html = String(mail.parsed.html);
    assert.ok(html.includes(`<a href="${page}" style="color:#1d4ed8;">b &lt;1&gt;.png</a>`), html);
    assert.ok(html.includes('(2.0 KB, image/png)'));
    assert.ok(!html.includes('signature='));

    // Slack: the names, each linked for 7 days
    const slackText = post.body.text ?? '';
    const links = [...slackText.matchAll(/<([^|>]+)\|([^>]+)>/g)];
    assert.deepEqual(
      links.map((m) => m[2]),
      ['cv.pdf', 'a.png', 'b &lt;1&gt;.png', 'Open in Formgate'],
    );
    assert.equal(links.pop()![1], page, 'the last links to the submission’s page, not signed');
    for (const [, link] of links) {
      const { fileId, expires, signature } = signedParts(link!.replace(/&amp;/g, '&'));
      assert.ok(app.ctx.fileLinks.verify(fileId, expires, signature), link);
      const expiresAt = Number(expires) * 1000;
      assert.ok(expiresAt >= Math.floor(sentAt / 1000) * 1000 + FILE_LINK_LIFETIME_MS && expiresAt <= Date.now() + FILE_LINK_LIFETIME_MS, 'for 7 days');
    }
    assert.match(slackText, /^\*cv:\* <[^>]+\|cv\.pdf> \(17 bytes\)$/m);
    assert.ok(slackText.endsWith(`\n_Links to files work for 7 days._\n<${page}|Open in Formgate>`), slackText);
  });

  it('signs a fresh link on every try, under the same webhook-id, and the body it signs', async () => {
    const cv = { id: newId(), field: 'cv', name: 'cv.pdf', type: 'application/pdf', content: 'pdf' };
    const { form, submissionId } = await submitWithFiles({ text: { name: 'Grace' }, files: [cv] });
    const job = await app.ctx.database.db
      .selectFrom('jobs')
      .select(['id', 'kind', 'payload', 'attempts', 'submissionId', 'idempotencyKey'])
      .where('submissionId', '=', submissionId)
      .where('kind', '=', 'webhook')
      .executeTakeFirstOrThrow();
    await eventually(async () => receiver.requests.some((r) => r.headers['webhook-id'] === submissionId), 'the first delivery');
    let at = Date.parse('2026-11-27T10:00:00Z');
    const channel = new WebhookChannel({
      outbound: new OutboundGuard({ allowPrivate: true }),
      signingSecret: (formId) => app.ctx.forms.webhookSecret(formId),
      files: new DeliveryFiles(app.ctx.database, app.ctx.fileLinks),
      now: () => new Date(at),
    });
    const claimed = { ...job, payload: fromJson(job.payload), attempt: 2, idempotencyKey: job.idempotencyKey ?? submissionId };
    const before = receiver.requests.length;
    await channel.send(claimed);
    at += 3 * 24 * 60 * 60 * 1000; // a retry three days later
    await channel.send({ ...claimed, attempt: 3 });
    const [first, retry] = receiver.requests.slice(before);
    assert.equal(first!.headers['webhook-id'], retry!.headers['webhook-id']);
    const expiry = (request: typeof first) => Number(signedParts(JSON.parse(request!.rawBody).cv.url).expires) * 1000;
    assert.equal(expiry(first), Date.parse('2026-11-27T10:00:00Z') + FILE_LINK_LIFETIME_MS);
    assert.equal(expiry(retry), at + FILE_LINK_LIFETIME_MS, 'the retry’s link runs 7 days from the retry');
    const secret = await app.ctx.forms.webhookSecret(form.id);
    for (const request of [first!, retry!]) {
      const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(request.headers[h])]));
      // verified as a receiver does at the moment it was sent
      const verifier = new Webhook(secret);
      assert.throws(() => verifier.verify(request.rawBody.replace('cv.pdf', 'cv2.pdf'), headers));
      assert.equal(Number(headers['webhook-timestamp']) * 1000 + FILE_LINK_LIFETIME_MS, expiry(request));
    }
  });

  it('sends a submission without files exactly as queued, and lets a notification template loop over the files', async () => {
    const text = { name: 'Alan', nested: { url: 'https://example.com/files/abc', size: 3 }, list: ['a', 'b'] };
    const plain = await submitWithFiles({ text, files: [] });
    const { webhook, mail, post } = await deliveries(plain.submissionId, 'Alan');
    assert.equal(webhook.rawBody, JSON.stringify(plain.storedData), 'byte for byte what was queued');
    assert.ok(!(mail.parsed.text ?? '').includes('Download'));
    assert.equal(
      post.body.text,
      `New submission to *Jobs &amp; &lt;CVs&gt;*\n*name:* Alan\n*nested.url:* https://example.com/files/abc\n*nested.size:* 3\n*list:* a, b\n<${app.ctx.config.publicUrl}/submissions/${plain.submissionId}|Open in Formgate>`,
    );

    const cv = { id: newId(), field: 'cv', name: 'cv.pdf', type: 'application/pdf', content: 'pdf!' };
    const submitted = await submitWithFilesAndTemplate(cv);
    const page = `${app.ctx.config.publicUrl}/submissions/${submitted}`;
    const expected = `<ul><li><a href="${page}">cv.pdf</a> cv 4 bytes application/pdf 4</li></ul>`;
    const mail2 = await eventually(async () => sink.messages.find((m) => String(m.parsed.html).includes(page)), 'the templated email');
    assert.equal(String(mail2.parsed.html).trim(), expected);

    // the preview renders the latest submission's files as its notification does, and the dashboard's email preview too
    const formId = (await app.ctx.database.db.selectFrom('submissions').select('formId').where('id', '=', submitted).executeTakeFirstOrThrow()).formId;
    const preview = await app.api('POST', `/forms/${formId}/templates/notification/preview`, { token: account.token, body: {} });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.equal(preview.body.html.trim(), expected);
    const email = await app.ctx.templates.previewEmail(account.userId, formId, 'notification');
    assert.equal(email.html.trim(), expected);
    const draft = await app.ctx.templates.previewEmail(account.userId, formId, 'notification', '{{#each files}}{{name}}={{url}}{{/each}}');
    assert.equal(draft.html, `cv.pdf=${page}`);
  });

  it('answers the visitor without a link to any file: the autoresponder gets no files and file objects no url', async () => {
    const form = await createForm(app, account, { name: 'Support', notificationEmails: ['help@acme.example'] });
    const code = '<p>Thanks {{data.name}}. {{data.cv}} [{{data.cv.url}}] {{#each files}}{{url}}{{/each}}</p>';
    assert.equal((await app.api('PUT', `/forms/${form.id}/templates/autoresponder`, { token: account.token, body: { code } })).status, 200);
    const fileId = newId();
    const visitor = 'visitor@example.org';
    const data = { name: 'Ada', email: visitor, cv: { name: 'cv.pdf', type: 'application/pdf', size: 4, url: app.ctx.fileLinks.url(fileId) } };
    assert.equal((await postJson(app, form.id, data, from())).status, 200);
    const answer = await eventually(async () => sink.messages.find((m) => m.envelopeTo.includes(visitor)), 'the autoresponder');
    const html = String(answer.parsed.html);
    assert.ok(html.includes('name: cv.pdf'), html);
    assert.ok(html.includes('[]'), html);
    assert.ok(!html.includes('/files/') && !(answer.parsed.text ?? '').includes('/files/'), html);
  });

  /** A submission with one file to a form whose notification template lists `files`. */
  async function submitWithFilesAndTemplate(cv: TestFile): Promise<string> {
    const form = await createForm(app, account, { name: 'Templated' });
    const put = await app.api('PUT', `/forms/${form.id}/templates/notification`, {
      token: account.token,
      body: { code: '<ul>{{#each files}}<li><a href="{{url}}">{{name}}</a> {{field}} {{sizeText}} {{type}} {{size}}</li>{{/each}}</ul>' },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const data = { name: 'Edsger', cv: { name: cv.name, type: cv.type, size: 4, url: app.ctx.fileLinks.url(cv.id) } };
    const answer = await postJson(app, form.id, data, from());
    const submissionId = answer.body.id as string;
    await app.ctx.files.write(storageKey(account.workspaceId, cv.id), Readable.from([cv.content]), cv.name);
    await app.ctx.database.db
      .insertInto('submissionFiles')
      .values({
        id: cv.id,
        submissionId,
        formId: form.id,
        workspaceId: account.workspaceId,
        field: 'cv',
        position: 0,
        name: cv.name,
        type: cv.type,
        size: 4,
        storageKey: storageKey(account.workspaceId, cv.id),
        droppedReason: null,
        createdAt: Date.now(),
      })
      .execute();
    await app.ctx.forms.setSecret(form.id, 'SLACK', SLACK_TOKEN);
    await app.ctx.database.db
      .updateTable('forms')
      .set({ slackChannel: '#hiring', notificationEmails: JSON.stringify([account.email]) })
      .where('id', '=', form.id)
      .execute();
    const stored = await app.ctx.database.db
      .selectFrom('submissions')
      .select(['id', 'formId', 'data', 'createdAt'])
      .where('id', '=', submissionId)
      .executeTakeFirstOrThrow();
    await app.ctx.database.transaction((trx) =>
      enqueueDeliveries(trx, stored, { kinds: ['notification', 'slack'], notificationEmails: [account.email], webhookUrl: null }),
    );
    return submissionId;
  }
});
