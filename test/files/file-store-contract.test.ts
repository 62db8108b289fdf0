// The FileStore contract (issue 28), run alike against a folder and an S3-compatible bucket (s3rver
// on loopback): what the intake, the deletions and /healthz rely on, whichever store is configured.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { parseFilesLocation } from '../../src/config/files-location.js';
import type { FileStoreCounts } from '../../src/files/counted-store.js';
import type { FileStore } from '../../src/files/file-store.js';
import { openFileStore } from '../../src/files/open-file-store.js';
import { S3FileStore } from '../../src/files/s3-store.js';
import { S3_PART_SIZE } from '../../src/files/s3-upload.js';
import { type S3Server, S3_SERVER_CREDENTIALS, startS3Server } from '../helpers/s3-server.js';

const MB = 1024 * 1024;

/** `total` bytes in 64 KB chunks made as they are read (never whole in memory), from a seed. */
function generated(total: number, seed: string, failAfter?: number, everyMegabyte?: () => void): { body: Readable; sha256: () => string } {
  const hash = createHash('sha256');
  let sent = 0;
  let block = createHash('sha512').update(seed).digest();
  const body = new Readable({
    read() {
      if (failAfter !== undefined && sent >= failAfter) return this.destroy(new Error('the visitor went away'));
      if (sent >= total) return this.push(null);
      const size = Math.min(64 * 1024, total - sent);
      const chunk = Buffer.allocUnsafe(size);
      for (let at = 0; at < size; at += block.length) {
        block = createHash('sha512').update(block).digest();
        block.copy(chunk, at);
      }
      hash.update(chunk);
      sent += size;
      if (everyMegabyte && sent % MB === 0) everyMegabyte();
      this.push(chunk);
    },
  });
  return { body, sha256: () => hash.digest('hex') };
}

async function sha256Of(body: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** What the store's counters heard (files/counted-store.ts: `/metrics` counts these). */
interface Tally {
  stored: number;
  bytes: number;
  removed: number;
  failed: number;
}

/** Counters for a store, as Metrics takes them. */
function tally(): Tally & FileStoreCounts {
  const counts = {
    stored: 0,
    bytes: 0,
    removed: 0,
    failed: 0,
    fileStored: (bytes: number) => {
      counts.stored++;
      counts.bytes += bytes;
    },
    fileRemoved: (count: number) => {
      counts.removed += count;
    },
    fileWriteFailed: () => {
      counts.failed++;
    },
  };
  return counts;
}

interface Subject {
  /** Opened as `formgate serve` opens it with FORMGATE_METRICS on: counted. */
  store: FileStore;
  counts: Tally;
  /** The keys under the store's root as it lists them (the folder's files, the bucket's objects under the prefix). */
  listed(): Promise<string[]>;
  /** Makes the store unreachable: the folder becomes a file, the server stops. */
  breakIt(): Promise<void>;
}

function folderSubject(): Subject & { cleanup(): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-files-'));
  const folder = path.join(root, 'files');
  const counts = tally();
  const store = openFileStore(parseFilesLocation(folder, 'unused'), counts);
  return {
    store,
    counts,
    async listed() {
      if (!fs.existsSync(folder)) return [];
      return fs
        .readdirSync(folder, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
    },
    async breakIt() {
      fs.rmSync(folder, { recursive: true, force: true });
      fs.writeFileSync(folder, 'not a folder');
    },
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

function s3Subject(server: S3Server, prefix: string): Subject {
  Object.assign(process.env, S3_SERVER_CREDENTIALS);
  const counts = tally();
  const store = openFileStore(parseFilesLocation(server.location(prefix), 'unused'), counts);
  const raw = new S3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true });
  return {
    store,
    counts,
    async listed() {
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await raw.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: `${prefix}/`, ContinuationToken }));
        for (const object of page.Contents ?? []) keys.push(object.Key!.slice(prefix.length + 1));
        ContinuationToken = page.NextContinuationToken;
      } while (ContinuationToken);
      return keys;
    },
    breakIt: () => server.stop(),
  };
}

function s3Store(location: string): S3FileStore {
  const config = parseFilesLocation(location, 'unused');
  assert.equal(config.kind, 's3');
  return new S3FileStore(config);
}

