import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { NO_FILES_BODY_CAP } from '../../src/intake/uploads.js';
import { MULTIPART_PARTS_MAX, SUBMIT_BODY_LIMIT } from '../../src/submit/body.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { JSON_ACCEPT, request } from '../helpers/submit.js';

const BOUNDARY = '----formgatelimits';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** `count` text fields named f0, f1, … and `ignored` file parts named `_x` (ignored by every form). */
function parts(count: number, ignored = 0): Buffer {
  const chunks: string[] = [];
  for (let i = 0; i < count; i++) chunks.push(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`);
  for (let i = 0; i < ignored; i++) chunks.push(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="_x"; filename="x"\r\n\r\n\r\n`);
  chunks.push(`--${BOUNDARY}--\r\n`);
  return Buffer.from(chunks.join(''));
}

/**
 * Issue 38, item 6: a multipart post's parts are bounded (ignored `_` parts included), and a form
 * that takes no files reads no more than a post without files may be.
 */
describe('multipart limits on the submit surface (issue 38, item 6)', () => {
  let app: TestApp;
  let account: Account;

  before(async () => {
    app = await startApp();
    account = await createAccount(app);
  });
  after(() => app.close());

  async function submissionsOf(formId: string): Promise<number> {
    const row = await app.ctx.database.db
      .selectFrom('submissions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('formId', '=', formId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it('refuses a post of more parts than allowed (ignored `_` file parts too) with 413 naming the body, and stores nothing', async () => {
    const form = await createForm(app, account);
    const answer = await request('POST', `${app.submitUrl}/${form.id}`, parts(1, MULTIPART_PARTS_MAX), { 'content-type': CONTENT_TYPE, accept: JSON_ACCEPT });
    assert.equal(answer.status, 413, JSON.stringify(answer.body));
    assert.equal(answer.body.code, 'payload_too_large');
    assert.deepEqual(answer.body.errors, [`body: at most ${MULTIPART_PARTS_MAX} parts (text fields and files) in one post`]);
    assert.equal(await submissionsOf(form.id), 0);
  });

  it('takes a plain form of as many fields as a submission keeps, and a post of exactly the most parts', async () => {
    const form = await createForm(app, account);
    const many = await request('POST', `${app.submitUrl}/${form.id}`, parts(1000), { 'content-type': CONTENT_TYPE, accept: JSON_ACCEPT });
    assert.equal(many.status, 200, JSON.stringify(many.body));
    assert.equal(Object.keys(many.body.data).length, 1000);
    const most = await request('POST', `${app.submitUrl}/${form.id}`, parts(1000, MULTIPART_PARTS_MAX - 1000), {
      'content-type': CONTENT_TYPE,
      accept: JSON_ACCEPT,
    });
    assert.equal(most.status, 200, JSON.stringify(most.body));
    assert.equal(await submissionsOf(form.id), 2);
  });

  it('refuses a large post to a form that takes no files from its declared length, before its body is sent', async () => {
    const form = await createForm(app, account, { fileUploads: null });
    const declared = SUBMIT_BODY_LIMIT + NO_FILES_BODY_CAP + 1;
    const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
    // only the head is sent: the answer must come without the rest of the declared body
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const outgoing = http.request(
        `${app.submitUrl}/${form.id}`,
        { method: 'POST', headers: { 'content-type': CONTENT_TYPE, 'content-length': String(declared), accept: JSON_ACCEPT }, timeout: 10_000 },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) });
            outgoing.destroy();
          });
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer before the whole body was sent')));
      outgoing.on('error', reject);
      outgoing.write(head);
    });
    assert.equal(answer.status, 413, JSON.stringify(answer.body));
    assert.equal(answer.body.code, 'payload_too_large');
    assert.equal(await submissionsOf(form.id), 0);
  });

  it('cuts off a chunked post to a form that takes no files at that bound, and still drops a small file with the fields kept', async () => {
    const form = await createForm(app, account, { fileUploads: null });
    const file = Buffer.alloc(SUBMIT_BODY_LIMIT + NO_FILES_BODY_CAP, 'a');
    const big = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n`),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    // no content-length: Node sends it chunked, so only counting the bytes can stop it
    const refused = await new Promise<number>((resolve, reject) => {
      const outgoing = http.request(
        `${app.submitUrl}/${form.id}`,
        { method: 'POST', headers: { 'content-type': CONTENT_TYPE, accept: JSON_ACCEPT, 'transfer-encoding': 'chunked' }, timeout: 10_000 },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer')));
      // NOTE: the server closes once it has answered: a write failing after the answer changes nothing
      outgoing.on('error', reject);
      outgoing.end(big);
    });
    assert.equal(refused, 413);
    assert.equal(await submissionsOf(form.id), 0);

    const small = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n`),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      Buffer.alloc(10 * 1024, 'a'),
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    const kept = await request('POST', `${app.submitUrl}/${form.id}`, small, { 'content-type': CONTENT_TYPE, accept: JSON_ACCEPT });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.deepEqual(kept.body.data, { name: 'Ada' });
    assert.match(kept.body.droppedFiles[0].reason, /Uploads are off/);
  });

  it('refuses a urlencoded body of more pairs than a multipart post may have parts, before parsing them; takes 1,000 fields', async () => {
    const form = await createForm(app, account);
    const flood = await request('POST', `${app.submitUrl}/${form.id}`, `name=Ada${'&'.repeat(MULTIPART_PARTS_MAX)}`, {
      'content-type': 'application/x-www-form-urlencoded',
      accept: JSON_ACCEPT,
    });
    assert.equal(flood.status, 413, JSON.stringify(flood.body));
    assert.deepEqual(flood.body.errors, [`body: at most ${MULTIPART_PARTS_MAX} name=value pairs in one post`]);
    assert.equal(await submissionsOf(form.id), 0);
    const fields = Array.from({ length: 1000 }, (_, i) => `f${i}=v`).join('&');
    const many = await request('POST', `${app.submitUrl}/${form.id}`, fields, { 'content-type': 'application/x-www-form-urlencoded', accept: JSON_ACCEPT });
    assert.equal(many.status, 200, JSON.stringify(many.body));
  });
});
