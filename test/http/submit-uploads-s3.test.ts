import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { parseFilesLocation } from '../../src/config/files-location.js';
import { storageKey } from '../../src/files/file-store.js';
import { openFileStore } from '../../src/files/open-file-store.js';
import { cliEnv, killRunningCli, type LogLine, seedUpgradedForm, type ServerProcess, spawnServe } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { type S3Server, startS3Server } from '../helpers/s3-server.js';
import { request } from '../helpers/submit.js';

// Issue 28, end to end on the second kind of storage: `formgate serve` with FORMGATE_FILES naming a
// bucket on a real S3-speaking server (s3rver): a browser's multipart post stores its file there,
// the API downloads it, and deleting the submission removes the object.
const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');

describe(`uploads kept in an S3-compatible bucket (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let s3: S3Server;
  let server: ServerProcess;
  let seed: { workspaceId: string; formId: string; token: string | null };
  let baseUrl: string;
  let submitUrl: string;

  before(async () => {
    [database, s3] = await Promise.all([createTestDatabase(), startS3Server('formgate-uploads')]);
    seed = await seedUpgradedForm(database, {
      email: 's3-uploads@example.com',
      formName: 'Applications',
      token: { name: 'reader', scopes: ['submissions:read', 'submissions:write'] },
    });
    server = spawnServe(
      cliEnv(database, { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0', FORMGATE_FILES: s3.location('uploads'), ...s3.env }),
    );
    const ready = await server.waitForLine(READY, 'the ready line', 30_000);
    baseUrl = String(ready.json!.baseUrl);
    submitUrl = String(ready.json!.submitUrl);
    // this process reads the bucket too, to see the objects themselves
    Object.assign(process.env, s3.env);
  });
  after(async () => {
    killRunningCli();
    server?.kill();
    await server?.waitForExit(5_000).catch(() => undefined);
    await s3?.remove();
    await database?.drop();
  });

  it('stores a posted file in the bucket, serves it through the API, and deletes it with its submission', { timeout: 60_000 }, async () => {
    const content = randomBytes(3 * 1024 * 1024);
    const boundary = `----formgate${randomBytes(8).toString('hex')}`;
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const answer = await request('POST', `${submitUrl}/${seed.formId}`, body, {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      accept: 'application/json',
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const file = answer.body.data.cv;
    assert.deepEqual({ name: file.name, type: file.type, size: file.size }, { name: 'cv.pdf', type: 'application/pdf', size: content.length });
    assert.equal(answer.body.data.name, 'Ada');
    const fileId = String(file.url).split('/files/')[1]!;
    assert.equal(file.url, `${baseUrl}/files/${fileId}`);

    // the object is in the bucket, under the prefix, byte for byte
    const bucket = openFileStore(parseFilesLocation(s3.location('uploads'), '/nonexistent'));
    const stored = await bucket.read(storageKey(seed.workspaceId, fileId));
    assert.ok(stored, 'the object is in the bucket');
    assert.equal(stored.size, content.length);
    stored.body.destroy();
    // issue 38, item 18: not the declared type, in case the bucket is ever served directly
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true });
    const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `uploads/${storageKey(seed.workspaceId, fileId)}` }));
    client.destroy();
    assert.equal(head.ContentType, 'application/octet-stream');
    assert.equal(head.ContentDisposition, `attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`);

    const auth = { authorization: `Bearer ${seed.token}` };
    const download = await fetch(file.url, { headers: auth });
    assert.equal(download.status, 200);
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment; filename="cv\.pdf"/);
    assert.equal(download.headers.get('content-type'), 'application/pdf', 'Formgate still serves the type the visitor declared');
    assert.equal(download.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(content), 'the same bytes come back');

    const health = await request('GET', `${baseUrl.replace(/\/public\/v1$/, '')}/healthz`, null, {});
    assert.equal(health.body.checks.files.status, 'ok', JSON.stringify(health.body.checks.files));

    const deleted = await request('DELETE', `${baseUrl}/submissions/${answer.body.id}`, null, auth);
    assert.equal(deleted.status, 204);
    await until('the object to leave the bucket', async () => (await bucket.read(storageKey(seed.workspaceId, fileId))) === null, 10_000, 100);
    assert.equal((await fetch(file.url, { headers: auth })).status, 404);
  });
});
