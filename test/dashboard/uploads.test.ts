import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FILE_UPLOADS } from '../../src/domain/uploads.js';
import { toFormResource } from '../../src/services/forms.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { person, type Person } from '../helpers/members.js';
import { insertSubmissionWithFiles, type WrittenFile } from '../helpers/submission-files.js';

const MB = 1024 * 1024;

/** The text of the element with that id, entities decoded. */
function textOf(html: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html);
  return match?.[1]
    ?.replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** The File uploads panel as the page posts it (other settings as a blank form has them). */
function uploadFields(panel: { enabled: boolean; file?: string; total?: string; types?: string }): [string, string][] {
  return [
    ['name', 'Contact'],
    ['uploadsShown', '1'],
    ...(panel.enabled ? [['uploadsEnabled', 'on'] as [string, string]] : []),
    ['uploadMaxFileSizeMb', panel.file ?? ''],
    ['uploadMaxTotalSizeMb', panel.total ?? ''],
    ['uploadAllowedTypes', panel.types ?? ''],
  ];
}

describe(`dashboard: file uploads (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  let free: Person;
  let outsider: Person;
  let formId: string;
  let submissionId: string;
  let files: WrittenFile[];

  const resource = async (id: string, who = owner) => toFormResource(await app.ctx.forms.getForm(who.userId, id));

  before(async () => {
    app = await startApp();
    owner = await person(app, 'owner');
    free = await person(app, 'free');
    outsider = await person(app, 'outsider');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact' })).id;
    ({ submissionId, files } = await insertSubmissionWithFiles(
      app,
      { id: formId, workspaceId: owner.workspaceId },
      [
        { field: 'cv', name: 'cv "final".pdf', type: 'application/pdf', bytes: Buffer.alloc(48_213, 1) },
        { field: 'cv', name: 'letter.txt', type: 'text/plain', bytes: 'Dear team' },
        { field: 'photo', name: 'me.png', type: 'image/png', bytes: null, droppedReason: 'Uploads are off for this form.' },
      ],
      { fields: { name: 'Ann' } },
    ));
  });
  after(() => app?.close());

  it('the settings show the panel with the defaults in MB and the plan’s ceilings', async () => {
    const page = await owner.client.get(`/forms/${formId}/settings`);
    assert.equal(page.status, 200);
    assert.match(page.html, /<h2[^>]*>File uploads<\/h2>/);
    assert.match(page.html, /id="field-uploadsEnabled"[^>]*checked/);
    assert.match(page.html, /id="field-uploadMaxFileSizeMb"[^>]*value="10"/);
    assert.match(page.html, /id="field-uploadMaxTotalSizeMb"[^>]*value="25"/);
    assert.match(page.html, /Your plan allows up to 100 MB a file/);
    const freeForm = (await app.ctx.forms.createForm(free.userId, free.workspaceId, { name: 'Free' })).id;
    assert.match((await free.client.get(`/forms/${freeForm}/settings`)).html, /Your plan allows up to 10 MB a file/);
  });

  it('saves uploads off, then on with limits in MB and types; a settings post without the panel leaves them alone', async () => {
    const id = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact' })).id;
    await owner.client.get(`/forms/${id}/settings`);
    assert.equal((await owner.client.post(`/forms/${id}/settings`, uploadFields({ enabled: false }))).status, 303);
    assert.equal((await resource(id)).fileUploads, null);
    const on = await owner.client.post(`/forms/${id}/settings`, uploadFields({ enabled: true, file: '2.5', total: '50', types: '.pdf, image/*  .docx' }));
    assert.equal(on.status, 303);
    assert.deepEqual((await resource(id)).fileUploads, { maxFileSize: 2.5 * MB, maxTotalSize: 50 * MB, allowedTypes: ['.pdf', 'image/*', '.docx'] });
    assert.equal((await owner.client.post(`/forms/${id}/settings`, [['name', 'Renamed']])).status, 303);
    assert.deepEqual((await resource(id)).fileUploads?.maxTotalSize, 50 * MB);
    // the defaults typed back are stored as "the defaults"
    assert.equal((await owner.client.post(`/forms/${id}/settings`, uploadFields({ enabled: true }))).status, 303);
    assert.deepEqual((await resource(id)).fileUploads, DEFAULT_FILE_UPLOADS);
  });

  it('refuses bad limits beside their fields, and changes nothing', async () => {
    const id = (await app.ctx.forms.createForm(free.userId, free.workspaceId, { name: 'Free form' })).id;
    await free.client.get(`/forms/${id}/settings`);
    const before = await resource(id, free);
    const cases: [Parameters<typeof uploadFields>[0], string, RegExp][] = [
      [{ enabled: true, file: 'ten' }, 'field-uploadMaxFileSizeMb-error', /^The largest file must be a number of MB above 0/],
      [{ enabled: true, file: '0' }, 'field-uploadMaxFileSizeMb-error', /^The largest file must be a number of MB above 0/],
      [{ enabled: true, file: '11' }, 'field-uploadMaxFileSizeMb-error', /^The largest file can be at most 10 MB: a FREE workspace allows no more\./],
      [
        { enabled: true, total: '26' },
        'field-uploadMaxTotalSizeMb-error',
        /^The size of all files of a submission can be at most 25 MB: a FREE workspace allows no more\./,
      ],
      [
        { enabled: true, file: '5', total: '2' },
        'field-uploadMaxFileSizeMb-error',
        /^The largest file must not be more than the size of all files of a submission/,
      ],
      [{ enabled: true, types: '.pdf, pdf' }, 'field-uploadAllowedTypes-error', /^Allowed type 2 must be an extension such as/],
    ];
    for (const [panel, errorId, message] of cases) {
      const answer = await free.client.post(`/forms/${id}/settings`, uploadFields(panel));
      assert.equal(answer.status, 400, JSON.stringify(panel));
      assert.match(textOf(answer.html, errorId) ?? '', message, JSON.stringify(panel));
      assert.deepEqual(await resource(id, free), before, `${JSON.stringify(panel)}: nothing changed`);
    }
  });

  it('a submission’s page lists its files with type and size, a Download link, and the dropped one with why', async () => {
    const page = await owner.client.get(`/submissions/${submissionId}`);
    assert.equal(page.status, 200);
    assert.match(page.html, /<h2[^>]*>Files<\/h2>/);
    assert.ok(page.html.includes('cv &quot;final&quot;.pdf') || page.html.includes('cv "final".pdf'));
    assert.match(page.html, /47\.1 KB/);
    assert.match(page.html, /9 bytes/);
    assert.ok(page.html.includes(`href="/submissions/${submissionId}/files/${files[0]!.id}"`));
    assert.match(page.html, /Dropped: Uploads are off for this form\./);
    assert.ok(!page.html.includes(`/files/${files[2]!.id}"`), 'no link to a dropped file');
  });

  it('downloads through the session with the download headers; another account or another submission gets the 404 page', async () => {
    const answer = await owner.client.get(`/submissions/${submissionId}/files/${files[1]!.id}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.html, 'Dear team');
    assert.equal(answer.headers.get('content-type'), 'text/plain');
    assert.equal(answer.headers.get('content-disposition'), `attachment; filename="letter.txt"; filename*=UTF-8''letter.txt`);
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(answer.headers.get('content-security-policy'), "sandbox; default-src 'none'");
    assert.equal(answer.headers.get('cache-control'), 'private, no-store');
    const quoted = await owner.client.get(`/submissions/${submissionId}/files/${files[0]!.id}`);
    assert.equal(quoted.headers.get('content-disposition'), `attachment; filename="cv _final_.pdf"; filename*=UTF-8''cv%20_final_.pdf`);

    const other = await insertSubmissionWithFiles(app, { id: formId, workspaceId: owner.workspaceId }, [
      { field: 'x', name: 'x.txt', type: 'text/plain', bytes: 'x' },
    ]);
    const wrongSubmission = await owner.client.get(`/submissions/${submissionId}/files/${other.files[0]!.id}`);
    const missing = await owner.client.get(`/submissions/${submissionId}/files/nothing`);
    const stranger = await outsider.client.get(`/submissions/${submissionId}/files/${files[1]!.id}`);
    const dropped = await owner.client.get(`/submissions/${submissionId}/files/${files[2]!.id}`);
    for (const answer of [wrongSubmission, missing, stranger, dropped]) {
      assert.equal(answer.status, 404);
      assert.ok(!answer.html.includes('Dear team'));
    }
  });

  it('the inbox marks a submission with its stored files, named for a screen reader', async () => {
    const inbox = await owner.client.get(`/forms/${formId}`);
    assert.match(inbox.html, /<svg role="img" aria-label="2 files"/);
    assert.match(inbox.html, /aria-label="1 file"/);
    // a file's field shows its name, not the object (a long value may wrap after its separators)
    assert.ok(inbox.html.replace(/<wbr\/?>/g, '').includes('letter.txt'));
  });

  it('the workspace shows the storage its files use of the plan’s allowance', async () => {
    const page = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.match(page.html, /File storage used<\/dt>\s*<dd>47\.1 KB<span class="muted"> of 10 GB<\/span>/);
  });
});
