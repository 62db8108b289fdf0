import type { Plan } from '../../src/domain/plans.js';
import { newId } from '../../src/ids.js';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import type { TestApp } from './app.js';

export interface Account {
  userId: string;
  email: string;
  /** The account's own workspace (created with it). */
  workspaceId: string;
  /** A token with `scopes` (all of them by default). */
  token: string;
}

/** A Form resource's outside spam judges as a new form has them (issue 40): all off. */
export const DEFAULT_SPAM_JUDGES = { spamAssassin: false, flagDisposableAddresses: false, flagSameMessage: false } as const;

/** A Form resource's behaviour and state as a new form has them (issue 29): open, every wording the default; and its judges off. */
export const DEFAULT_FORM_BEHAVIOUR = {
  ...DEFAULT_SPAM_JUDGES,
  redirectUrl: null,
  thanksTitle: null,
  thanksMessage: null,
  notificationSubject: null,
  notificationFromName: null,
  autoresponseSubject: null,
  autoresponseFromName: null,
  paused: false,
  closesAt: null,
  maxSubmissions: null,
} as const;

/** The fields of the Form resource (spec 2.3, and allowedOrigins), sorted: every answer has all of them. */
export const FORM_FIELDS = [
  'allowedOrigins',
  'autoresponseFromName',
  'autoresponseSubject',
  'closesAt',
  'createdAt',
  'customHoneypot',
  'customSpamWords',
  'description',
  'emailThreading',
  'fileUploads',
  'flagDisposableAddresses',
  'flagSameMessage',
  'id',
  'maxSubmissions',
  'name',
  'notificationEmails',
  'notificationFromName',
  'notificationSubject',
  'paused',
  'redirectUrl',
  'retentionDays',
  'slackChannel',
  'spamAssassin',
  'spamProtection',
  'technology',
  'thanksMessage',
  'thanksTitle',
  'updatedAt',
  'webhookUrl',
  'workspaceId',
];

/** A forms row with every setting left empty, for tests that write forms straight into the store. */
export function blankFormRow(workspaceId: string, name: string, createdAt: number) {
  return {
    id: newId(),
    workspaceId,
    name,
    description: null,
    technology: null,
    notificationEmails: JSON.stringify([]),
    emailThreading: 0,
    webhookUrl: null,
    slackChannel: null,
    customHoneypot: null,
    customSpamWords: null,
    spamProtection: null,
    createdAt,
    updatedAt: createdAt,
  };
}

let counter = 0;

/** A new account whose workspace is on `plan` (upgraded by default), with a token. */
export async function createAccount(app: TestApp, options: { plan?: Plan; scopes?: readonly Scope[]; email?: string } = {}): Promise<Account> {
  const email = options.email ?? `user${++counter}-${process.pid}-${Date.now()}@example.com`;
  const { user, workspace } = await app.ctx.users.createUser(email);
  const plan = options.plan ?? 'BUNDLE_50000';
  // as if made on that plan: the owner is not emailed about a change
  if (plan !== 'FREE') await app.ctx.workspaces.setPlan(workspace.id, plan, { tellOwners: false });
  const token = await createToken(app, user.id, options.scopes ?? SCOPES);
  return { userId: user.id, email: user.email, workspaceId: workspace.id, token };
}

/** A token for an account; names are unique per account, so each call makes a new one. */
export async function createToken(app: TestApp, userId: string, scopes: readonly Scope[], expiresAt: Date | null = null): Promise<string> {
  const { secret } = await app.ctx.tokens.createToken(userId, { name: `token-${++counter}`, scopes: [...scopes], expiresAt });
  return secret;
}

/** Creates a form through the API and returns it. */
export async function createForm(app: TestApp, account: Account, body: Record<string, unknown> = {}): Promise<any> {
  const answer = await app.api('POST', '/forms', { token: account.token, body: { workspaceId: account.workspaceId, name: 'Contact', ...body } });
  if (answer.status !== 201) throw new Error(`createForm: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}
