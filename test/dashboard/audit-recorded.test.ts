import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as cli from '../../src/cli/admin.js';
import { pauseDeliveries, resumeDeliveries } from '../../src/cli/delivery-pause.js';
import { fromJson } from '../../src/db/database.js';
import type { AuditEventRow } from '../../src/db/schema/audit-event.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { AIRTABLE_BASE, AIRTABLE_TOKEN } from '../helpers/destination-stand-ins.js';
import { createToken } from '../helpers/fixtures.js';
import { invitationPath, loggedIn, type Person, person } from '../helpers/members.js';
import { postJson } from '../helpers/submit.js';
import { insertSubmissionWithFiles } from '../helpers/submission-files.js';

const PASSWORD = 'a long enough password';
// what visitors sent: none of it may ever reach the audit log
const VISITOR = { email: 'visitor-private@example.net', message: 'Hello from a visitor, my flat is 4B', file: 'visitor-medical-record.pdf' };

type Via = 'dashboard' | 'api' | 'cli';
interface Step {
  action: string;
  via: Via;
  run: () => Promise<unknown>;
  /** Who the event names; the owner's address by default, nobody for a command. */
  actor?: string | null;
}

/**
 * Issue 43, item 4: each change the audit log must record, made through the real dashboard, API
 * or command, and its event looked for. A change that stops being recorded fails its line here.
 */
