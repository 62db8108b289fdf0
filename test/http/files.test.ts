import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storageKey } from '../../src/files/file-store.js';
import { startApp, type Answer, type TestApp } from '../helpers/app.js';
import { assertRefusedToken } from '../helpers/auth-matrix.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem, assertSameNotFound } from '../helpers/problems.js';
import { insertSubmissionWithFiles } from '../helpers/submission-files.js';

/** The headers every download carries, whatever the file. */
function assertDownload(answer: Answer, body: string, type: string, disposition: string): void {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body, body);
  assert.equal(answer.headers.get('content-type'), type);
  assert.equal(answer.headers.get('content-length'), String(Buffer.byteLength(body)));
  assert.equal(answer.headers.get('content-disposition'), disposition);
  assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(answer.headers.get('content-security-policy'), "sandbox; default-src 'none'");
  assert.equal(answer.headers.get('cache-control'), 'private, no-store');
}

describe('GET /files/{fileId}', () => {
  let app: TestApp;
  let owner: Account;
  let stranger: Account;
  let form: { id: string; workspaceId: string };
  let cv: { id: string; url: string };
  let dropped: { id: string };

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    stranger = await createAccount(app);
    form = await createForm(app, owner);
    const written = await insertSubmissionWithFiles(
      app,
      form,
      [
        { field: 'cv', name: 'cv.pdf', type: 'application/pdf', bytes: '%PDF-1.7 the CV' },
        { field: 'photo', name: 'me.png', type: 'image/png', bytes: null, droppedReason: 'Uploads are off for this form.' },
      ],
      { fields: { email: 'visitor@example.com' } },
    );
    cv = written.files[0]!;
    dropped = written.files[1]!;
  });
  after(() => app.close());

  it('the url in data is this route; a token with submissions:read on the workspace downloads the file', async () => {
    const [submission] = (await app.api('GET', `/forms/${form.id}/submissions`, { token: owner.token })).body.data;
    assert.deepEqual(submission.data.cv, { name: 'cv.pdf', type: 'application/pdf', size: 15, url: `${app.baseUrl}/files/${cv.id}` });
    const answer = await app.fetch('GET', cv.url, { token: owner.token });
    assertDownload(answer, '%PDF-1.7 the CV', 'application/pdf', `attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`);
  });

  it('another account’s token gets the same 404 as a file that does not exist', async () => {
    const other = await app.api('GET', `/files/${cv.id}`, { token: stranger.token });
    const none = await app.api('GET', '/files/nothing-here', { token: owner.token });
    assertSameNotFound(app, other, cv.id, none, 'nothing-here');
  });

  it('needs a token with submissions:read', async () => {
    assertRefusedToken(app, await app.api('GET', `/files/${cv.id}`), 'none');
    assertRefusedToken(app, await app.api('GET', `/files/${cv.id}`, { token: 'fg_not-a-token' }), 'bad');
    const formsOnly = await createAccount(app, { scopes: ['forms:read'] });
    assertProblem(app, await app.api('GET', `/files/${cv.id}`, { token: formsOnly.token }), 'insufficient_scope');
  });

  it('a dropped file, or one whose object is gone, is 404', async () => {
    assertProblem(app, await app.api('GET', `/files/${dropped.id}`, { token: owner.token }), 'not_found');
    const gone = await insertSubmissionWithFiles(app, form, [{ field: 'cv', name: 'x.pdf', type: 'application/pdf', bytes: 'x' }]);
    await app.ctx.files.remove([storageKey(form.workspaceId, gone.files[0]!.id)]);
    assertProblem(app, await app.api('GET', `/files/${gone.files[0]!.id}`, { token: owner.token }), 'not_found');
  });

  it('through a token, a spam submission’s file is 404 (the API lists accepted submissions only); a FREE workspace’s is upgrade_required', async () => {
    const spam = await insertSubmissionWithFiles(app, form, [{ field: 'cv', name: 's.pdf', type: 'application/pdf', bytes: 'spam' }], { status: 'spam' });
    assertProblem(app, await app.api('GET', `/files/${spam.files[0]!.id}`, { token: owner.token }), 'not_found');
    const free = await createAccount(app, { plan: 'FREE' });
    const freeForm = await app.ctx.forms.createForm(free.userId, free.workspaceId, { name: 'Free' });
    const freeFile = await insertSubmissionWithFiles(app, freeForm, [{ field: 'cv', name: 'f.pdf', type: 'application/pdf', bytes: 'free' }]);
    assertProblem(app, await app.api('GET', `/files/${freeFile.files[0]!.id}`, { token: free.token }), 'upgrade_required');
    // a signed link (a webhook's) works on every plan
    const signed = await app.fetch('GET', app.ctx.fileLinks.signedUrl(freeFile.files[0]!.id, Date.now() + 60_000));
    assert.equal(signed.body, 'free');
  });

  it('a signed link works without a token until it expires; an expired, tampered or borrowed one is 404', async () => {
    const url = app.ctx.fileLinks.signedUrl(cv.id, Date.now() + 60_000);
    assertDownload(await app.fetch('GET', url), '%PDF-1.7 the CV', 'application/pdf', `attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`);
    // a token sent along changes nothing, even another account's
    assert.equal((await app.fetch('GET', url, { token: stranger.token })).status, 200);

    assertProblem(app, await app.fetch('GET', app.ctx.fileLinks.signedUrl(cv.id, Date.now() - 1000)), 'not_found');
    const tampered = url.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
    assertProblem(app, await app.fetch('GET', tampered), 'not_found');
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600));
    assertProblem(app, await app.fetch('GET', later.toString()), 'not_found');
    const other = await insertSubmissionWithFiles(app, form, [{ field: 'cv', name: 'o.pdf', type: 'application/pdf', bytes: 'other' }]);
    const borrowed = app.ctx.fileLinks.signedUrl(other.files[0]!.id, Date.now() + 60_000).replace(other.files[0]!.id, cv.id);
    assertProblem(app, await app.fetch('GET', borrowed), 'not_found');
    assertProblem(app, await app.fetch('GET', `${cv.url}?expires=999999999999`), 'not_found');
  });

  it('a hostile filename cannot break the header; a declared type is never trusted to render', async () => {
    const { files } = await insertSubmissionWithFiles(app, form, [
      { field: 'a', name: 'inv"oice\r\nSet-Cookie: x=1\\../../etc/passwd', type: 'text/html', bytes: '<script>alert(1)</script>' },
      { field: 'b', name: 'résumé 2026 (final).pdf', type: 'application/pdf; charset=x', bytes: 'r' },
      { field: 'c', name: '...', type: 'text/html\r\nX-Evil: 1', bytes: 'c' },
    ]);
    const hostile = await app.fetch('GET', files[0]!.url, { token: owner.token });
    assertDownload(hostile, '<script>alert(1)</script>', 'text/html', `attachment; filename="passwd"; filename*=UTF-8''passwd`);
    assert.equal(hostile.headers.get('set-cookie'), null);
    const unicode = await app.fetch('GET', files[1]!.url, { token: owner.token });
    assertDownload(
      unicode,
      'r',
      'application/pdf',
      `attachment; filename="r_sum_ 2026 (final).pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%202026%20%28final%29.pdf`,
    );
    const junk = await app.fetch('GET', files[2]!.url, { token: owner.token });
    assertDownload(junk, 'c', 'application/octet-stream', `attachment; filename="file"; filename*=UTF-8''file`);
  });
});
