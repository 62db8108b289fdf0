import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import { DashboardClient } from './dashboard.js';
import { until } from './eventually.js';
import { createToken } from './fixtures.js';
import type { SmtpSink } from './smtp-sink.js';
import { SCOPES } from '../../src/domain/scopes.js';

const PASSWORD = 'a long enough password';
let strangers = 0;

/** An account made the way a stranger makes one on an open instance: `/signup`, the emailed link, a password. */
export async function signUpStranger(
  app: TestApp,
  sink: SmtpSink,
  name = 'stranger',
): Promise<{ userId: string; email: string; workspaceId: string; token: string }> {
  const email = `${name}-${++strangers}@strangers.example`;
  const visitor = new DashboardClient(app);
  await visitor.get('/signup');
  assert.equal((await visitor.post('/signup', { email })).status, 303);
  await until(`the sign-up link to ${email}`, () => sink.messages.some((m) => m.envelopeTo.includes(email)));
  const mail = sink.messages.find((m) => m.envelopeTo.includes(email))!;
  const token = /\/signup\/confirm\?token=([A-Za-z0-9_.-]+)/.exec(mail.parsed.text ?? '')?.[1];
  assert.ok(token, `a sign-up link: ${mail.parsed.text}`);
  await visitor.get(`/signup/confirm?token=${token}`);
  const done = await visitor.post('/signup/confirm', { token, password: PASSWORD });
  assert.equal(done.status, 303, done.html.slice(0, 300));
  const user = await app.ctx.users.requireByEmail(email);
  const member = await app.ctx.database.db.selectFrom('workspaceMembers').select('workspaceId').where('userId', '=', user.id).executeTakeFirstOrThrow();
  return { userId: user.id, email, workspaceId: member.workspaceId, token: await createToken(app, user.id, SCOPES) };
}
