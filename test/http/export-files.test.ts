import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { csvRecords, download } from '../helpers/export.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { insertSubmissionWithFiles, type WrittenFile } from '../helpers/submission-files.js';

describe('exports of submissions with files', () => {
  let app: TestApp;
  let owner: Account;
  let form: { id: string; workspaceId: string };
  let files: WrittenFile[];

  const exportOf = (format: string) =>
    download(`${app.baseUrl}/forms/${form.id}/submissions/export?format=${format}`, { authorization: `Bearer ${owner.token}` });

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    form = await createForm(app, owner);
    ({ files } = await insertSubmissionWithFiles(
      app,
      form,
      [
        { field: 'cv', name: 'cv.pdf', type: 'application/pdf', bytes: 'cv' },
        { field: 'photos', name: 'a.png', type: 'image/png', bytes: 'aa' },
        { field: 'photos', name: 'b.png', type: 'image/png', bytes: 'bbb' },
        { field: 'scan', name: 'scan.tif', type: 'image/tiff', bytes: null, droppedReason: 'Uploads are off for this form.' },
      ],
      { fields: { name: 'Ann' } },
    ));
  });
  after(() => app.close());

  it('CSV gives a file as its link, several in one cell as lists are; a dropped file has no column', async () => {
    const answer = await exportOf('csv');
    assert.equal(answer.status, 200);
    const [header, row] = csvRecords(answer.text);
    assert.deepEqual(header, ['id', 'createdAt', 'formId', 'name', 'cv', 'photos']);
    assert.equal(row![4], files[0]!.url);
    assert.equal(row![5], `${files[1]!.url}, ${files[2]!.url}`);
    assert.match(files[0]!.url, new RegExp(`^${app.baseUrl}/files/[^/]+$`));
  });

  it('JSON gives each file as the object stored in data', async () => {
    const answer = await exportOf('json');
    const [submission] = JSON.parse(answer.text);
    assert.deepEqual(submission.data, {
      name: 'Ann',
      cv: { name: 'cv.pdf', type: 'application/pdf', size: 2, url: files[0]!.url },
      photos: [
        { name: 'a.png', type: 'image/png', size: 2, url: files[1]!.url },
        { name: 'b.png', type: 'image/png', size: 3, url: files[2]!.url },
      ],
    });
  });
});
