import assert from 'node:assert/strict';
import { fromJson } from '../../src/db/database.js';
import type { TestApp } from './app.js';
import { DashboardClient } from './dashboard.js';

let accounts = 0;

export interface Person {
  client: DashboardClient;
  userId: string;
  email: string;
  /** The account's own workspace (every account has one). */
  workspaceId: string;
}

/** A fresh account, logged in through the dashboard: the owner of its own workspace. */
export async function person(app: TestApp, name = 'person'): Promise<Person> {
  const email = `${name}-${++accounts}@example.com`;
  const { user, workspace } = await app.ctx.users.createUser(email, 'a long enough password');
  const client = new DashboardClient(app);
  await client.enter('/login', email, 'a long enough password');
  // a page of the session, for a CSRF token tied to it
  await client.get(`/w/${workspace.id}`);
  return { client, userId: user.id, email, workspaceId: workspace.id };
}

/** Logs an existing account in through a new client. */
export async function loggedIn(app: TestApp, email: string): Promise<DashboardClient> {
  const client = new DashboardClient(app);
  await client.enter('/login', email, 'a long enough password');
  await client.get((await client.get('/')).location!);
  return client;
}

/** The owner invites `email` through the members page; asserts that it worked, and answers the link the page shows once. */
export async function invite(owner: Person, email: string, workspaceId = owner.workspaceId): Promise<{ link: string; flash: string }> {
  await owner.client.get(`/w/${workspaceId}/members`);
  const answer = await owner.client.post(`/w/${workspaceId}/invitations`, { email });
  assert.equal(answer.status, 200, answer.html.slice(0, 500));
  const flash = flashOf(answer.html) ?? '';
  assert.match(flash, /^(Invitation sent to|A new invitation was sent to) /);
  const link = /<code id="invitation-link">([^<]+)<\/code>/.exec(answer.html);
  assert.ok(link, 'the invitation link is shown to copy');
  return { link: link[1]!, flash };
}

/** The path of the newest invitation link emailed to `email`, read from the outbox. */
export async function invitationPath(app: TestApp, email: string): Promise<string> {
  const jobs = await app.ctx.database.db.selectFrom('jobs').select(['payload']).orderBy('createdAt', 'desc').orderBy('id', 'desc').execute();
  for (const job of jobs) {
    const payload = fromJson<{ to: string[]; text: string }>(job.payload);
    if (!payload.to.includes(email)) continue;
    const link = /https?:\/\/[^\s]+(\/invitations\/[A-Za-z0-9_-]{43})/.exec(payload.text);
    assert.ok(link, `the invitation email links to the invitation: ${payload.text}`);
    return link[1]!;
  }
  assert.fail(`no email to ${email}`);
}

/** How many emails have been enqueued. */
export async function emailCount(app: TestApp): Promise<number> {
  const row = await app.ctx.database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The page's flash message, if any. */
export function flashOf(html: string): string | undefined {
  return /class="flash(?: warning)?" role="status">([^<]*)</.exec(html)?.[1];
}

/** The message about the whole form, or beside a field. */
export function alertOf(html: string): string | undefined {
  return /role="alert">([^<]*)</.exec(html)?.[1] ?? /class="error" id="[^"]+">([^<]*)</.exec(html)?.[1];
}

/** Ids of the workspace's members. */
export async function memberIds(app: TestApp, workspaceId: string): Promise<string[]> {
  const rows = await app.ctx.database.db.selectFrom('workspaceMembers').select('userId').where('workspaceId', '=', workspaceId).execute();
  return rows.map((r) => r.userId).sort();
}
