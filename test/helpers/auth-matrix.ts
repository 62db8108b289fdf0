import { randomBytes } from 'node:crypto';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import type { TestApp } from './app.js';
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

  assertProblem(app, await send({}), 'invalid_token');
  for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', `Token ${account.token}`, 'Bearer a b', 'bearer not-a-formgate-token']) {
    assertProblem(app, await send({ authorization: header }), 'invalid_token');
  }
  assertProblem(app, await send({ authorization: `Bearer fg_${randomBytes(32).toString('base64url')}` }), 'invalid_token');

  const revoked = await createToken(app, account.userId, SCOPES);
  const revokedRow = await app.ctx.database.db.selectFrom('tokens').select('name').orderBy('createdAt', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
  await app.ctx.tokens.revokeToken(account.userId, revokedRow.name);
  assertProblem(app, await send({ authorization: `Bearer ${revoked}` }), 'invalid_token');

  const expired = await createToken(app, account.userId, SCOPES, new Date(Date.now() + 60_000));
  await app.ctx.database.db
    .updateTable('tokens')
    .set({ expiresAt: Date.now() - 1000 })
    .where('revokedAt', 'is', null)
    .where('expiresAt', 'is not', null)
    .execute();
  assertProblem(app, await send({ authorization: `Bearer ${expired}` }), 'invalid_token');

  if (op.scope !== 'any') {
    const others = SCOPES.filter((s) => s !== op.scope);
    const lacking = await createToken(app, account.userId, others);
    assertProblem(app, await send({ authorization: `Bearer ${lacking}` }), 'insufficient_scope', { requiredScope: op.scope });
  }
}
