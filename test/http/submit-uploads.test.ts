import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { uploadCeilings } from '../../src/domain/uploads.js';
import { sweepUnclaimedFiles } from '../../src/jobs/file-sweep.js';
import { applyRetention } from '../../src/jobs/submission-retention.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, request } from '../helpers/submit.js';

interface FilePart {
  name: string;
  filename: string;
  content: string | Buffer;
  type?: string;
  /** The Content-Disposition parameters after the name, when not `filename="…"`. */
  disposition?: string;
}

/** A multipart body as a browser builds it: text fields, then file parts with their declared types. */
function multipart(fields: [string, string][], files: FilePart[]): { body: Buffer; contentType: string } {
  const boundary = `----formgate${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of fields) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  for (const file of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; ${file.disposition ?? `filename="${file.filename}"`}\r\nContent-Type: ${file.type ?? 'application/pdf'}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.from(file.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('file uploads on the submit surface (issue 28)', () => {
  let app: TestApp;
  let account: Account;
  let folder: string;

  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    assert.equal(app.ctx.config.files.kind, 'folder');
    folder = (app.ctx.config.files as { folder: string }).folder;
  });
  after(() => app.close());

  function send(formId: string, fields: [string, string][], files: FilePart[], accept = JSON_ACCEPT, headers: Record<string, string> = {}) {
    const built = multipart(fields, files);
    return request('POST', `${app.submitUrl}/${formId}`, built.body, { ...headers, 'content-type': built.contentType, accept });
  }

  /** Every object in the store, as keys. */
  function objects(): string[] {
    if (!fs.existsSync(folder)) return [];
    return (fs.readdirSync(folder, { recursive: true }) as string[])
      .filter((entry) => fs.statSync(path.join(folder, entry)).isFile())
      .map((entry) => entry.split(path.sep).join('/'))
      .sort();
  }

  async function fileRows(formId: string) {
    return app.ctx.database.db.selectFrom('submissionFiles').selectAll().where('formId', '=', formId).orderBy('position').execute();
  }

  async function unclaimed(): Promise<string[]> {
    return (await app.ctx.database.db.selectFrom('unclaimedFiles').select('storageKey').execute()).map((row) => row.storageKey);
  }

  async function fileBytes(workspaceId = account.workspaceId): Promise<number> {
    const row = await app.ctx.database.db.selectFrom('workspaces').select('fileBytes').where('id', '=', workspaceId).executeTakeFirstOrThrow();
    return Number(row.fileBytes);
  }

  async function setLimits(formId: string, limits: object | null, enabled = 1) {
    await app.ctx.database.db
      .updateTable('forms')
      .set({ uploadsEnabled: enabled, uploadLimits: limits === null ? null : JSON.stringify(limits) })
      .where('id', '=', formId)
      .execute();
  }

  /** A fresh account (its own workspace, so file_bytes starts at 0) and form. */
  async function fresh(plan?: 'FREE') {
    const owner = await createAccount(app);
    const form = await createForm(app, owner);
    if (plan) await app.ctx.workspaces.setPlan(owner.workspaceId, plan, { tellOwners: false });
    return { owner, form };
  }

  async function readObject(key: string): Promise<string> {
    const stored = await app.ctx.files.read(key);
    assert.ok(stored, `no object ${key}`);
    const chunks: Buffer[] = [];
    for await (const chunk of stored.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString();
  }

  it('stores a file with the text fields: its object in data, its row, its bytes counted, nothing left unclaimed', async () => {
    const { owner, form } = await fresh();
    const before = objects().length;
    const answer = await send(
      form.id,
      [
        ['name', 'Ada'],
        ['message', 'my CV'],
      ],
      [{ name: 'cv', filename: 'cv.pdf', content: '%PDF-1.4 hello' }],
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.name, 'Ada');
    assert.equal(answer.body.data.message, 'my CV');
    const rows = await fileRows(form.id);
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.deepEqual(answer.body.data.cv, { name: 'cv.pdf', type: 'application/pdf', size: 14, url: app.ctx.fileLinks.url(row!.id) });
    assert.equal(row!.submissionId, answer.body.id);
    assert.equal(row!.field, 'cv');
    assert.equal(row!.storageKey, `${owner.workspaceId}/${row!.id}`);
    assert.equal(row!.droppedReason, null);
    assert.equal(await readObject(row!.storageKey!), '%PDF-1.4 hello');
    assert.equal(objects().length, before + 1);
    assert.equal(await fileBytes(owner.workspaceId), 14);
    assert.ok(!(await unclaimed()).includes(row!.storageKey!));
    // stored as listed by the API, the same object
    const stored = await app.ctx.database.db.selectFrom('submissions').select('data').where('id', '=', answer.body.id).executeTakeFirstOrThrow();
    const data = typeof stored.data === 'string' ? JSON.parse(stored.data) : stored.data;
    assert.deepEqual(data.cv, answer.body.data.cv);
  });

  it('stores two files of one `multiple` input as a list, in order, and an empty file input as no file', async () => {
    const { owner, form } = await fresh();
    const answer = await send(
      form.id,
      [['name', 'Ada']],
      [
        { name: 'docs', filename: 'a.png', content: 'PNG-A', type: 'image/png' },
        { name: 'docs', filename: 'b.txt', content: 'text b', type: 'text/plain' },
        { name: 'empty', filename: '', content: '', type: 'application/octet-stream' },
      ],
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const rows = await fileRows(form.id);
    assert.deepEqual(
      rows.map((row) => [row.field, row.position, row.name, Number(row.size)]),
      [
        ['docs', 0, 'a.png', 5],
        ['docs', 1, 'b.txt', 6],
      ],
    );
    assert.deepEqual(
      answer.body.data.docs.map((file: any) => file.name),
      ['a.png', 'b.txt'],
    );
    assert.equal(answer.body.data.docs[1].url, app.ctx.fileLinks.url(rows[1]!.id));
    assert.equal(Object.hasOwn(answer.body.data, 'empty'), false);
    assert.equal(await fileBytes(owner.workspaceId), 11);
  });

  it('refuses a file over maxFileSize with 413 naming the field, and leaves nothing in the store or the tables', async () => {
    const { form } = await fresh();
    await setLimits(form.id, { maxFileSize: 1000, maxTotalSize: 5000, allowedTypes: ['.pdf'] });
    const before = objects();
    const beforeUnclaimed = await unclaimed();
    const answer = await send(form.id, [['name', 'Ada']], [{ name: 'cv', filename: 'cv.pdf', content: Buffer.alloc(200_000, 1) }]);
    assert.equal(answer.status, 413, JSON.stringify(answer.body));
    assert.equal(answer.body.code, 'payload_too_large');
    assert.match(answer.body.errors[0], /^cv: cv\.pdf is larger than 1000 bytes/);
    assert.deepEqual(objects(), before);
    assert.deepEqual(await unclaimed(), beforeUnclaimed);
    assert.equal((await fileRows(form.id)).length, 0);
    const count = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.equal(count.length, 0);
  });

  it('refuses files together over maxTotalSize (the first already written is removed), and a type not allowed with 400', async () => {
    const { form } = await fresh();
    await setLimits(form.id, { maxFileSize: 3000, maxTotalSize: 5000, allowedTypes: ['.pdf', 'image/*'] });
    const before = objects();
    const beforeUnclaimed = await unclaimed();
    const total = await send(
      form.id,
      [['name', 'Ada']],
      [
        { name: 'a', filename: 'a.pdf', content: Buffer.alloc(2500, 1) },
        { name: 'b', filename: 'b.pdf', content: Buffer.alloc(2900, 1) },
      ],
    );
    assert.equal(total.status, 413);
    assert.match(total.body.errors[0], /^b: the files together are larger than 5000 bytes/);
    const type = await send(
      form.id,
      [['name', 'Ada']],
      [
        { name: 'ok', filename: 'ok.pdf', content: 'fine' },
        { name: 'photo', filename: 'tool.exe', content: 'MZ', type: 'application/x-msdownload' },
      ],
    );
    assert.equal(type.status, 400);
    assert.equal(type.body.code, 'validation_error');
    assert.match(type.body.errors[0], /^photo: tool\.exe is not a type this form accepts/);
    // an image by its declared type passes whatever its name
    const image = await send(form.id, [['name', 'Ada']], [{ name: 'photo', filename: 'photo', content: 'GIF89a', type: 'image/gif' }]);
    assert.equal(image.status, 200, JSON.stringify(image.body));
    assert.deepEqual(
      objects().filter((key) => !before.includes(key)),
      [(await fileRows(form.id))[0]!.storageKey],
    );
    assert.deepEqual(await unclaimed(), beforeUnclaimed);
  });

  it('refuses more than 20 files, and answers a browser with the error page or its _error redirect', async () => {
    const { owner, form } = await fresh();
    const before = objects();
    const many = Array.from({ length: 21 }, (_, i) => ({ name: 'docs', filename: `f${i}.pdf`, content: 'x' }));
    const answer = await send(form.id, [['name', 'Ada']], many);
    assert.equal(answer.status, 400);
    assert.match(answer.body.errors[0], /^docs: at most 20 files/);
    await setLimits(form.id, { maxFileSize: 10, maxTotalSize: 100, allowedTypes: ['.pdf'] });
    const page = await send(form.id, [['name', 'Ada']], [{ name: 'cv', filename: 'cv.pdf', content: 'x'.repeat(50) }], BROWSER_ACCEPT);
    assert.equal(page.status, 413);
    assert.match(String(page.body), /<html/);
    // posted from a site the form lists, `_error` is followed
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: owner.token, body: { allowedOrigins: ['https://example.com'] } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const redirected = await send(
      form.id,
      [
        ['name', 'Ada'],
        ['_error', 'https://example.com/oops'],
      ],
      [{ name: 'cv', filename: 'cv.pdf', content: 'x'.repeat(50) }],
      BROWSER_ACCEPT,
      { origin: 'https://example.com', referer: 'https://example.com/apply' },
    );
    assert.equal(redirected.status, 303);
    assert.equal(redirected.headers.get('location'), 'https://example.com/oops');
    assert.deepEqual(objects(), before);
  });

  it('drops the file and keeps the fields when uploads are off, and tells a JSON client', async () => {
    const { owner, form } = await fresh();
    await setLimits(form.id, null, 0);
    const before = objects();
    const answer = await send(form.id, [['name', 'Ada']], [{ name: 'cv', filename: 'cv.pdf', content: 'pdf bytes' }]);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.data, { name: 'Ada' });
    assert.deepEqual(answer.body.droppedFiles, [{ field: 'cv', name: 'cv.pdf', reason: 'Uploads are off for this form, so the file was not stored.' }]);
    const [row] = await fileRows(form.id);
    assert.equal(row!.submissionId, answer.body.id);
    assert.equal(row!.storageKey, null);
    assert.equal(Number(row!.size), 9);
    assert.match(row!.droppedReason!, /Uploads are off/);
    assert.deepEqual(objects(), before);
    assert.equal(await fileBytes(owner.workspaceId), 0);
  });

  it('drops the file when the workspace’s storage allowance is used up', async () => {
    const { owner, form } = await fresh('FREE');
    const full = uploadCeilings('FREE').storageBytes;
    await app.ctx.database.db.updateTable('workspaces').set({ fileBytes: full }).where('id', '=', owner.workspaceId).execute();
    const answer = await send(form.id, [['name', 'Ada']], [{ name: 'cv', filename: 'cv.pdf', content: 'pdf bytes' }]);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.cv, undefined);
    assert.match(answer.body.droppedFiles[0].reason, /storage allowance/);
    assert.equal((await fileRows(form.id))[0]!.storageKey, null);
    assert.equal(await fileBytes(owner.workspaceId), full);
  });

  it('keeps nothing of a post whose honeypot is filled', async () => {
    const { form } = await fresh();
    const before = objects();
    const beforeUnclaimed = await unclaimed();
    const answer = await send(
      form.id,
      [
        ['name', 'bot'],
        ['_gotcha', 'filled'],
      ],
      [{ name: 'cv', filename: 'cv.pdf', content: 'spam' }],
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(objects(), before);
    assert.deepEqual(await unclaimed(), beforeUnclaimed);
    assert.equal((await fileRows(form.id)).length, 0);
  });

  it('never uses a visitor’s filename as a path: ../../etc/passwd and control characters become a safe name', async () => {
    const { owner, form } = await fresh();
    await setLimits(form.id, { maxFileSize: 1000, maxTotalSize: 5000, allowedTypes: ['.txt', 'application/octet-stream'] });
    const answer = await send(
      form.id,
      [['name', 'Ada']],
      [
        { name: 'a', filename: '../../etc/passwd', content: 'root', type: 'application/octet-stream' },
        { name: 'b', filename: '', disposition: "filename*=UTF-8''no%01te%7F.txt", content: 'note', type: 'text/plain' },
      ],
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.a.name, 'passwd');
    assert.equal(answer.body.data.b.name, 'no_te_.txt');
    for (const row of await fileRows(form.id)) assert.match(row.storageKey!, new RegExp(`^${owner.workspaceId}/[a-z2-7]+$`));
    assert.equal(fs.existsSync(path.join(folder, '..', '..', 'etc', 'passwd')), false);
  });

  /** Posts one file to a fresh form and answers the submission, its storage key and the owner. */
  async function withFile(content = 'bytes!') {
    const { owner, form } = await fresh();
    const answer = await send(
      form.id,
      [
        ['name', 'Ada'],
        ['email', 'erase.me@example.com'],
      ],
      [{ name: 'cv', filename: 'cv.pdf', content }],
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const [row] = await fileRows(form.id);
    assert.ok(objects().includes(row!.storageKey!));
    return { owner, form, id: answer.body.id as string, key: row!.storageKey!, size: content.length };
  }

  async function assertGone(form: { id: string }, key: string, workspaceId: string) {
    assert.equal((await fileRows(form.id)).length, 0);
    assert.equal(objects().includes(key), false);
    assert.equal((await unclaimed()).includes(key), false);
    assert.equal(await fileBytes(workspaceId), 0);
  }

  it('deleting a submission (one, or several) removes its files’ rows and objects and lowers file_bytes', async () => {
    const one = await withFile();
    assert.equal(await fileBytes(one.owner.workspaceId), one.size);
    await app.ctx.submissions.deleteSubmission(one.owner.userId, one.id);
    await assertGone(one.form, one.key, one.owner.workspaceId);
    const bulk = await withFile();
    assert.equal(await app.ctx.submissions.deleteSubmissions(bulk.owner.userId, [bulk.id]), 1);
    await assertGone(bulk.form, bulk.key, bulk.owner.workspaceId);
  });

  it('deleting a form removes its submissions’ files', async () => {
    const made = await withFile();
    await app.ctx.forms.deleteForm(made.owner.userId, made.form.id);
    await assertGone(made.form, made.key, made.owner.workspaceId);
  });

  it('retention, the spam purge and erasure remove the files of what they delete', async () => {
    const kept = await withFile();
    await app.ctx.database.db.updateTable('forms').set({ retentionDays: 1 }).where('id', '=', kept.form.id).execute();
    await applyRetention(app.ctx.database, Date.now() + 2 * 86_400_000, {}, app.ctx.files);
    await assertGone(kept.form, kept.key, kept.owner.workspaceId);

    const spam = await withFile();
    await app.ctx.database.db.updateTable('submissions').set({ status: 'spam' }).where('id', '=', spam.id).execute();
    assert.ok((await app.ctx.submissions.purgeExpiredSpam(1000, Date.now() + 10_000)) >= 1);
    await assertGone(spam.form, spam.key, spam.owner.workspaceId);

    const erased = await withFile();
    const result = await app.ctx.erasure.erase(erased.owner.userId, erased.owner.workspaceId, 'erase.me@example.com');
    assert.equal(result.deleted, 1);
    await assertGone(erased.form, erased.key, erased.owner.workspaceId);
  });

  it('a deletion whose removal fails leaves the key due, and the sweep removes a crash’s leftovers', async () => {
    // a crash after the object was written, before the submission committed: the row is past due
    const key = `${account.workspaceId}/crashleftoverfile234`;
    await app.ctx.files.write(key, (await import('node:stream')).Readable.from([Buffer.from('orphan')]), 'application/pdf');
    await app.ctx.database.db
      .insertInto('unclaimedFiles')
      .values({ storageKey: key, dueAt: Date.now() - 1 })
      .execute();
    // one not due yet (an upload under way) is left alone
    const young = `${account.workspaceId}/youngupload234567abc`;
    await app.ctx.files.write(young, (await import('node:stream')).Readable.from([Buffer.from('young')]), 'application/pdf');
    await app.ctx.database.db
      .insertInto('unclaimedFiles')
      .values({ storageKey: young, dueAt: Date.now() + 3_600_000 })
      .execute();
    const result = await sweepUnclaimedFiles(app.ctx.database, app.ctx.files);
    assert.ok(result.removed >= 1);
    assert.equal(objects().includes(key), false);
    assert.equal((await unclaimed()).includes(key), false);
    assert.equal(objects().includes(young), true);
    assert.equal((await unclaimed()).includes(young), true);
    // bounded batches: several runs' worth goes a batch at a time
    const batch = await sweepUnclaimedFiles(app.ctx.database, app.ctx.files, Date.now() + 7_200_000, { batchSize: 1, maxBatches: 1 });
    assert.equal(batch.removed, 1);
  });

  it('a visitor who goes away mid-upload leaves nothing: the file under way and its unclaimed row go', async () => {
    const { form } = await fresh();
    const before = objects();
    const beforeUnclaimed = await unclaimed();
    const boundary = '----cutoff';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
    const outgoing = http.request(`${app.submitUrl}/${form.id}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + 2 * 1024 * 1024), accept: JSON_ACCEPT },
    });
    outgoing.on('error', () => undefined);
    outgoing.write(head);
    outgoing.write(Buffer.alloc(300 * 1024, 1));
    // the write is under way once its unclaimed row is there
    await until('the upload to start', async () => (await unclaimed()).length > beforeUnclaimed.length);
    outgoing.destroy();
    await until('the upload to be undone', async () => (await unclaimed()).length === beforeUnclaimed.length && objects().length === before.length);
    assert.deepEqual(objects(), before, 'no object, and no partial file either');
    assert.equal((await fileRows(form.id)).length, 0);
  });

  it('echo describes a file as a form would store it, without a link, and stores nothing', async () => {
    const before = objects();
    const built = multipart([['name', 'Ada']], [{ name: 'cv', filename: '../cv.pdf', content: 'x' }]);
    const answer = await request('POST', `${app.submitUrl}/echo`, built.body, { 'content-type': built.contentType, accept: JSON_ACCEPT });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { name: 'Ada', cv: { name: 'cv.pdf', type: 'application/pdf', size: 1 } });
    assert.deepEqual(objects(), before);
  });
});
