// The file store (FORMGATE_FILES) on /healthz and /metrics: reachable or not, it never takes an
// instance out (200), since every instance shares it; probed at most every 30 s.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FileStore } from '../../src/files/file-store.js';
import { FolderFileStore } from '../../src/files/folder-store.js';
import { FilesHealth } from '../../src/services/files-health.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { JSON_ACCEPT, listed, multipartBody, request } from '../helpers/submit.js';
import { type S3Server, S3_SERVER_CREDENTIALS, startS3Server } from '../helpers/s3-server.js';

/** Posts one PDF to the form's submit address as a browser's multipart body, asking for JSON. */
function sendFile(app: TestApp, formId: string, content: string) {
  const { body, contentType } = multipartBody({ message: 'with a file' }, [{ name: 'cv', filename: 'cv.pdf', content }]);
  return request('POST', `${app.submitUrl}/${formId}`, body, { 'content-type': contentType, accept: JSON_ACCEPT });
}

/** The value of one series (`name{labels}` exactly as exposed), or null when it is not there. */
function seriesValue(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

async function healthAndMetrics(app: TestApp) {
  const [health, submitHealth, metrics] = await Promise.all([
    app.fetch('GET', `${app.publicUrl}/healthz`),
    app.fetch('GET', `${app.submitUrl}/healthz`),
    app.fetch('GET', `${app.publicUrl}/metrics`),
  ]);
  assert.deepEqual(submitHealth.body.checks.files, health.body.checks.files, 'both surfaces share one probe');
  return { health, metrics: metrics.body as string };
}

describe('/healthz and /metrics: the file store', () => {
  let server: S3Server;
  before(async () => {
    Object.assign(process.env, S3_SERVER_CREDENTIALS);
    server = await startS3Server();
  });
  after(() => server?.remove());

  it('shows the default folder as ok, with the write counters at 0', async () => {
    const app = await startApp({ metrics: 'on' });
    try {
      const { health, metrics } = await healthAndMetrics(app);
      assert.equal(health.status, 200);
      const files = health.body.checks.files;
      assert.equal(files.status, 'ok', JSON.stringify(files));
      assert.equal(files.kind, 'folder');
      assert.equal(files.where, `folder ${path.join(app.ctx.config.dataDir, 'files')}`);
      assert.ok(Date.parse(files.checkedAt) > Date.now() - 60_000);
      assert.equal(seriesValue(metrics, 'formgate_file_store_up{kind="folder"}'), 1);
      for (const series of [
        'formgate_files_written_total',
        'formgate_file_bytes_written_total',
        'formgate_files_removed_total',
        'formgate_file_write_failures_total',
      ])
        assert.equal(seriesValue(metrics, series), 0, series);
    } finally {
      await app.close();
    }
  });

  it('shows a reachable bucket as ok, and counts the files uploads stored and deletions removed', async () => {
    const app = await startApp({ metrics: 'on', files: server.location('forms') });
    try {
      const owner = await createAccount(app);
      const form = await createForm(app, owner);
      for (const content of ['%PDF-1.4 first', '%PDF-1.4 the second']) assert.equal((await sendFile(app, form.id, content)).status, 200);
      const [first] = await listed(app, owner.token, form.id);
      await app.ctx.submissions.deleteSubmission(owner.userId, first.id);
      const { health, metrics } = await healthAndMetrics(app);
      assert.equal(health.body.status, 'ok', JSON.stringify(health.body));
      assert.deepEqual(
        { ...health.body.checks.files, checkedAt: undefined },
        { status: 'ok', kind: 's3', where: `s3://${server.bucket}/forms/ at ${server.endpoint}`, checkedAt: undefined },
      );
      assert.equal(seriesValue(metrics, 'formgate_file_store_up{kind="s3"}'), 1);
      assert.equal(seriesValue(metrics, 'formgate_files_written_total'), 2);
      assert.equal(seriesValue(metrics, 'formgate_file_bytes_written_total'), 14 + 19);
      assert.equal(seriesValue(metrics, 'formgate_files_removed_total'), 1);
      assert.equal(seriesValue(metrics, 'formgate_file_write_failures_total'), 0);
      assert.doesNotMatch(JSON.stringify(health.body) + metrics, /S3RVER/, 'no credential shown');
    } finally {
      await app.close();
    }
  });

  it('counts a write the folder failed, and not an upload refused for its size', async () => {
    const app = await startApp({ metrics: 'on' });
    try {
      const owner = await createAccount(app);
      const form = await createForm(app, owner);
      await app.ctx.forms.updateForm(owner.userId, form.id, { fileUploads: { maxFileSize: 1024, maxTotalSize: 1024 } });
      assert.equal((await sendFile(app, form.id, 'x'.repeat(4096))).status, 413, 'over the form’s limit');
      const folder = (app.ctx.config.files as { folder: string }).folder;
      fs.rmSync(folder, { recursive: true, force: true });
      fs.writeFileSync(folder, 'a file where the folder should be');
      const failed = await sendFile(app, form.id, '%PDF-1.4 lost');
      // nothing stored: the post is refused (500 internal_error, as any failure to store it)
      assert.equal(failed.status, 500, JSON.stringify(failed.body));
      const metrics = (await app.fetch('GET', `${app.publicUrl}/metrics`)).body as string;
      assert.equal(seriesValue(metrics, 'formgate_file_write_failures_total'), 1);
      assert.equal(seriesValue(metrics, 'formgate_files_written_total'), 0);
    } finally {
      await app.close();
    }
  });

  it('says degraded (files_unreachable) with 200 when the bucket cannot be reached', async () => {
    const app = await startApp({ metrics: 'on', files: server.location('forms').replace(server.bucket, 'missing-bucket') });
    try {
      const { health, metrics } = await healthAndMetrics(app);
      assert.equal(health.status, 200, 'every instance shares the store: none is taken out');
      assert.equal(health.body.status, 'degraded');
      const files = health.body.checks.files;
      assert.equal(files.status, 'degraded');
      assert.equal(files.reason, 'files_unreachable');
      assert.match(files.error, /NoSuchBucket/);
      assert.equal(seriesValue(metrics, 'formgate_file_store_up{kind="s3"}'), 0);
    } finally {
      await app.close();
    }
  });
});

describe('FilesHealth', () => {
  /** A store whose probe answers as `answers` says, counting the probes. */
  function probed(): FileStore & { probes: number; answers: 'ok' | 'fail' | 'hang' } {
    const store = {
      kind: 'folder' as const,
      probes: 0,
      answers: 'ok' as 'ok' | 'fail' | 'hang',
      describe: () => 'folder /nowhere',
      write: async (_key: string, _body: Readable) => 0,
      read: async () => null,
      remove: async () => {},
      async check() {
        store.probes += 1;
        if (store.answers === 'fail') throw new Error('EACCES: permission denied');
        if (store.answers === 'hang') await new Promise(() => {});
      },
    };
    return store;
  }

  it('probes at most once an interval, however many ask, and refreshes in the background after', async () => {
    let now = 1_000_000;
    const store = probed();
    const health = new FilesHealth(store, { intervalMs: 30_000, now: () => now });
    const first = await Promise.all(Array.from({ length: 10 }, () => health.check()));
    assert.equal(store.probes, 1);
    assert.ok(first.every((check) => check.status === 'ok'));
    now += 29_000;
    store.answers = 'fail';
    assert.equal((await health.check()).status, 'ok', 'within the interval: the last answer');
    assert.equal(store.probes, 1);
    now += 2_000;
    assert.equal((await health.check()).status, 'ok', 'due: the last answer while the next probe runs');
    assert.equal(store.probes, 2);
    const failed = await eventually(async () => {
      const check = await health.check();
      return check.status === 'degraded' && check;
    }, 'the background probe to end');
    assert.equal(store.probes, 2);
    assert.deepEqual(failed, {
      status: 'degraded',
      reason: 'files_unreachable',
      kind: 'folder',
      where: 'folder /nowhere',
      checkedAt: new Date(now).toISOString(),
      error: 'EACCES: permission denied',
    });
    assert.equal(await health.reachable(), false);
  });

  it('counts a probe that does not answer in time as unreachable', async () => {
    const store = probed();
    store.answers = 'hang';
    const check = await new FilesHealth(store, { timeoutMs: 50 }).check();
    assert.equal(check.reason, 'files_unreachable');
    assert.match(check.error ?? '', /no answer within 0.05 s/);
  });

  it('finds a real folder store unreachable once its folder cannot be made', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-files-health-'));
    try {
      fs.writeFileSync(path.join(root, 'files'), 'a file where the folder should be');
      const check = await new FilesHealth(new FolderFileStore(path.join(root, 'files'))).check();
      assert.equal(check.status, 'degraded');
      assert.match(check.error ?? '', /EEXIST|ENOTDIR/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
