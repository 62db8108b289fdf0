import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { expireFileReservations, RESERVATION_TTL_MS, reserveFileBytes } from '../../src/db/file-reservations.js';
import { uploadCeilings } from '../../src/domain/uploads.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { JSON_ACCEPT, request } from '../helpers/submit.js';

const MB = 1024 * 1024;
const BOUNDARY = '----formgateallowance';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const ALLOWANCE = uploadCeilings('FREE').storageBytes;

/** A post of a name and one PDF of `size` bytes. */
function post(size: number, name = 'Ada'): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${name}\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
    Buffer.alloc(size, 'a'),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/**
 * Issue 38, item 4: the storage allowance for files holds under concurrency. Twelve parallel 20 MB
 * posts to a Free workspace with 15 MB left were all stored (330 MB against 100 MB): the room was
 * read once per post. Bytes are now reserved as they stream, atomically.
 */
describe('the storage allowance for files under concurrency (issue 38, item 4)', () => {
  let app: TestApp;
  let folder: string;

  before(async () => {
    app = await startApp();
    folder = (app.ctx.config.files as { folder: string }).folder;
  });
  after(() => app.close());

  async function freeForm(room: number) {
    // the API is for upgraded workspaces: the form is made first, then the workspace goes back to FREE
    const owner = await createAccount(app);
    const form = await createForm(app, owner);
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'FREE', { tellOwners: false });
    await app.ctx.database.db
      .updateTable('workspaces')
      .set({ fileBytes: ALLOWANCE - room })
      .where('id', '=', owner.workspaceId)
      .execute();
    return { workspaceId: owner.workspaceId, formId: form.id as string };
  }

  async function workspaceBytes(workspaceId: string) {
    const row = await app.ctx.database.db
      .selectFrom('workspaces')
      .select(['fileBytes', 'fileBytesReserved'])
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    const reservations = await app.ctx.database.db.selectFrom('fileReservations').select('id').where('workspaceId', '=', workspaceId).execute();
    return { used: Number(row.fileBytes), reserved: Number(row.fileBytesReserved), reservations: reservations.length };
  }

  function objectsOf(workspaceId: string): string[] {
    const dir = path.join(folder, workspaceId);
    return fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((entry) => fs.statSync(path.join(dir, entry)).isFile()) : [];
  }

  it('of twelve parallel posts larger together than what is left, exactly those that fit are stored, and the allowance is never passed', async () => {
    const size = 2 * MB;
    const { workspaceId, formId } = await freeForm(5 * MB);
    const body = post(size);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        request('POST', `${app.submitUrl}/${formId}`, body, { 'content-type': CONTENT_TYPE, 'content-length': String(body.length), accept: JSON_ACCEPT }),
      ),
    );
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const stored = answers.filter((answer) => answer.body.data.cv !== undefined);
    const dropped = answers.filter((answer) => answer.body.droppedFiles !== undefined);
    assert.equal(stored.length, 2, 'two files of 2 MB fit in 5 MB');
    assert.equal(dropped.length, 10);
    for (const answer of dropped) {
      assert.deepEqual(answer.body.data, { name: 'Ada' }, 'the fields are kept, and the dropped file is no field');
      assert.match(answer.body.droppedFiles[0].reason, /storage allowance for files is used up/);
    }
    const bytes = await workspaceBytes(workspaceId);
    assert.deepEqual(bytes, { used: ALLOWANCE - 5 * MB + 2 * size, reserved: 0, reservations: 0 });
    assert.ok(bytes.used <= ALLOWANCE);
    assert.equal(objectsOf(workspaceId).length, 2, 'no object of a dropped file is left');
    assert.equal((await app.ctx.database.db.selectFrom('unclaimedFiles').select('storageKey').execute()).length, 0);
  });

  it('drops a file whose bytes run past the allowance mid-stream (a chunked post, no declared length): the fields are kept, its object removed', async () => {
    const { workspaceId, formId } = await freeForm(1 * MB);
    const body = post(3 * MB, 'Grace');
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const outgoing = http.request(
        `${app.submitUrl}/${formId}`,
        { method: 'POST', headers: { 'content-type': CONTENT_TYPE, accept: JSON_ACCEPT, 'transfer-encoding': 'chunked' } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
        },
      );
      outgoing.on('error', reject);
      // in pieces, so the file streams past the room while it is being written
      for (let at = 0; at < body.length; at += 256 * 1024) outgoing.write(body.subarray(at, at + 256 * 1024));
      outgoing.end();
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.data, { name: 'Grace' });
    assert.match(answer.body.droppedFiles[0].reason, /storage allowance/);
    const [row] = await app.ctx.database.db.selectFrom('submissionFiles').selectAll().where('formId', '=', formId).execute();
    assert.equal(row!.storageKey, null);
    assert.equal(Number(row!.size), 3 * MB, 'the dropped file’s size as sent');
    assert.deepEqual(await workspaceBytes(workspaceId), { used: ALLOWANCE - 1 * MB, reserved: 0, reservations: 0 });
    assert.deepEqual(objectsOf(workspaceId), []);
  });

  it('gives back what a crashed process had reserved once its reservation expires', async () => {
    const { workspaceId, formId } = await freeForm(3 * MB);
    const now = Date.now();
    assert.equal(await reserveFileBytes(app.ctx.database, { id: 'crashed-post', workspaceId }, 3 * MB, ALLOWANCE, now), true);
    assert.equal(await reserveFileBytes(app.ctx.database, { id: 'crashed-post', workspaceId }, 1, ALLOWANCE, now), false, 'nothing past the allowance');
    const blocked = await request('POST', `${app.submitUrl}/${formId}`, post(1024), { 'content-type': CONTENT_TYPE, accept: JSON_ACCEPT });
    assert.match(blocked.body.droppedFiles[0].reason, /storage allowance/, 'the reservation holds the room');
    assert.equal(await expireFileReservations(app.ctx.database, now + RESERVATION_TTL_MS - 1), 0, 'not before it expires');
    assert.equal(await expireFileReservations(app.ctx.database, now + RESERVATION_TTL_MS), 1);
    assert.deepEqual(await workspaceBytes(workspaceId), { used: ALLOWANCE - 3 * MB, reserved: 0, reservations: 0 });
    const stored = await request('POST', `${app.submitUrl}/${formId}`, post(1024), { 'content-type': CONTENT_TYPE, accept: JSON_ACCEPT });
    assert.equal(stored.body.data.cv.size, 1024);
  });
});
