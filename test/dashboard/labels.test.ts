import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LABELS_PER_WORKSPACE } from '../../src/domain/labels.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { listedIds } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { flashOf, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(69);

/** The labels a line of the inbox shows, by the submission's id. */
function lineLabels(html: string, id: string): string[] {
  const line = new RegExp(`name="id" value="${id}"[\\s\\S]*?</tr>`).exec(html)?.[0] ?? '';
  return [...line.matchAll(/<span class="badge line-badge label-(\w+)"><span class="visually-hidden">Label: <\/span>([^<]+)<\/span>/g)].map(
    (m) => `${m[2]} (${m[1]})`,
  );
}

describe(`dashboard: labels (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  let formId: string;
  const ids: string[] = [];

  before(async () => {
    app = await startApp();
    owner = await person(app, 'labels');
    formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact' })).id;
    for (const name of ['Ann', 'Bob', 'Cy']) {
      assert.equal((await postJson(app, formId, { name, message: `Hi from ${name}` }, visitor())).status, 200);
      ids.push(
        (await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).orderBy('seq', 'desc').executeTakeFirstOrThrow()).id,
      );
    }
  });
  after(() => app?.close());

  const labelsPath = () => `/w/${owner.workspaceId}/labels`;
  const labelId = async (name: string) =>
    (
      await app.ctx.database.db
        .selectFrom('labels')
        .select('id')
        .where('workspaceId', '=', owner.workspaceId)
        .where('name', '=', name)
        .executeTakeFirstOrThrow()
    ).id;

  it('makes labels, refusing an empty, long, taken (in any case) or uncoloured one beside its field', async () => {
    await owner.client.get(labelsPath());
    assert.equal((await owner.client.post(labelsPath(), { name: 'Urgent', color: 'red' })).status, 303);
    assert.equal(flashOf((await owner.client.get(labelsPath())).html), 'Label “Urgent” added');
    await owner.client.post(labelsPath(), { name: '  Quote   request ', color: 'green' });
    const page = await owner.client.get(labelsPath());
    assert.match(page.html, /label-green"><span class="visually-hidden">Label: <\/span>Quote request</, 'spaces folded');

    for (const [body, field, message] of [
      [{ name: 'urgent', color: 'blue' }, 'name', 'The workspace has a label of that name.'],
      [{ name: '', color: 'blue' }, 'name', 'Give the label a name.'],
      [{ name: 'x'.repeat(41), color: 'blue' }, 'name', 'At most 40 characters.'],
      [{ name: 'Fine', color: 'chartreuse' }, 'color', /^One of gray, red/],
    ] as const) {
      const refused = await owner.client.post(labelsPath(), body);
      assert.equal(refused.status, 400);
      const shown = new RegExp(`id="field-${field}-error">([^<]*)<`).exec(refused.html)?.[1];
      if (typeof message === 'string') assert.equal(shown, message);
      else assert.match(shown ?? '', message);
    }
    const count = await app.ctx.database.db
      .selectFrom('labels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 2, 'nothing refused was stored');
  });

  it('puts a label on the ticked lines and takes it off, shows it on each line, and filters the inbox by it', async () => {
    const urgent = await labelId('Urgent');
    const added = await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', ids[0]!],
      ['id', ids[2]!],
      ['action', 'label-add'],
      ['label', urgent],
    ]);
    assert.equal(added.status, 303);
    let inbox = await owner.client.get(`/forms/${formId}`);
    assert.equal(flashOf(inbox.html), 'Label added to 2 submissions');
    assert.deepEqual(lineLabels(inbox.html, ids[0]!), ['Urgent (red)']);
    assert.deepEqual(lineLabels(inbox.html, ids[1]!), []);
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?label=${urgent}`)).html), [ids[2], ids[0]]);
    assert.deepEqual(listedIds((await owner.client.get(`/w/${owner.workspaceId}/submissions?label=${urgent}`)).html), [ids[2], ids[0]]);

    // adding again changes nothing; removing takes it off the ticked ones only
    await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', ids[0]!],
      ['action', 'label-add'],
      ['label', urgent],
    ]);
    inbox = await owner.client.get(`/forms/${formId}`);
    assert.equal(flashOf(inbox.html), 'Label added to 0 submissions');
    await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', ids[2]!],
      ['action', 'label-remove'],
      ['label', urgent],
    ]);
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?label=${urgent}`)).html), [ids[0]]);
  });

  it('sets a submission’s labels from its page; renaming shows everywhere; deleting takes it off every submission', async () => {
    const [urgent, quote] = [await labelId('Urgent'), await labelId('Quote request')];
    const page = await owner.client.get(`/submissions/${ids[1]}`);
    assert.match(page.html, /<legend class="visually-hidden">Labels of this submission<\/legend>/);
    const saved = await owner.client.post(`/submissions/${ids[1]}/labels`, [
      ['label', urgent],
      ['label', quote],
    ]);
    assert.equal(saved.location, `/submissions/${ids[1]}#labels`);
    assert.match((await owner.client.get(`/submissions/${ids[1]}`)).html, new RegExp(`value="${quote}" checked`));
    assert.deepEqual(lineLabels((await owner.client.get(`/forms/${formId}`)).html, ids[1]!), ['Quote request (green)', 'Urgent (red)']);

    await owner.client.post(`${labelsPath()}/${urgent}`, { name: 'Call back', color: 'orange' });
    assert.deepEqual(lineLabels((await owner.client.get(`/forms/${formId}`)).html, ids[1]!), ['Call back (orange)', 'Quote request (green)']);
    await owner.client.post(`${labelsPath()}/${urgent}/delete`, {});
    assert.equal(flashOf((await owner.client.get(labelsPath())).html), 'Label “Call back” deleted; it left the submissions that had it');
    assert.deepEqual(lineLabels((await owner.client.get(`/forms/${formId}`)).html, ids[1]!), ['Quote request (green)']);
    const left = await app.ctx.database.db.selectFrom('submissionLabels').select('labelId').execute();
    assert.deepEqual(
      left.map((row) => row.labelId),
      [quote],
    );
    // no box ticked: no labels
    await owner.client.post(`/submissions/${ids[1]}/labels`, {});
    assert.deepEqual(lineLabels((await owner.client.get(`/forms/${formId}`)).html, ids[1]!), []);
  });

  it('holds at most 50 labels a workspace, and deleting a submission takes its labels with it', async () => {
    const other = await person(app, 'many-labels');
    for (let i = 0; i < LABELS_PER_WORKSPACE; i++) await app.ctx.labels.create(other.userId, other.workspaceId, { name: `L${i}`, color: 'gray' });
    await other.client.get(`/w/${other.workspaceId}/labels`);
    const refused = await other.client.post(`/w/${other.workspaceId}/labels`, { name: 'One more', color: 'gray' });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /A workspace has at most 50 labels\./);

    const quote = await labelId('Quote request');
    await app.ctx.labels.setLabels(owner.userId, ids[2]!, [quote]);
    await app.ctx.submissions.deleteSubmission(owner.userId, ids[2]!);
    const rows = await app.ctx.database.db.selectFrom('submissionLabels').selectAll().where('submissionId', '=', ids[2]!).execute();
    assert.deepEqual(rows, []);
  });
});
