import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { startApp, type TestApp } from '../helpers/app.js';
import { insertMany } from '../helpers/export.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';

// A full collection on demand, so that what is measured is what is still held, not garbage not yet collected.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const ROWS = 50_000;

function retainedHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

describe('export in constant memory', () => {
  let app: TestApp;
  let owner: Account;
  let form: any;

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    form = await createForm(app, owner, { name: 'Big' });
    const message = 'A message long enough to make the export a file of many megabytes. '.repeat(3);
    await insertMany(app, form, ROWS, (i) => ({ name: `Person ${i}`, email: `person${i}@example.com`, message: `${message}${i}` }), Date.now() - ROWS, false);
  });
  after(() => app.close());

  for (const format of ['csv', 'json']) {
    it(`streams ${ROWS.toLocaleString('en')} submissions as ${format}: 500 rows a query, the heap held well below the file's size`, async () => {
      const list = app.ctx.submissions.listSubmissions;
      const fetched: number[] = [];
      app.ctx.submissions.listSubmissions = async function (this: unknown, ...args: Parameters<typeof list>) {
        assert.equal(args[2].limit, 500);
        const page = await list.apply(app.ctx.submissions, args);
        fetched.push(page.rows.length);
        return page;
      };
      const baseline = retainedHeap();
      let peak = 0;
      // sampled while the server reads and writes, the CSV's first walk (before any byte) included
      const sampler = setInterval(() => {
        peak = Math.max(peak, retainedHeap());
      }, 1000);
      let bytes = 0;
      let rows = 0;
      try {
        const response = await fetch(`${app.baseUrl}/forms/${form.id}/submissions/export?format=${format}`, {
          headers: { authorization: `Bearer ${owner.token}` },
        });
        assert.equal(response.status, 200);
        let nextSample = 0;
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          bytes += chunk.length;
          const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
          for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, at + 1)) rows++;
          if (bytes >= nextSample) {
            peak = Math.max(peak, retainedHeap());
            nextSample += 4 * 1024 * 1024;
          }
        }
      } finally {
        clearInterval(sampler);
        app.ctx.submissions.listSubmissions = list;
      }
      const growth = peak - baseline;
      assert.ok(bytes > 10 * 1024 * 1024, `the file is large: ${bytes} bytes`);
      // CSV: a header and one line per row; JSON: `[`, a line per row and `]`
      assert.equal(rows, ROWS + (format === 'csv' ? 1 : 2));
      assert.ok(Math.max(...fetched) <= 500, 'no query read more than 500 rows');
      assert.equal(fetched.length, (format === 'csv' ? 2 : 1) * (ROWS / 500), 'the whole set, page after page');
      // holding the rows or the file would grow the heap by more than the file's size
      assert.ok(growth < bytes / 5, `the heap grew by ${(growth / 1e6).toFixed(1)} MB while ${(bytes / 1e6).toFixed(1)} MB went out`);
    });
  }
});