function contract(kind: 'folder' | 's3', make: () => Promise<Subject>): void {
  describe(`the ${kind} store`, () => {
    let subject: Subject;
    before(async () => {
      subject = await make();
    });

    test('streams a multi-MB body in and reads the same bytes back', async () => {
      const { store } = subject;
      assert.equal(store.kind, kind);
      const source = generated(12 * MB + 12_345, 'round trip');
      assert.equal(await store.write('ws_1/file_round', source.body, 'cv.pdf'), 12 * MB + 12_345);
      const read = await store.read('ws_1/file_round');
      assert.ok(read);
      assert.equal(read.size, 12 * MB + 12_345);
      assert.equal(await sha256Of(read.body), source.sha256());
      const small = await store.write('ws_1/file_small', Readable.from([Buffer.from('hello')]), 'note.txt');
      assert.equal(small, 5);
      const empty = await store.write('ws_1/file_empty', Readable.from([]), 'note.txt');
      assert.equal(empty, 0);
      assert.equal((await store.read('ws_1/file_empty'))?.size, 0);
      assert.deepEqual((await subject.listed()).sort(), ['ws_1/file_empty', 'ws_1/file_round', 'ws_1/file_small']);
      await store.remove(['ws_1/file_round', 'ws_1/file_small', 'ws_1/file_empty']);
      assert.deepEqual(await subject.listed(), []);
      assert.deepEqual({ ...subject.counts }, { ...subject.counts, stored: 3, bytes: 12 * MB + 12_345 + 5, removed: 3, failed: 0 }, 'counted');
    });

    test('a body that fails rejects the write and leaves nothing, before and after its first part', async () => {
      const { store } = subject;
      for (const failAfter of [0, 100 * 1024, S3_PART_SIZE + 2 * MB]) {
        const source = generated(20 * MB, `failing ${failAfter}`, failAfter);
        await assert.rejects(store.write('ws_1/file_failed', source.body, 'cv.pdf'), /the visitor went away/);
        assert.equal(await store.read('ws_1/file_failed'), null);
      }
      assert.deepEqual(await subject.listed(), []);
      assert.equal(subject.counts.failed, 0, 'a body that failed is not the store’s failure');
      assert.equal(subject.counts.stored, 3, 'nor a file stored');
    });

    test('a missing key reads as null and removes without error', async () => {
      assert.equal(await subject.store.read('ws_1/nothing_here'), null);
      await subject.store.remove(['ws_1/nothing_here', 'ws_2/nor_here']);
      await subject.store.remove([]);
    });

    test('removes over a thousand keys (batches of at most 1000), missing ones among them', async () => {
      const { store } = subject;
      const keys = Array.from({ length: 1003 }, (_, index) => `ws_batch/file_${index}`);
      for (let start = 0; start < keys.length; start += 50)
        await Promise.all(keys.slice(start, start + 50).map((key) => store.write(key, Readable.from([Buffer.from(key)]), 'note.txt')));
      assert.equal((await subject.listed()).length, 1003);
      await store.remove([...keys, 'ws_batch/never_written']);
      assert.deepEqual(await subject.listed(), []);
    });

    test('refuses a key that is not one Formgate makes, so nothing lands outside its root', async () => {
      const { store } = subject;
      for (const key of ['../outside', 'ws_1/../../outside', '/etc/passwd', 'ws_1//file', '', 'ws_1/file.pdf', 'ws_1\\file']) {
        await assert.rejects(store.write(key, Readable.from([Buffer.from('x')]), 'note.txt'), /not a storage key/, key);
        await assert.rejects(store.read(key), /not a storage key/, key);
        await assert.rejects(store.remove(['ws_1/fine', key]), /not a storage key/, key);
      }
      assert.deepEqual(await subject.listed(), []);
    });

    test('holds a 25 MB write to a few MB of memory', async (t) => {
      const gc = vm.runInNewContext('gc') as () => void;
      gc();
      const base = process.memoryUsage();
      let heapPeak = 0;
      let buffersPeak = 0;
      // what stays alive while the write goes on, measured after a collection at each megabyte read
      const sample = () => {
        gc();
        const now = process.memoryUsage();
        heapPeak = Math.max(heapPeak, now.heapUsed - base.heapUsed);
        buffersPeak = Math.max(buffersPeak, now.arrayBuffers - base.arrayBuffers);
      };
      const source = generated(25 * MB, 'memory', undefined, sample);
      assert.equal(await subject.store.write('ws_1/file_big', source.body, 'archive.zip'), 25 * MB);
      t.diagnostic(`live heap +${(heapPeak / MB).toFixed(1)} MB, buffers +${(buffersPeak / MB).toFixed(1)} MB at most`);
      // the folder streams chunk by chunk (about 2 MB of chunks on their way); the bucket holds one 5 MB part more
      assert.ok(heapPeak < 6 * MB, `the heap grew by ${(heapPeak / MB).toFixed(1)} MB`);
      assert.ok(buffersPeak < S3_PART_SIZE + 4 * MB, `buffers grew by ${(buffersPeak / MB).toFixed(1)} MB`);
      await subject.store.remove(['ws_1/file_big']);
    });

    test('check() passes, then check() and write() fail once the store cannot be reached', async () => {
      await subject.store.check();
      assert.deepEqual(await subject.listed(), [], 'the probe leaves nothing behind');
      await subject.breakIt();
      await assert.rejects(subject.store.check());
      const source = generated(8 * MB, 'unreachable');
      const failedBefore = subject.counts.failed;
      await assert.rejects(subject.store.write('ws_1/file_lost', source.body, 'cv.pdf'));
      assert.ok(source.body.destroyed, 'a write the store failed destroys the body, so nobody waits on it');
      assert.equal(subject.counts.failed, failedBefore + 1, 'the store’s failure is counted');
    });
  });
}

