import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { storageKey } from '../../src/files/file-store.js';
import { newId } from '../../src/ids.js';
import { refOf } from '../../src/services/passkeys.js';
import type { TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

export const PASSWORD = 'a long enough password';
/** A word in the submissions of both accounts: a search for it must find the searcher's own only. */
export const SHARED_WORD = 'sharedword';

/** A word in one account's submissions only (its tag backwards), that a page echoing the search does not give away as the tag. */
export function privateWord(tag: string): string {
  return [...tag].reverse().join('');
}

/** The ids of one account's resources, by kind. */
export interface Holdings {
  userId: string;
  email: string;
  /** An upgraded workspace and a free one, each with a form. */
  workspace: string;
  freeWorkspace: string;
  form: string;
  freeForm: string;
  submission: string;
  spam: string;
  /** A stored file of `submission`. */
  file: string;
  job: string;
  tokenId: string;
  /** A full-scope API token's secret. */
  token: string;
  /** A third person, member of `workspace`. */
  member: string;
  /** A pending invitation to `workspace`. */
  invitation: string;
  /** A label of `workspace`, on `submission`. */
  label: string;
  /** A saved view of `workspace`'s inbox (issue 41, item 8). */
  view: string;
  /** An automation-tool key of `workspace`, and a subscription made with it (issue 42). */
  automationKey: string;
  hook: string;
  /** An Airtable destination of `form`, its token stored (issue 42, item 4). */
  destination: string;
  /** A passkey of the account, by the ref its pages use (issue 43, item 2). */
  passkey: string;
  client: DashboardClient;
}

const visitor = visitorAddresses(93);

/**
 * An account holding one of everything (workspaces, forms, templates, a form secret, an accepted and
 * a spam submission, a failed delivery, a token, a member, a pending invitation), logged in to the
 * dashboard. `tag` goes into every name and value, so a page can be searched for any of it.
 */
export async function holdings(app: TestApp, tag: string): Promise<Holdings> {
  const email = `${tag}-owner@example.com`;
  const { user, workspace } = await app.ctx.users.createUser(email, PASSWORD);
  await app.ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
  await app.ctx.workspaces.renameWorkspace(user.id, workspace.id, `${tag} workspace`);
  const free = await app.ctx.workspaces.createWorkspace(user.id, `${tag} free workspace`);
  const form = await app.ctx.forms.createForm(user.id, workspace.id, { name: `${tag} form`, notificationEmails: [`${tag}-team@example.com`] });
  const freeForm = await app.ctx.forms.createForm(user.id, free.id, { name: `${tag} free form` });
  await app.ctx.forms.putSecret(user.id, form.id, 'TURNSTILE', `${tag}-captcha-secret`);
  await app.ctx.templates.putTemplate(user.id, form.id, 'notification', `<p>${tag} notification {{data.name}}</p>`);
  await app.ctx.templates.putTemplate(user.id, form.id, 'autoresponder', `<p>Thank you, {{data.name}}. ${tag} reply</p>`);

  const sent = await postJson(
    app,
    form.id,
    { name: `${tag} sender`, email: `${tag}-visitor@example.com`, message: `${SHARED_WORD} ${tag} ${privateWord(tag)}` },
    visitor(),
  );
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  await postJson(app, freeForm.id, { name: `${tag} free sender`, message: `${SHARED_WORD} ${tag}` }, visitor());
  const caught = await postJson(app, form.id, { name: `${tag} spammer`, message: '<script>steal()</script>' }, visitor());
  assert.equal(caught.status, 200);
  const rows = await app.ctx.database.db.selectFrom('submissions').select(['id', 'status']).where('formId', '=', form.id).execute();
  const submission = rows.find((r) => r.status === 'accepted')!.id;
  const spam = rows.find((r) => r.status === 'spam')?.id;
  assert.ok(spam, 'the spam submission was caught');
  // a file of the accepted submission, its bytes carrying the tag (an answer leaking them is seen)
  const file = newId();
  const key = storageKey(workspace.id, file);
  const bytes = Buffer.from(`${tag} file contents`);
  await app.ctx.files.write(key, Readable.from([bytes]), 'note.txt');
  await app.ctx.database.db
    .insertInto('submissionFiles')
    .values({
      id: file,
      submissionId: submission,
      formId: form.id,
      workspaceId: workspace.id,
      field: 'attachment',
      position: 0,
      name: `${tag}.txt`,
      type: 'text/plain',
      size: bytes.length,
      storageKey: key,
      droppedReason: null,
      createdAt: Date.now(),
    })
    .execute();
  // a failed delivery: what Retry could send again
  const job = await app.ctx.database.db.selectFrom('jobs').select('id').where('submissionId', '=', submission).executeTakeFirstOrThrow();
  await app.ctx.database.db
    .updateTable('jobs')
    .set({ status: 'failed', lastError: `${tag} refused` })
    .where('id', '=', job.id)
    .execute();

  const { token, secret } = await app.ctx.tokens.createToken(user.id, {
    name: `${tag} token`,
    scopes: ['workspaces:read', 'workspaces:write', 'forms:read', 'forms:write', 'submissions:read', 'submissions:write'],
  });
  const member = await app.ctx.users.createUser(`${tag}-member@example.com`, PASSWORD);
  await app.ctx.workspaces.addMember(workspace.id, member.user.email);
  const { invitation } = await app.ctx.invitations.invite(user.id, workspace.id, `${tag}-invitee@example.com`);
  const label = await app.ctx.labels.create(user.id, workspace.id, { name: `${tag} label`, color: 'red' });
  await app.ctx.labels.setLabels(user.id, submission, [label.id]);
  const view = await app.ctx.savedViews.save(user.id, workspace.id, { name: `${tag} view`, formId: null, query: `label=${label.id}` });
  const automation = await app.ctx.automationKeys.create(user.id, workspace.id, `${tag} key`);
  const hook = await app.ctx.hooks.subscribe(await app.ctx.tokens.authenticate(automation.secret), {
    targetUrl: 'https://example.com/hook',
    event: 'submission.created',
    formId: form.id,
  });

  const destination = await app.ctx.destinations.addForMember(user.id, form.id, 'airtable', {
    baseId: 'appABCDEFGHIJ1234',
    table: `${tag} table`,
    secret: `pat${tag
      .replace(/[^A-Za-z0-9]/g, '')
      .padEnd(10, 'x')
      .slice(0, 14)}.${'a'.repeat(40)}`,
  });

  // as the ceremony stores one; second_factor_at left as it was, so that the password alone logs in here
  const passkeyId = Buffer.from(`${tag} credential`).toString('base64url');
  await app.ctx.database.db
    .insertInto('passkeys')
    .values({ id: passkeyId, userId: user.id, name: `${tag} passkey`, publicKey: 'AA', transports: null, lastUsedAt: null, createdAt: Date.now() })
    .execute();

  const client = new DashboardClient(app);
  await client.enter('/login', email, PASSWORD);
  await client.get(`/w/${workspace.id}`);
  return {
    userId: user.id,
    email,
    workspace: workspace.id,
    freeWorkspace: free.id,
    form: form.id,
    freeForm: freeForm.id,
    submission,
    spam,
    file,
    job: job.id,
    tokenId: token.id,
    token: secret,
    member: member.user.id,
    invitation: invitation.id,
    label: label.id,
    view: view.id,
    automationKey: automation.key.id,
    hook: hook.id,
    destination,
    passkey: refOf(passkeyId),
    client,
  };
}

/** The kinds of id an account holds, for trying each of them in every slot of a route. */
export function idsOf(h: Holdings): Record<string, string> {
  return {
    workspace: h.workspace,
    freeWorkspace: h.freeWorkspace,
    form: h.form,
    freeForm: h.freeForm,
    submission: h.submission,
    spam: h.spam,
    file: h.file,
    job: h.job,
    token: h.tokenId,
    user: h.userId,
    member: h.member,
    invitation: h.invitation,
    label: h.label,
    view: h.view,
    automationKey: h.automationKey,
    hook: h.hook,
    destination: h.destination,
    passkey: h.passkey,
  };
}
