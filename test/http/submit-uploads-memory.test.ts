import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm } from '../helpers/fixtures.js';

// A full collection on demand, so that what is measured is what the server still holds, not garbage
// not yet collected (64 KB socket buffers wait for V8's next collection, which can be 30 MB away).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const MB = 1024 * 1024;

/** What the process holds after a full collection: the heap and the buffers outside it. */
function retained(): number {
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** Posts one file of `size` bytes, sent 64 KB at a time; `sample` is called every 2 MB sent. */
function upload(submitUrl: string, formId: string, size: number, sample: () => void = () => {}): Promise<{ status: number; body: any }> {
  const boundary = '----formgatememory';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n--${boundary}\r\nContent-Disposition: form-data; name="drawing"; filename="drawing.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      `${submitUrl}/${formId}`,
      {
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + size + tail.length,
          accept: 'application/json',
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    outgoing.on('error', reject);
    outgoing.write(head);
    const chunk = Buffer.alloc(64 * 1024, 0x25);
    let sent = 0;
    const more = () => {
      while (sent < size) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += part.length;
        if (sent % (2 * MB) === 0) sample();
        if (!outgoing.write(part)) return void outgoing.once('drain', more);
      }
      outgoing.end(tail);
    };
    more();
  });
}

describe('a large upload is streamed, never held in memory (issue 28)', () => {
  let app: TestApp;
  let formId: string;

  before(async () => {
    app = await startApp();
    const owner = await createAccount(app);
    formId = (await createForm(app, owner)).id;
    // the form accepts a 25 MB file (an upgraded plan allows 100 MB a file)
    await app.ctx.database.db
      .updateTable('forms')
      .set({ uploadLimits: JSON.stringify({ maxFileSize: 30 * MB, maxTotalSize: 30 * MB, allowedTypes: ['.pdf'] }) })
      .where('id', '=', formId)
      .execute();
  });
  after(() => app?.close());

  it('a 25 MB upload raises what the server holds by a few MB at most, sampled as it arrives', async () => {
    // warm up: the code paths loaded
    assert.equal((await upload(app.submitUrl, formId, MB)).status, 200);
    const baseline = retained();
    let peak = baseline;
    let samples = 0;
    const answer = await upload(app.submitUrl, formId, 25 * MB, () => {
      samples++;
      peak = Math.max(peak, retained());
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.drawing.size, 25 * MB);
    assert.ok(samples >= 12);
    const growth = peak - baseline;
    // holding the file would cost 25 MB; streaming holds a few buffers of the socket, busboy and the file
    assert.ok(growth < 4 * MB, `what the server holds grew by ${(growth / MB).toFixed(1)} MB during a 25 MB upload`);
  });
});