v8.setFlagsFromString('--expose-gc');

const folder = folderSubject();
after(() => folder.cleanup());
contract('folder', async () => folder);

let server: S3Server;
after(() => server?.remove());
contract('s3', async () => {
  server = await startS3Server();
  return s3Subject(server, 'uploads');
});

describe('the s3 store, beyond the contract', () => {
  test('describe() names the bucket, prefix and endpoint, never a credential', () => {
    process.env.AWS_SECRET_ACCESS_KEY = 'very-secret-key';
    const store = s3Store('s3://my-bucket/forms?endpoint=https://minio.example.com:9000');
    assert.equal(store.describe(), 's3://my-bucket/forms/ at https://minio.example.com:9000');
    const aws = s3Store('s3://my-bucket?region=eu-west-3');
    assert.equal(aws.describe(), 's3://my-bucket/ at AWS eu-west-3');
    Object.assign(process.env, S3_SERVER_CREDENTIALS);
  });

  test('deletes in batches of at most 1000, each with the Content-MD5 that S3-compatible servers demand', async () => {
    const requests: { query: string; md5: string | undefined; body: string }[] = [];
    const recorder = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        requests.push({ query: request.url ?? '', md5: request.headers['content-md5'] as string | undefined, body });
        response.writeHead(200, { 'content-type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><DeleteResult></DeleteResult>');
      });
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    Object.assign(process.env, S3_SERVER_CREDENTIALS);
    try {
      const { port } = recorder.address() as AddressInfo;
      const store = s3Store(`s3://recorded/p?endpoint=http://127.0.0.1:${port}`);
      await store.remove(Array.from({ length: 2001 }, (_, index) => `ws_1/file_${index}`));
      assert.equal(requests.length, 3);
      assert.deepEqual(
        requests.map((request) => (request.body.match(/<Key>/g) ?? []).length),
        [1000, 1000, 1],
      );
      for (const request of requests) {
        assert.match(request.query, /^\/recorded\/?\?delete/);
        assert.equal(request.md5, createHash('md5').update(request.body).digest('base64'));
        assert.match(request.body, /<Key>p\/ws_1\/file_\d+<\/Key>/);
      }
    } finally {
      recorder.close();
    }
  });

  test('a body failing after its first part aborts the multipart upload, so its parts are deleted', async () => {
    const requests: string[] = [];
    const recorder = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        requests.push(`${request.method} ${request.url}`);
        if (request.method === 'POST' && /[?&]uploads(=|&|$)/.test(request.url ?? ''))
          response
            .writeHead(200, { 'content-type': 'application/xml' })
            .end(
              '<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>recorded</Bucket><Key>k</Key><UploadId>upload-1</UploadId></InitiateMultipartUploadResult>',
            );
        else if (request.method === 'PUT') response.writeHead(200, { etag: '"etag-1"' }).end();
        else response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    Object.assign(process.env, S3_SERVER_CREDENTIALS);
    try {
      const { port } = recorder.address() as AddressInfo;
      const store = s3Store(`s3://recorded/p?endpoint=http://127.0.0.1:${port}`);
      const source = generated(20 * MB, 'aborted', S3_PART_SIZE + MB);
      await assert.rejects(store.write('ws_1/file_aborted', source.body, 'cv.pdf'), /the visitor went away/);
      assert.deepEqual(
        requests.map((request) => request.replace(/[?&]x-id=[A-Za-z]+/, '')),
        [
          'POST /recorded/p/ws_1/file_aborted?uploads=',
          'PUT /recorded/p/ws_1/file_aborted?partNumber=1&uploadId=upload-1',
          'DELETE /recorded/p/ws_1/file_aborted?uploadId=upload-1',
        ],
      );
    } finally {
      recorder.close();
    }
  });

  test('an object is plain bytes offered as a download, whatever the visitor declared (issue 38, item 18)', async () => {
    const other = await startS3Server('formgate-object-headers');
    try {
      const forms = s3Subject(other, 'forms');
      const client = new S3Client({ endpoint: other.endpoint, region: 'us-east-1', forcePathStyle: true });
      const headersOf = (key: string) => client.send(new HeadObjectCommand({ Bucket: other.bucket, Key: `forms/${key}` }));
      // one PutObject, and a multipart upload (over one part): both carry the same headers
      await forms.store.write('ws_1/file_page', Readable.from([Buffer.from('<script>alert(1)</script>')]), 'a\u202Efdp.html');
      await forms.store.write('ws_1/file_parts', generated(S3_PART_SIZE + MB, 'parts').body, 'résumé "final".html');
      const page = await headersOf('ws_1/file_page');
      assert.equal(page.ContentType, 'application/octet-stream');
      assert.equal(page.ContentDisposition, `attachment; filename="afdp.html"; filename*=UTF-8''afdp.html`);
      const parts = await headersOf('ws_1/file_parts');
      assert.equal(parts.ContentType, 'application/octet-stream');
      assert.equal(parts.ContentDisposition, `attachment; filename="r_sum_ _final_.html"; filename*=UTF-8''r%C3%A9sum%C3%A9%20_final_.html`);
      client.destroy();
    } finally {
      await other.remove();
    }
  });

  test('keys go under the prefix: a store with another prefix on the same bucket sees none of them', async () => {
    const other = await startS3Server('formgate-prefixes');
    try {
      const forms = s3Subject(other, 'forms');
      const elsewhere = s3Subject(other, 'elsewhere');
      await forms.store.write('ws_1/file_a', Readable.from([Buffer.from('a')]), 'note.txt');
      assert.deepEqual(await forms.listed(), ['ws_1/file_a']);
      assert.equal(await elsewhere.store.read('ws_1/file_a'), null);
      await elsewhere.store.remove(['ws_1/file_a']);
      assert.ok(await forms.store.read('ws_1/file_a'));
      const oddName = await forms.store.write('ws_1/file_c', Readable.from([Buffer.from('c')]), 'note.txt\r\nx-injected: 1');
      assert.equal(oddName, 1, 'a name no header may carry is stored with its controls replaced');
      const missing = openFileStore(parseFilesLocation(other.location('x').replace(other.bucket, 'no-such-bucket'), 'unused'));
      await assert.rejects(missing.check(), /NoSuchBucket|does not exist/);
      await assert.rejects(missing.write('ws_1/file_b', Readable.from([Buffer.from('b')]), 'note.txt'), /NoSuchBucket|does not exist/);
    } finally {
      await other.remove();
    }
  });
});

describe('the folder store, beyond the contract', () => {
  test('a write cut short by a crash leaves a partial file that removeAbandoned takes once it is old, and nothing else', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-partials-'));
    try {
      const store = openFileStore(parseFilesLocation(folder, folder));
      await store.write('ws_1/kept', Readable.from([Buffer.from('whole')]), 'note.txt');
      // what a process killed mid-write leaves: a partial file no key names
      const partials = path.join(folder, '.partial');
      fs.writeFileSync(path.join(partials, 'crashed'), 'half');
      fs.writeFileSync(path.join(partials, 'in-flight'), 'still coming');
      const hourAgo = new Date(Date.now() - 2 * 60 * 60_000);
      fs.utimesSync(path.join(partials, 'crashed'), hourAgo, hourAgo);

      assert.equal(await store.removeAbandoned!(Date.now() - 60 * 60_000), 1);
      assert.deepEqual(fs.readdirSync(partials), ['in-flight'], 'a write still going is left alone');
      const kept = await store.read('ws_1/kept');
      assert.equal(kept?.size, 5, 'stored files are never looked at');
      kept?.body.destroy();
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