describe(`audit log: every listed change is recorded (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  let token: string;
  let formId: string;
  let apiFormId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    app = await startApp({ confirmRecipients: 'off' });
    // the first account is the instance admin too: the admin's changes are made by the same client
    owner = await person(app, 'owner');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    token = await createToken(app, owner.userId, ['workspaces:read', 'workspaces:write', 'forms:read', 'forms:write', 'submissions:read', 'submissions:write']);
    formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact' })).id;
  });
  after(() => app.close());

  const dash = (path: string, fields: Record<string, string> = {}) => expectStatus(owner.client.post(path, fields), [200, 303]);
  const api = (method: string, path: string, body?: unknown) => expectStatus(app.api(method, path, { token, body }), [200, 201, 204]);
  let sent = 0;
  // each different: the same message again would be taken for a repeat (spam)
  const submission = async () =>
    (await postJson(app, formId, { email: VISITOR.email, message: `${VISITOR.message} (${++sent} ${'abcdefgh'.repeat(sent)})` })).body.id as string;

  const STEPS: Step[] = [
    // people
    { action: 'member.invited', via: 'dashboard', run: () => dash(`/w/${owner.workspaceId}/invitations`, { email: 'invited@example.com' }) },
    {
      action: 'member.invitation_revoked',
      via: 'dashboard',
      run: async () => {
        const [pending] = await app.ctx.invitations.listPending(owner.userId, owner.workspaceId);
        await dash(`/w/${owner.workspaceId}/invitations/${pending!.id}/revoke`);
      },
    },
    {
      action: 'member.joined',
      via: 'dashboard',
      actor: 'joiner@example.com',
      run: async () => {
        await dash(`/w/${owner.workspaceId}/invitations`, { email: 'joiner@example.com' });
        const joiner = new DashboardClient(app);
        const path = await invitationPath(app, 'joiner@example.com');
        const secret = path.split('/').pop()!;
        await joiner.get(`/signup?invitation=${secret}`);
        await expectStatus(joiner.post('/signup', { email: 'joiner@example.com', password: PASSWORD, invitation: secret }), [303]);
      },
    },
    { action: 'member.removed', via: 'dashboard', run: async () => dash(`/w/${owner.workspaceId}/members/${await userId('joiner@example.com')}/remove`) },
    {
      action: 'member.left',
      via: 'dashboard',
      actor: 'leaver@example.com',
      run: async () => {
        await app.ctx.users.createUser('leaver@example.com', PASSWORD);
        await app.ctx.workspaces.addMember(owner.workspaceId, 'leaver@example.com');
        const leaver = await loggedIn(app, 'leaver@example.com');
        await leaver.get(`/w/${owner.workspaceId}/settings`);
        await expectStatus(leaver.post(`/w/${owner.workspaceId}/leave`, {}), [303]);
      },
    },
    { action: 'account.created', via: 'cli', actor: null, run: () => cli.createUser(app.ctx.config, 'made-by-command@example.com', PASSWORD) },
    { action: 'member.added', via: 'cli', actor: null, run: () => cli.addMember(app.ctx.config, owner.workspaceId, 'made-by-command@example.com') },
    { action: 'account.disabled', via: 'dashboard', run: async () => dash(`/admin/accounts/${await userId('made-by-command@example.com')}/disable`) },
    { action: 'account.enabled', via: 'dashboard', run: async () => dash(`/admin/accounts/${await userId('made-by-command@example.com')}/enable`) },
    { action: 'account.deleted', via: 'dashboard', run: async () => dash(`/admin/accounts/${await userId('made-by-command@example.com')}/delete`) },
    {
      action: 'account.password_changed',
      via: 'dashboard',
      actor: 'changer@example.com',
      run: async () => {
        await app.ctx.users.createUser('changer@example.com', PASSWORD);
        const changer = await loggedIn(app, 'changer@example.com');
        await changer.get('/account');
        await expectStatus(changer.post('/account/password', { currentPassword: PASSWORD, newPassword: `${PASSWORD} too` }), [303]);
      },
    },
    {
      action: 'account.password_reset',
      via: 'dashboard',
      actor: 'resetter@example.com',
      run: async () => {
        await app.ctx.users.createUser('resetter@example.com', PASSWORD);
        await app.ctx.passwordResets.request('resetter@example.com');
        const secret = await emailedLink(app, 'resetter@example.com', /\/reset-password\/([A-Za-z0-9_-]{43})/);
        const stranger = new DashboardClient(app);
        await stranger.get(`/reset-password/${secret}`);
        await expectStatus(stranger.post(`/reset-password/${secret}`, { password: `${PASSWORD} again` }), [303]);
      },
    },
    // tokens, keys, hooks
    { action: 'token.created', via: 'dashboard', run: () => dash('/account/tokens', { name: 'ci', scopes: 'forms:read', currentPassword: PASSWORD }) },
    {
      action: 'token.revoked',
      via: 'dashboard',
      run: async () => dash(`/account/tokens/${(await app.ctx.tokens.listTokens(owner.userId)).find((t) => t.name === 'ci')!.id}/revoke`),
    },
    {
      action: 'token.created',
      via: 'cli',
      actor: null,
      run: () => cli.createToken(app.ctx.config, { email: owner.email, name: 'from-cli', scopes: 'forms:read' }),
    },
    { action: 'token.revoked', via: 'cli', actor: null, run: () => cli.revokeToken(app.ctx.config, owner.email, 'from-cli') },
    {
      action: 'automation_key.created',
      via: 'dashboard',
      run: () => dash(`/w/${owner.workspaceId}/automations/keys`, { name: 'Zapier', currentPassword: PASSWORD }),
    },
    {
      action: 'hook.created',
      via: 'api',
      run: async () =>
        (ids.hook = (await api('POST', '/hooks', { targetUrl: 'https://hooks.example.com/catch/1?secret=x', event: 'submission.created', formId })).body.id),
    },
    { action: 'hook.removed', via: 'api', run: () => api('DELETE', `/hooks/${ids.hook}`) },
    {
      action: 'hook.removed',
      via: 'dashboard',
      run: async () => {
        const hook = await api('POST', '/hooks', { targetUrl: 'https://hooks.example.com/catch/2', event: 'submission.created', formId });
        await dash(`/w/${owner.workspaceId}/automations/hooks/${hook.body.id}/delete`);
      },
    },
    {
      action: 'automation_key.revoked',
      via: 'dashboard',
      run: async () => dash(`/w/${owner.workspaceId}/automations/keys/${(await app.ctx.automationKeys.list(owner.userId, owner.workspaceId))[0]!.id}/revoke`),
    },
    // the workspace, its settings, its plan
    { action: 'workspace.renamed', via: 'dashboard', run: () => dash(`/w/${owner.workspaceId}/settings`, { name: 'Acme' }) },
    { action: 'workspace.renamed', via: 'api', run: () => api('PATCH', `/workspaces/${owner.workspaceId}`, { name: 'Acme support' }) },
    { action: 'workspace.settings_changed', via: 'dashboard', run: () => dash(`/w/${owner.workspaceId}/settings/spam-digest`, { frequency: 'weekly' }) },
    { action: 'workspace.created', via: 'api', run: async () => (ids.workspace = (await api('POST', '/workspaces', { name: 'Second' })).body.id) },
    { action: 'plan.changed', via: 'dashboard', run: () => dash(`/admin/workspaces/${ids.workspace}/plan`, { plan: 'DEALIFY' }) },
    { action: 'plan.changed', via: 'cli', actor: null, run: () => cli.setPlan(app.ctx.config, ids.workspace!, 'BUNDLE_50000') },
    { action: 'workspace.deleted', via: 'dashboard', run: () => dash(`/w/${ids.workspace}/delete`, { confirmName: 'Second' }) },
    { action: 'label.created', via: 'dashboard', run: () => dash(`/w/${owner.workspaceId}/labels`, { name: 'Urgent', color: 'red' }) },
    {
      action: 'label.updated',
      via: 'dashboard',
      run: async () => dash(`/w/${owner.workspaceId}/labels/${await labelId()}`, { name: 'Very urgent', color: 'red' }),
    },
    { action: 'label.deleted', via: 'dashboard', run: async () => dash(`/w/${owner.workspaceId}/labels/${await labelId()}/delete`) },
    // the installation's settings
    { action: 'instance.settings_changed', via: 'dashboard', run: () => dash('/admin/webhook-allow', { webhookAllow: 'hooks.internal.example' }) },
    { action: 'instance.settings_changed', via: 'dashboard', run: () => dash('/admin/usage', { usage: 'team' }) },
    { action: 'instance.deliveries_paused', via: 'dashboard', run: () => dash('/admin/deliveries', { deliveries: 'paused' }) },
    { action: 'instance.deliveries_resumed', via: 'dashboard', run: () => dash('/admin/deliveries', { deliveries: 'on' }) },
    { action: 'instance.deliveries_paused', via: 'cli', actor: null, run: () => pauseDeliveries(app.ctx.config) },
    { action: 'instance.deliveries_resumed', via: 'cli', actor: null, run: () => resumeDeliveries(app.ctx.config) },
    // forms and their settings
    { action: 'form.created', via: 'dashboard', run: () => dash(`/w/${owner.workspaceId}/forms/new`, { name: 'Feedback' }) },
    {
      action: 'form.created',
      via: 'api',
      run: async () => (apiFormId = (await api('POST', '/forms', { workspaceId: owner.workspaceId, name: 'By API' })).body.id),
    },
    { action: 'form.updated', via: 'dashboard', run: () => dash(`/forms/${formId}/settings`, { section: 'general', name: 'Contact us' }) },
    { action: 'form.updated', via: 'api', run: () => api('PATCH', `/forms/${apiFormId}`, { notificationEmails: ['team@example.com'] }) },
    { action: 'form.paused', via: 'dashboard', run: () => dash(`/forms/${formId}/settings/pause`, { paused: '1' }) },
    { action: 'form.resumed', via: 'dashboard', run: () => dash(`/forms/${formId}/settings/pause`, { paused: '0' }) },
    { action: 'form.secret_set', via: 'dashboard', run: () => dash(`/forms/${formId}/settings/secrets/TURNSTILE`, { secret: '0x4AAAAAAA-secret' }) },
    { action: 'form.secret_removed', via: 'dashboard', run: () => dash(`/forms/${formId}/settings/secrets/TURNSTILE/remove`) },
    { action: 'form.secret_set', via: 'cli', actor: null, run: () => cli.setSecret(app.ctx.config, formId, 'HCAPTCHA', '0xhcaptcha-secret') },
    { action: 'form.webhook_secret_shown', via: 'dashboard', run: () => dash(`/forms/${formId}/settings/webhook-secret`) },
    { action: 'form.webhook_secret_rotated', via: 'dashboard', run: () => dash(`/forms/${formId}/settings/webhook-secret/rotate`) },
    { action: 'form.webhook_body_saved', via: 'dashboard', run: () => dash(`/forms/${formId}/settings/webhook-body`, { webhookBodyFormat: 'json' }) },
    {
      action: 'form.chat_channel_saved',
      via: 'dashboard',
      run: () => dash(`/forms/${formId}/settings/chat/discord`, { url: 'https://discord.com/api/webhooks/42/secretXYZ' }),
    },
    { action: 'form.chat_channel_removed', via: 'dashboard', run: () => dash(`/forms/${formId}/settings/chat/discord/remove`) },
    {
      action: 'form.destination_added',
      via: 'dashboard',
      run: () => dash(`/forms/${formId}/settings/destinations/airtable`, { baseId: AIRTABLE_BASE, table: 'Leads', secret: AIRTABLE_TOKEN }),
    },
    {
      action: 'form.destination_updated',
      via: 'dashboard',
      run: async () => dash(`/forms/${formId}/destinations/${await destinationId()}`, { baseId: AIRTABLE_BASE, table: 'People' }),
    },
    {
      action: 'form.destination_updated',
      via: 'dashboard',
      run: async () => dash(`/forms/${formId}/destinations/${await destinationId()}/mapping`, { field: 'email', to: 'Email' }),
    },
    { action: 'form.destination_removed', via: 'dashboard', run: async () => dash(`/forms/${formId}/destinations/${await destinationId()}/remove`) },
    // templates
    { action: 'template.saved', via: 'dashboard', run: () => dash(`/forms/${formId}/templates/notification`, { code: '<p>{{message}}</p>' }) },
    { action: 'template.deleted', via: 'dashboard', run: () => dash(`/forms/${formId}/templates/notification/delete`) },
    { action: 'template.saved', via: 'api', run: () => api('PUT', `/forms/${apiFormId}/templates/notification`, { code: '<p>New</p>' }) },
    { action: 'template.deleted', via: 'api', run: () => api('DELETE', `/forms/${apiFormId}/templates/notification`) },
    // submissions: exports, downloads, erasures, deletions
    {
      action: 'submissions.exported',
      via: 'dashboard',
      run: async () => {
        await submission();
        await expectStatus(owner.client.get(`/forms/${formId}/export?format=csv`), [200]);
      },
    },
    { action: 'submissions.exported', via: 'dashboard', run: () => expectStatus(owner.client.get(`/w/${owner.workspaceId}/export?format=json`), [200]) },
    { action: 'submissions.exported', via: 'api', run: () => api('GET', `/forms/${formId}/submissions/export?format=json&search=visitor`) },
    {
      action: 'submissions.file_downloaded',
      via: 'dashboard',
      run: async () => {
        const form = { id: formId, workspaceId: owner.workspaceId };
        const written = await insertSubmissionWithFiles(app, form, [{ field: 'cv', name: VISITOR.file, type: 'application/pdf', bytes: 'pdf bytes' }]);
        ids.fileSubmission = written.submissionId;
        ids.file = written.files[0]!.id;
        await expectStatus(owner.client.get(`/submissions/${written.submissionId}/files/${ids.file}`), [200]);
      },
    },
    { action: 'submissions.file_downloaded', via: 'api', run: () => expectStatus(app.api('GET', `/files/${ids.file}`, { token }), [200]) },
    {
      action: 'submissions.file_downloaded',
      via: 'api',
      actor: null,
      run: () => expectStatus(app.fetch('GET', app.ctx.fileLinks.signedUrl(ids.file!, Date.now() + 60_000)), [200]),
    },
    { action: 'submissions.deleted', via: 'dashboard', run: async () => dash('/submissions/delete', { id: await submission() }) },
    { action: 'submissions.deleted', via: 'api', run: async () => api('DELETE', `/submissions/${await submission()}`) },
    {
      action: 'submissions.erased',
      via: 'dashboard',
      run: async () => {
        await submission();
        await dash(`/w/${owner.workspaceId}/erase`, { email: VISITOR.email });
      },
    },
    {
      action: 'submissions.erased',
      via: 'api',
      run: async () => {
        await submission();
        await api('POST', `/workspaces/${owner.workspaceId}/erasure`, { email: VISITOR.email });
      },
    },
    // last: they take the owner's things away
    { action: 'form.deleted', via: 'api', run: () => api('DELETE', `/forms/${apiFormId}`) },
    { action: 'form.deleted', via: 'dashboard', run: () => dash(`/forms/${formId}/delete`, { confirm: '1' }) },
    { action: 'token.revoked_all', via: 'dashboard', run: () => dash('/account/logout-everywhere', { revokeTokens: '1' }) },
  ];

  for (const step of STEPS) {
    it(`${step.action} through the ${step.via === 'cli' ? 'command line' : step.via}`, async () => {
      const before = new Set((await events()).map((e) => e.id));
      await step.run();
      const made = (await events()).filter((e) => !before.has(e.id) && e.action === step.action);
      assert.equal(made.length > 0, true, `no ${step.action} event was recorded`);
      const event = made.at(-1)!;
      const actor = step.actor === undefined ? owner.email : step.actor;
      assert.deepEqual({ via: event.via, actorEmail: event.actorEmail }, { via: step.via, actorEmail: actor });
      if (step.via !== 'cli') assert.equal(event.ip, '127.0.0.1', 'where from');
    });
  }

  it('never holds what a visitor sent: no field value, address or file name', async () => {
    const text = JSON.stringify(await events());
    for (const value of Object.values(VISITOR)) assert.ok(!text.includes(value), `${value} is in the audit log`);
    assert.ok(!text.includes('secret=x'), 'a hook’s whole address (which may hold a platform’s secret) is not kept, only its host');
  });

  async function events(): Promise<AuditEventRow[]> {
    return app.ctx.database.db.selectFrom('auditEvents').selectAll().orderBy('at').orderBy('id').execute();
  }
  async function userId(email: string): Promise<string> {
    return (await app.ctx.users.requireByEmail(email)).id;
  }
  async function labelId(): Promise<string> {
    return (await app.ctx.labels.list(owner.userId, owner.workspaceId))[0]!.id;
  }
  async function destinationId(): Promise<string> {
    return (await app.ctx.destinations.listForMember(owner.userId, formId))[0]!.id;
  }
});

async function expectStatus<T extends { status: number }>(answer: Promise<T>, statuses: number[]): Promise<T> {
  const done = await answer;
  const shown = 'html' in done ? String((done as { html: string }).html).slice(0, 400) : JSON.stringify((done as { body?: unknown }).body)?.slice(0, 400);
  assert.ok(statuses.includes(done.status), `answered ${done.status}: ${shown}`);
  return done;
}

/** The secret of the newest link matching `pattern` emailed to `email`, read from the outbox. */
async function emailedLink(app: TestApp, email: string, pattern: RegExp): Promise<string> {
  const jobs = await app.ctx.database.db.selectFrom('jobs').select(['payload']).orderBy('createdAt', 'desc').orderBy('id', 'desc').execute();
  for (const job of jobs) {
    const payload = fromJson<{ to?: string[]; text?: string }>(job.payload);
    const link = payload.to?.includes(email) ? pattern.exec(payload.text ?? '') : null;
    if (link) return link[1]!;
  }
  assert.fail(`no link emailed to ${email}`);
}
