import { SHARED_WORD } from './two-accounts.js';

/**
 * What the isolation matrix sends to each route. `variants` name where ids go besides the path: a
 * query or body value `:param` is replaced like a path parameter, so every kind of the other
 * account's ids is tried there too. `own` says why no id of another account can be named at all
 * (what such a route shows is checked by the listings test, or by sessions-tokens.test.ts).
 * Every route must have an entry: a new route fails the suite until someone decides which it is.
 */
export type Entry = { variants: Variant[] } | { own: string };
export interface Variant {
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

const PATH_ONLY: Entry = { variants: [{}] };
const LOGGED_OUT = { own: 'a page before login: it names no account’s resource' };
const SECRET_LINK = { own: 'addressed by an emailed secret, not an id (sessions-tokens.test.ts)' };
const NOT_SPAM_LINK = { own: 'addressed by a digest’s link signed for one member and submission, not an id (test/dashboard/spam-digest.test.ts)' };
const SIGNUP_LINK = { own: 'addressed by an emailed link signed for one address, not an id (test/dashboard/open-signup.test.ts)' };
const CALLERS_OWN = { own: 'acts on the caller’s own account or session only' };
const LISTING = { own: 'lists the caller’s own things (the listings test)' };

/** Management API operations, keyed "METHOD path" as the OpenAPI document names them. */
export const API_ENTRIES: Record<string, Entry> = {
  'GET /me': CALLERS_OWN,
  'GET /workspaces': LISTING,
  'POST /workspaces': { own: 'creates a workspace of the caller’s own (the listings test)' },
  'PATCH /workspaces/:workspaceId': { variants: [{ body: { name: 'Taken over' } }, { body: { name: '' } }] },
  'GET /workspaces/:workspaceId/submissions': { variants: [{}, { query: { search: SHARED_WORD } }, { query: { limit: '0' } }] },
  'GET /forms': { variants: [{ query: { workspaceId: ':workspaceId' } }, { query: { workspaceId: ':workspaceId', limit: '0' } }] },
  'POST /forms': { variants: [{ body: { workspaceId: ':workspaceId', name: 'Planted form' } }, { body: { workspaceId: ':workspaceId', name: '' } }] },
  'GET /forms/:formId': PATH_ONLY,
  'PATCH /forms/:formId': { variants: [{ body: { name: 'Taken over', notificationEmails: ['intruder@example.com'] } }, { body: { name: '' } }] },
  'DELETE /forms/:formId': PATH_ONLY,
  'GET /forms/:formId/submissions': { variants: [{}, { query: { search: SHARED_WORD } }, { query: { limit: '0' } }] },
  'GET /forms/:formId/submissions/export': { variants: [{ query: { format: 'csv' } }, { query: { format: 'json' } }, { query: { format: 'xml' } }] },
  'GET /forms/:formId/templates/:kind': PATH_ONLY,
  'PUT /forms/:formId/templates/:kind': { variants: [{ body: { code: '<p>mine now</p>' } }, { body: { code: '{{#if' } }, { body: {} }] },
  'DELETE /forms/:formId/templates/:kind': PATH_ONLY,
  'POST /forms/:formId/templates/:kind/preview': { variants: [{ body: { data: { name: 'x' } } }, { body: { data: 'not an object' } }] },
  'DELETE /submissions/:submissionId': PATH_ONLY,
  'GET /forms/:formId/spam': { variants: [{}, { query: { limit: '0' } }] },
  'POST /submissions/:submissionId/spam': PATH_ONLY,
  'DELETE /submissions/:submissionId/spam': PATH_ONLY,
  'GET /submissions/:submissionId/triage': PATH_ONLY,
  'PATCH /submissions/:submissionId/triage': { variants: [{ body: { status: 'done' } }, { body: { assigneeId: null } }, { body: { labelIds: [] } }] },
  'GET /forms/:formId/triage': { variants: [{}, { query: { status: 'open' } }] },
  'GET /workspaces/:workspaceId/triage': { variants: [{}, { query: { status: 'done' } }] },
  'GET /files/:fileId': { variants: [{}, { query: { expires: '9999999999', signature: 'forged' } }] },
  // the victim's visitor wrote from this address (two-accounts.ts): erasing it elsewhere must find nothing of theirs
  'POST /workspaces/:workspaceId/erasure/preview': { variants: [{ body: { email: 'victim-visitor@example.com' } }, { body: { email: 'not an address' } }] },
  'POST /workspaces/:workspaceId/erasure': { variants: [{ body: { email: 'victim-visitor@example.com' } }, { body: { email: '' } }] },
  'POST /hooks': {
    variants: [
      { body: { targetUrl: 'https://example.com/planted', event: 'submission.created', formId: ':formId' } },
      { body: { targetUrl: 'https://example.com/planted', event: 'submission.created', workspaceId: ':workspaceId' } },
    ],
  },
  'GET /hooks': { variants: [{ query: { workspaceId: ':workspaceId' } }] },
  'DELETE /hooks/:hookId': PATH_ONLY,
  'GET /hooks/samples/:event': { variants: [{ query: { formId: ':formId' } }, { query: { workspaceId: ':workspaceId' } }] },
};

/** Dashboard routes, keyed "METHOD path" as Fastify registered them. */
export const DASHBOARD_ENTRIES: Record<string, Entry> = {
  'GET /': LISTING,
  'GET /account': CALLERS_OWN,
  'POST /account/password': CALLERS_OWN,
  'POST /account/time-zone': CALLERS_OWN,
  'POST /account/logout-everywhere': CALLERS_OWN,
  'GET /account/tokens': LISTING,
  'POST /account/tokens': CALLERS_OWN,
  'GET /account/tokens/:tokenId/revoke': PATH_ONLY,
  'POST /account/tokens/:tokenId/revoke': PATH_ONLY,
  'GET /admin': { own: 'the instance admin’s page; neither account is the admin (the listings test checks it is refused)' },
  'POST /admin/mail/test': { own: 'the instance admin’s test email, to their own address; neither account is the admin' },
  'POST /admin/deliveries': { own: 'the installation-wide deliveries switch, the instance admin’s alone; neither account is the admin' },
  'POST /admin/workspaces/:workspaceId/plan': { variants: [{ body: { plan: 'DEALIFY' } }] },
  'GET /setup': LOGGED_OUT,
  'POST /setup': { own: 'creates the first account only while none exists; with the two accounts made, it makes nothing (first-run.test.ts)' },
  'POST /admin/usage': { own: 'an installation-wide setting, the instance admin’s alone; neither account is the admin' },
  'POST /admin/webhook-allow': { own: 'an installation-wide setting, the instance admin’s alone; neither account is the admin' },
  'GET /admin/accounts/:accountId': PATH_ONLY,
  'POST /admin/accounts/:accountId/:action': { variants: [{}] },
  'GET /signup': LOGGED_OUT,
  'POST /signup': LOGGED_OUT,
  'GET /signup/sent': LOGGED_OUT,
  'GET /signup/confirm': SIGNUP_LINK,
  'POST /signup/confirm': SIGNUP_LINK,
  'GET /login': LOGGED_OUT,
  'POST /login': LOGGED_OUT,
  'POST /logout': CALLERS_OWN,
  'GET /forgot-password': LOGGED_OUT,
  'POST /forgot-password': LOGGED_OUT,
  'GET /forgot-password/sent': LOGGED_OUT,
  'GET /reset-password/:token': SECRET_LINK,
  'POST /reset-password/:token': SECRET_LINK,
  'GET /invitations/:secret': SECRET_LINK,
  'POST /invitations/:secret': SECRET_LINK,
  'POST /invitations/:secret/logout': SECRET_LINK,
  'GET /not-spam/:token': NOT_SPAM_LINK,
  'POST /not-spam/:token': NOT_SPAM_LINK,
  'GET /recipients/:secret': {
    own: 'addressed by an emailed secret, not an id (test/dashboard/recipients.test.ts: a link answers for its own workspace only)',
  },
  'POST /recipients/:secret': {
    own: 'addressed by an emailed secret, not an id (test/dashboard/recipients.test.ts: a link answers for its own workspace only)',
  },
  'GET /submissions/delete': { variants: [{ query: { id: ':submissionId' } }] },
  'POST /submissions/delete': { variants: [{ body: { id: ':submissionId' } }] },
  'GET /submissions/:submissionId': PATH_ONLY,
  'GET /submissions/:submissionId/files/:fileId': PATH_ONLY,
  'POST /submissions/:submissionId/not-spam': PATH_ONLY,
  'POST /submissions/:submissionId/unread': PATH_ONLY,
  'POST /submissions/:submissionId/spam': PATH_ONLY,
  'POST /submissions/:submissionId/note': { variants: [{ body: { note: 'planted' } }] },
  'POST /submissions/:submissionId/triage': { variants: [{ body: { status: 'done' } }, { body: { assignee: '' } }] },
  'POST /submissions/:submissionId/labels': { variants: [{ body: { label: ':labelId' } }, { body: {} }] },
  'GET /w/:workspaceId/labels': PATH_ONLY,
  'POST /w/:workspaceId/labels': { variants: [{ body: { name: 'Planted', color: 'red' } }] },
  'POST /w/:workspaceId/labels/:labelId': { variants: [{ body: { name: 'Taken over' } }] },
  'POST /w/:workspaceId/labels/:labelId/delete': PATH_ONLY,
  'GET /w/:workspaceId/automations': PATH_ONLY,
  'POST /w/:workspaceId/automations/keys': { variants: [{ body: { name: 'Planted', currentPassword: 'wrong' } }] },
  'POST /w/:workspaceId/automations/keys/:keyId/revoke': PATH_ONLY,
  'POST /w/:workspaceId/automations/hooks/:hookId/delete': PATH_ONLY,
  'POST /w/:workspaceId/views': {
    variants: [{ body: { name: 'Planted', form: '', query: 'unread=1' } }, { body: { name: 'Planted', form: ':formId', query: '' } }],
  },
  'POST /w/:workspaceId/views/:viewId/delete': PATH_ONLY,
  'POST /forms/:formId/bulk': {
    variants: [
      { body: { id: ':submissionId', action: 'spam' } },
      { body: { id: ':submissionId', action: 'read' } },
      { body: { id: ':submissionId', action: 'done' } },
      { body: { id: ':submissionId', action: 'assign', assignee: '' } },
      { body: { id: ':submissionId', action: 'label-add', label: ':labelId' } },
      { body: { pageId: ':submissionId', all: '1', action: 'delete' } },
    ],
  },
  'POST /w/:workspaceId/submissions/bulk': {
    variants: [
      { body: { id: ':submissionId', action: 'spam' } },
      { body: { id: ':submissionId', action: 'read' } },
      { body: { id: ':submissionId', action: 'done' } },
      { body: { id: ':submissionId', action: 'assign', assignee: '' } },
      { body: { id: ':submissionId', action: 'label-add', label: ':labelId' } },
      { body: { pageId: ':submissionId', all: '1', action: 'delete' } },
    ],
  },
  'GET /forms/:formId': { variants: [{}, { query: { search: SHARED_WORD } }] },
  'GET /forms/:formId/setup': PATH_ONLY,
  'GET /forms/:formId/settings': PATH_ONLY,
  'POST /forms/:formId/settings': { variants: [{ body: { action: 'save', name: 'Taken over', notificationEmails: 'intruder@example.com' } }] },
  'POST /forms/:formId/settings/pause': { variants: [{ body: { paused: '1' } }] },
  'POST /forms/:formId/settings/secrets/:provider': { variants: [{ body: { secret: 'intruder-secret' } }] },
  'POST /forms/:formId/settings/secrets/:provider/remove': PATH_ONLY,
  'POST /forms/:formId/settings/chat/:channel': { variants: [{ body: { url: 'https://discord.com/api/webhooks/1/intruder' } }] },
  'POST /forms/:formId/settings/chat/:channel/remove': PATH_ONLY,
  'POST /forms/:formId/settings/chat/:channel/test': PATH_ONLY,
  'POST /forms/:formId/settings/webhook/test': PATH_ONLY,
  'POST /forms/:formId/settings/destinations/:service': {
    variants: [{ body: { baseId: 'appABCDEFGHIJ1234', table: 'Intruder', secret: 'patIntruder12345.aaaaaaaaaaaaaaaaaaaaaaaa' } }],
  },
  'GET /forms/:formId/destinations/:destinationId': PATH_ONLY,
  'POST /forms/:formId/destinations/:destinationId': { variants: [{ body: { baseId: 'appABCDEFGHIJ1234', table: 'Taken over', secret: '' } }] },
  'POST /forms/:formId/destinations/:destinationId/mapping': { variants: [{ body: { field: 'name', to: 'Taken over' } }] },
  'POST /forms/:formId/destinations/:destinationId/test': PATH_ONLY,
  'POST /forms/:formId/destinations/:destinationId/remove': PATH_ONLY,
  'POST /forms/:formId/settings/webhook-body': {
    variants: [{ body: { webhookBodyFormat: 'json-template', webhookBodyTemplate: '{"taken": "over"}' } }, { body: { webhookBodyFormat: 'nope' } }],
  },
  'GET /forms/:formId/settings/webhook-body/preview': PATH_ONLY,
  'POST /forms/:formId/settings/webhook-body/preview': { variants: [{ body: { webhookBodyFormat: 'json-template', webhookBodyTemplate: '{"a": {{data}}}' } }] },
  'POST /forms/:formId/settings/webhook-secret': PATH_ONLY,
  'POST /forms/:formId/settings/recipients/resend': { variants: [{ body: { resend: 'intruder@example.com' } }] },
  'GET /forms/:formId/settings/webhook-secret/rotate': PATH_ONLY,
  'POST /forms/:formId/settings/webhook-secret/rotate': PATH_ONLY,
  'GET /forms/:formId/spam': { variants: [{}, { query: { search: SHARED_WORD } }] },
  'POST /forms/:formId/spam/bulk': {
    variants: [
      { body: { id: ':submissionId', action: 'not-spam' } },
      { body: { id: ':submissionId', action: 'delete' } },
      { body: { pageId: ':submissionId', all: '1', action: 'not-spam' } },
    ],
  },
  'GET /forms/:formId/held': PATH_ONLY,
  'POST /forms/:formId/test-submission': PATH_ONLY,
  'GET /forms/:formId/test-submission/:submissionId': PATH_ONLY,
  'GET /forms/:formId/templates': PATH_ONLY,
  'GET /forms/:formId/templates/:kind': PATH_ONLY,
  'POST /forms/:formId/templates/:kind': { variants: [{ body: { code: '<p>mine now</p>' } }] },
  'GET /forms/:formId/templates/:kind/preview': PATH_ONLY,
  'POST /forms/:formId/templates/:kind/preview': { variants: [{ body: { code: '<p>{{data.name}}</p>' } }] },
  'POST /forms/:formId/templates/:kind/test': PATH_ONLY,
  'GET /forms/:formId/templates/:kind/delete': PATH_ONLY,
  'POST /forms/:formId/templates/:kind/delete': PATH_ONLY,
  'GET /forms/:formId/deliveries': { variants: [{}, { query: { status: 'failed' } }] },
  'POST /forms/:formId/deliveries/retry-failed': PATH_ONLY,
  'POST /forms/:formId/deliveries/:jobId/retry': PATH_ONLY,
  'GET /forms/:formId/delete': PATH_ONLY,
  'POST /forms/:formId/delete': PATH_ONLY,
  'GET /forms/:formId/export': { variants: [{ query: { format: 'csv' } }, { query: { format: 'json' } }] },
  'GET /w/:workspaceId': PATH_ONLY,
  'GET /w/:workspaceId/forms/new': PATH_ONLY,
  'POST /w/:workspaceId/forms/new': { variants: [{ body: { name: 'Planted form' } }] },
  'GET /w/:workspaceId/settings': PATH_ONLY,
  'POST /w/:workspaceId/settings': { variants: [{ body: { name: 'Taken over' } }] },
  'POST /w/:workspaceId/settings/spam-digest': { variants: [{ body: { frequency: 'off' } }] },
  'POST /w/:workspaceId/settings/assigned-digest': { variants: [{ body: { mine: 'on' } }] },
  // the victim's workspace's very name: deleting it from outside must still be the 404 page, nothing deleted
  'GET /w/:workspaceId/delete': PATH_ONLY,
  'POST /w/:workspaceId/delete': { variants: [{ body: { confirmName: 'victim workspace' } }, { body: { confirmName: '' } }] },
  'GET /w/:workspaceId/erase': PATH_ONLY,
  'POST /w/:workspaceId/erase/preview': { variants: [{ body: { email: 'victim-visitor@example.com' } }] },
  'POST /w/:workspaceId/erase': { variants: [{ body: { email: 'victim-visitor@example.com' } }, { body: { email: 'not an address' } }] },
  'GET /w/:workspaceId/submissions': { variants: [{}, { query: { search: SHARED_WORD } }] },
  'GET /w/:workspaceId/members': PATH_ONLY,
  'GET /w/:workspaceId/members/:userId/remove': PATH_ONLY,
  'POST /w/:workspaceId/members/:userId/remove': PATH_ONLY,
  'POST /w/:workspaceId/invitations': { variants: [{ body: { email: 'planted@example.com' } }] },
  'POST /w/:workspaceId/invitations/:invitationId/revoke': PATH_ONLY,
  'POST /w/:workspaceId/invitations/:invitationId/new-link': PATH_ONLY,
  'GET /w/:workspaceId/leave': PATH_ONLY,
  'POST /w/:workspaceId/leave': PATH_ONLY,
  'GET /w/:workspaceId/export': { variants: [{ query: { format: 'csv' } }, { query: { format: 'json' } }] },
  'GET /workspaces': LISTING,
  'GET /workspaces/new': CALLERS_OWN,
  'POST /workspaces/new': { own: 'creates a workspace of the caller’s own' },
};

/** The kind of id each parameter names: the first one tried in its slot. */
export const NATURAL_KIND: Record<string, string> = {
  workspaceId: 'workspace',
  formId: 'form',
  submissionId: 'submission',
  jobId: 'job',
  tokenId: 'token',
  userId: 'member',
  accountId: 'member',
  invitationId: 'invitation',
  fileId: 'file',
  labelId: 'label',
  viewId: 'view',
  keyId: 'automationKey',
  hookId: 'hook',
  destinationId: 'destination',
};

/** Parameters that are not ids but one of a few words: always given this value. */
export const FIXED_PARAMS: Record<string, string> = {
  event: 'submission.created',
  kind: 'notification',
  provider: 'TURNSTILE',
  channel: 'discord',
  service: 'airtable',
  action: 'disable',
};
