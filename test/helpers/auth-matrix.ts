import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import type { Answer, TestApp } from './app.js';
import { createToken, type Account } from './fixtures.js';
import { assertProblem } from './problems.js';

export interface Operation {
  method: string;
  /** Path relative to `{base_url}`. */
  path: string;
  scope: Scope | 'any';
  body?: unknown;
}

/**
 * The 401/403 matrix every operation must answer: no header, malformed headers, an unknown, a
 * revoked and an expired token, and (for scoped operations) a token with every scope but the one needed.
 */
export async function assertAuthMatrix(app: TestApp, account: Account, op: Operation): Promise<void> {
  const send = (headers: Record<string, string>) => app.api(op.method, op.path, { headers, ...(op.body !== undefined ? { body: op.body } : {}) });

  assertRefusedToken(app, await send({}), 'none');
  for (const header of ['Basic dXNlcjpwYXNz', `Token ${account.token}`]) assertRefusedToken(app, await send({ authorization: header }), 'none');
  for (const header of ['Bearer', 'Bearer a b', 'bearer not-a-formgate-token']) assertRefusedToken(app, await send({ authorization: header }), 'bad');
  assertRefusedToken(app, await send({ authorization: `Bearer fg_${randomBytes(32).toString('base64url')}` }), 'bad');

  const revoked = await createToken(app, account.userId, SCOPES);
  const revokedRow = await app.ctx.database.db.selectFrom('tokens').select('name').orderBy('createdAt', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
  await app.ctx.tokens.revokeToken(account.userId, revokedRow.name);
  assertRefusedToken(app, await send({ authorization: `Bearer ${revoked}` }), 'bad');

  const expired = await createToken(app, account.userId, SCOPES, new Date(Date.now() + 60_000));
  await app.ctx.database.db
    .updateTable('tokens')
    .set({ expiresAt: Date.now() - 1000 })
    .where('revokedAt', 'is', null)
    .where('expiresAt', 'is not', null)
    .execute();
  assertRefusedToken(app, await send({ authorization: `Bearer ${expired}` }), 'bad');

  if (op.scope !== 'any') {
    const others = SCOPES.filter((s) => s !== op.scope);
    const lacking = await createToken(app, account.userId, others);
    const refused = await send({ authorization: `Bearer ${lacking}` });
    assertProblem(app, refused, 'insufficient_scope', { requiredScope: op.scope });
    assert.equal(refused.headers.get('www-authenticate'), `Bearer realm="formgate", error="insufficient_scope", scope="${op.scope}"`, 'RFC 6750 §3.1');
  }
}

/**
 * A 401 invalid_token with its challenge (RFC 9110 §11.6.1, RFC 6750 §3): bare when no bearer token
 * was sent (`none`: no header, another scheme), `error="invalid_token"` when one was and is bad.
 */
export function assertRefusedToken(app: TestApp, answer: Answer, sent: 'none' | 'bad'): void {
  assertProblem(app, answer, 'invalid_token');
  const expected = sent === 'none' ? 'Bearer realm="formgate"' : 'Bearer realm="formgate", error="invalid_token"';
  assert.equal(answer.headers.get('www-authenticate'), expected, `a 401 carries WWW-Authenticate: ${JSON.stringify(answer.body)}`);
}
