import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { assetUrl } from '../../src/dashboard/assets.js';
import { newId } from '../../src/ids.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { person, type Person } from '../helpers/members.js';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent, before any decoding. */
  bytes: Buffer;
  /** The body decoded by its Content-Encoding. */
  text: string;
}

/** A request whose answer is read byte for byte (fetch would decode it silently). */
function raw(url: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, headers, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const encoding = response.headers['content-encoding'];
        const decoded = encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes;
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes, text: decoded.toString() });
      });
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from ${url}`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const descriptionOf = (html: string) => /<meta name="description" content="([^"]+)"/.exec(html)?.[1];

// Issue 39, item 21: Lighthouse found the dashboard's HTML and CSS sent uncompressed (58 KiB on the
// inbox) and no page with a meta description.
describe(`dashboard and public pages: compressed text, and a description on every page (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  let formId: string;
  const cookieOf = (who: Person) => [...who.client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

  before(async () => {
    app = await startApp();
    owner = await person(app, 'compress');
    formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Compressed' })).id;
  });
  after(() => app?.close());

  it('sends the pages, the stylesheet and the scripts in br or gzip, as the browser asks, and the same text', async () => {
    const page = `${app.publicUrl}/forms/${formId}?search=${encodeURIComponent('anything')}`;
    const plain = await raw(page, { cookie: cookieOf(owner), accept: 'text/html' });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: as it is');
    for (const [accepted, expected] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['deflate', undefined],
    ] as const) {
      const answer = await raw(page, { cookie: cookieOf(owner), accept: 'text/html', 'accept-encoding': accepted });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-encoding'], expected, accepted);
      if (expected) assert.match(String(answer.headers.vary), /accept-encoding/i);
      // the same page but for its CSRF token, which differs in every answer
      const withoutToken = (html: string) => html.replace(/name="_csrf" value="[^"]+"/g, '');
      assert.equal(withoutToken(answer.text), withoutToken(plain.text), accepted);
      if (expected) assert.ok(answer.bytes.length * 3 < plain.bytes.length, `${accepted}: ${answer.bytes.length} of ${plain.bytes.length} bytes`);
    }
    for (const [asset, expected] of [
      ['app.css', 'br'],
      ['template-editor.js', 'br'],
      ['time-zone.js', undefined], // under 1 KB: not worth it
    ] as const) {
      const answer = await raw(`${app.publicUrl}${assetUrl(asset)}`, { 'accept-encoding': 'br, gzip' });
      assert.equal(answer.status, 200, asset);
      assert.equal(answer.headers['content-encoding'], expected, asset);
    }
    const login = await raw(`${app.publicUrl}/login`, { accept: 'text/html', 'accept-encoding': 'gzip' });
    assert.equal(login.headers['content-encoding'], 'gzip');
  });

  // Issue 41's bar: a page of the inbox, 50 ordinary submissions with a label each, weighs at most 60 KB as sent
  it('sends a page of 50 submissions in at most 60 KB, gzip or br', async () => {
    const busy = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Busy' })).id;
    const label = await app.ctx.labels.create(owner.userId, owner.workspaceId, { name: 'Quote', color: 'green' });
    const t = Date.now() - 60_000;
    const rows = Array.from({ length: 55 }, (_, i) => ({
      id: newId(),
      formId: busy,
      workspaceId: owner.workspaceId,
      data: JSON.stringify({
        name: `Person Number ${i}`,
        email: `person.${i}@example.com`,
        message: `Hello, we would like a quote for ${i + 10} desks and chairs for the new office.\nCould you also tell us how long delivery takes?`,
        interests: ['Desks', 'Chairs'],
      }),
      status: 'accepted' as const,
      createdAt: t + i,
      searchText: '',
      assigneeId: i % 3 === 0 ? owner.userId : null,
    }));
    await app.ctx.database.db.insertInto('submissions').values(rows).execute();
    await app.ctx.database.db
      .insertInto('submissionLabels')
      .values(rows.map((row) => ({ submissionId: row.id, labelId: label.id, createdAt: row.createdAt })))
      .execute();
    for (const encoding of ['gzip', 'br']) {
      const answer = await raw(`${app.publicUrl}/forms/${busy}`, { cookie: cookieOf(owner), accept: 'text/html', 'accept-encoding': encoding });
      assert.equal(answer.status, 200);
      assert.equal([...answer.text.matchAll(/name="id" value=/g)].length, 50);
      assert.ok(answer.bytes.length <= 60 * 1024, `${encoding}: ${answer.bytes.length} bytes (${answer.text.length} uncompressed)`);
    }
  });

  it('never compresses a page that shows a secret, an export, or the API (BREACH; docs/decisions.md)', async () => {
    // a page's CSRF token is new in every answer: a compressed length says nothing of it
    const tokens = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const answer = await raw(`${app.publicUrl}/account/tokens`, { cookie: cookieOf(owner), accept: 'text/html', 'accept-encoding': 'br' });
      tokens.add(/name="_csrf" value="([^"]+)"/.exec(answer.text)![1]!);
    }
    assert.equal(tokens.size, 3);

    const fields = new URLSearchParams({ _csrf: [...tokens][0]!, name: 'laptop', scopes: 'forms:read', currentPassword: 'a long enough password' }).toString();
    const created = await raw(
      `${app.publicUrl}/account/tokens`,
      {
        cookie: cookieOf(owner),
        accept: 'text/html',
        'accept-encoding': 'br, gzip',
        origin: app.publicUrl,
        'content-type': 'application/x-www-form-urlencoded',
      },
      'POST',
      fields,
    );
    assert.equal(created.status, 200, created.text.slice(0, 300));
    assert.match(created.text, /it will not be shown again/);
    assert.equal(created.headers['content-encoding'], undefined, 'the new token’s page is sent as it is');

    const exported = await raw(`${app.publicUrl}/forms/${formId}/export?format=csv`, { cookie: cookieOf(owner), 'accept-encoding': 'br, gzip' });
    assert.equal(exported.headers['content-encoding'], undefined, 'an export is sent as it is');
    const api = await raw(`${app.baseUrl}/openapi.json`, { 'accept-encoding': 'br, gzip' });
    assert.equal(api.headers['content-encoding'], undefined, 'the API is left as it was');
  });

  it('compresses the submit surface’s built-in pages too, which hold no secret', async () => {
    const thanks = `${app.submitUrl}/${formId}/thanks`;
    const plain = await raw(thanks, { accept: 'text/html' });
    const compressed = await raw(thanks, { accept: 'text/html', 'accept-encoding': 'gzip, br' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(compressed.headers['content-encoding'], 'br');
    assert.equal(compressed.text, plain.text);
    assert.equal(Number(compressed.headers['content-length']), compressed.bytes.length);
    assert.match(String(compressed.headers.vary), /accept-encoding/i);
  });

  it('gives every page a meta description: the dashboard’s frame, its public pages, the submit surface’s pages, the API’s error page', async () => {
    const pages = [
      (await raw(`${app.publicUrl}/forms/${formId}`, { cookie: cookieOf(owner), accept: 'text/html' })).text,
      (await raw(`${app.publicUrl}/login`, { accept: 'text/html' })).text,
      (await raw(`${app.submitUrl}/${formId}/thanks`, { accept: 'text/html' })).text,
      (await raw(`${app.submitUrl}/${formId}`, { accept: 'text/html' })).text,
      (await raw(`${app.submitUrl}/${formId}`, { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, 'POST', '')).text,
      (await raw(`${app.publicUrl}/docs/errors`, { accept: 'text/html' })).text,
    ];
    for (const html of pages) {
      const description = descriptionOf(html);
      assert.ok(description && description.length >= 20, `${html.slice(0, 400)}`);
    }
    assert.equal(descriptionOf(pages[2]!), 'Your submission has been received.');
  });
});
