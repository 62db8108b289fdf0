// Issue 39, item 18: a file's link in an export from the dashboard opens for the person who
// exported it, signed in to the dashboard: it is the dashboard's download, not the API's address
// (which wants a bearer token and answered 401). Anyone else: the sign-in page, or the 404 page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { csvRecords, download } from '../helpers/export.js';
import { createToken } from '../helpers/fixtures.js';
import { person, type Person } from '../helpers/members.js';
import { JSON_ACCEPT, multipartBody, request } from '../helpers/submit.js';

describe(`dashboard exports link files to the dashboard's download (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  let outsider: Person;
  let formId: string;
  let submissionId: string;
  let fileId: string;
  let lookAlike: string;

  /** GETs an absolute address as a browser would follow a link, with the client's cookies and no redirect followed. */
  async function follow(client: DashboardClient | null, address: string) {
    const cookie = client ? [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : '';
    const response = await fetch(address, { redirect: 'manual', headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
    return { status: response.status, location: response.headers.get('location'), body: await response.text(), headers: response.headers };
  }

  before(async () => {
    app = await startApp();
    owner = await person(app, 'owner');
    outsider = await person(app, 'outsider');
    formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Jobs' })).id;
    // a visitor's own object shaped like a file, naming a file id: left as sent
    lookAlike = `${app.ctx.config.baseUrl}/files/fil_not_theirs`;
    const { body, contentType } = multipartBody({ name: 'Ada', 'note[name]': 'x', 'note[url]': lookAlike }, [
      { name: 'cv', filename: 'cv.pdf', content: '%PDF-1.4 Ada' },
    ]);
    const answer = await request('POST', `${app.submitUrl}/${formId}`, body, { 'content-type': contentType, accept: JSON_ACCEPT });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    submissionId = answer.body.id;
    fileId = /\/files\/([^/?]+)$/.exec(answer.body.data.cv.url)![1]!;
  });
  after(() => app?.close());

  const exportOf = (client: DashboardClient, format: 'csv' | 'json') =>
    download(`${app.publicUrl}/forms/${formId}/export?format=${format}`, { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') });

  it('writes the dashboard’s download in the CSV and the JSON, and it opens for the signed-in member', async () => {
    const expected = `${app.publicUrl}/submissions/${submissionId}/files/${fileId}`;
    const csv = csvRecords((await exportOf(owner.client, 'csv')).text);
    const cv = csv[1]![csv[0]!.indexOf('cv')];
    assert.equal(cv, expected);
    const json = JSON.parse((await exportOf(owner.client, 'json')).text);
    assert.equal(json[0].data.cv.url, expected);
    assert.deepEqual(json[0].data.cv, { name: 'cv.pdf', type: 'application/octet-stream', size: 12, url: expected });

    const opened = await follow(owner.client, cv!);
    assert.equal(opened.status, 200);
    assert.equal(opened.body, '%PDF-1.4 Ada');
    assert.match(opened.headers.get('content-disposition') ?? '', /^attachment; filename="cv\.pdf"/);
  });

  it('sends a signed-out click to sign in, then to the file; gives another account the 404 page', async () => {
    const link = `${app.publicUrl}/submissions/${submissionId}/files/${fileId}`;
    const signedOut = await follow(null, link);
    assert.equal(signedOut.status, 303);
    assert.equal(signedOut.location, `/login?next=${encodeURIComponent(`/submissions/${submissionId}/files/${fileId}`)}`);
    // signing in on that page leads back to the file
    const browser = new DashboardClient(app);
    const page = await browser.get(signedOut.location!);
    const next = /name="next" value="([^"]*)"/.exec(page.html)?.[1];
    assert.ok(next, 'the sign-in page carries where to go next');
    const signedIn = await browser.post('/login', { email: owner.email, password: 'a long enough password', next: next.replace(/&#x2F;|&#47;/g, '/') });
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.location, `/submissions/${submissionId}/files/${fileId}`);
    assert.equal((await follow(browser, `${app.publicUrl}${signedIn.location}`)).body, '%PDF-1.4 Ada');

    const stranger = await follow(outsider.client, link);
    assert.equal(stranger.status, 404);
    assert.ok(!stranger.body.includes('%PDF'), 'nothing of the file');
  });

  it('keeps the API’s address in the API’s export, for a client with a token, and leaves a visitor’s look-alike object as sent', async () => {
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const token = await createToken(app, owner.userId, ['submissions:read']);
    const answer = await app.api('GET', `/forms/${formId}/submissions/export?format=json`, { token });
    assert.equal(answer.status, 200);
    const [row] = JSON.parse(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    assert.equal(row.data.cv.url, app.ctx.fileLinks.url(fileId));
    const csv = csvRecords((await exportOf(owner.client, 'csv')).text);
    assert.equal(csv[1]![csv[0]!.indexOf('note.url')], lookAlike);
  });
});
