import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import { KeptRows } from '../db/kept-rows.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { TokenRow } from '../db/schema/token.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';

export const SCOPES = ['workspaces:read', 'workspaces:write', 'forms:read', 'forms:write', 'submissions:read', 'submissions:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling the management API: an account, through one of its tokens. */
export interface Principal {
  userId: string;
  token: TokenRow;
  scopes: ReadonlySet<string>;
}

const TOKEN_PREFIX = 'fg_';
// lastUsedAt is written at most once a minute per token: accurate to the minute, no write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

// named, not `*`: see PreparedQuery
const TOKEN_COLUMNS = [
  'id',
  'userId',
  'name',
  'tokenHash',
  'scopes',
  'expiresAt',
  'lastUsedAt',
  'revokedAt',
  'createdAt',
] as const satisfies readonly (keyof TokenRow)[];

export class TokenService {
  // Every API request authenticates: built once.
  private readonly tokenByHash = new PreparedQuery<{ tokenHash: string }, TokenRow>((db, { tokenHash }) =>
    db.selectFrom('tokens').select(TOKEN_COLUMNS).where('tokenHash', '=', tokenHash),
  );

  /** By hash: kept in memory where the database counts the changes to tokens (SQLite, db/kept-rows.ts). */
  private readonly tokensByHash: { get(tokenHash: string): Promise<TokenRow | undefined> };

  constructor(private readonly database: Database) {
    const lookup = (tokenHash: string) => this.tokenByHash.executeTakeFirst(database.db, { tokenHash });
    // NOTE: a revoke counts as a change, so it applies from the next turn of the event loop on:
    // to every request that arrives after the revoke was answered, as the API promises.
    this.tokensByHash = database.countsChanges ? new KeptRows<TokenRow>(() => database.changeCount('tokens'), lookup) : { get: lookup };
  }

  /** Creates a token; the secret is returned here once and only its hash is kept. */
  async createToken(userId: string, input: { name: string; scopes: string[]; expiresAt?: Date | null }): Promise<{ token: TokenRow; secret: string }> {
    const problems: string[] = [];
    const name = input.name.trim();
    if (name.length < 1 || name.length > 128) problems.push('name: must be 1 to 128 characters');
    if (input.scopes.length === 0) problems.push(`scopes: name at least one of ${SCOPES.join(', ')}`);
    for (const scope of input.scopes) if (!isScope(scope)) problems.push(`scopes: "${scope}" is not one of ${SCOPES.join(', ')}`);
    const expiresAt = input.expiresAt ? input.expiresAt.getTime() : null;
    if (expiresAt !== null && (Number.isNaN(expiresAt) || expiresAt <= Date.now())) problems.push('expiresAt: must be a date-time in the future');
    if (problems.length) throw validationError(problems);

    const active = await this.findActive(userId, name);
    if (active) throw new ProblemError('conflict', `The account already has an active token named "${name}"; revoke it first or pick another name.`);

    const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const token: TokenRow = {
      id: newId(),
      userId,
      name,
      tokenHash: hashSecret(secret),
      scopes: JSON.stringify([...new Set(input.scopes)]),
      expiresAt,
      lastUsedAt: null,
      revokedAt: null,
      createdAt: Date.now(),
    };
    await this.database.db.insertInto('tokens').values(token).execute();
    return { token, secret };
  }

  /** Revokes the account's active token of that name; it stops working at once. */
  async revokeToken(userId: string, name: string): Promise<TokenRow> {
    const active = await this.findActive(userId, name.trim());
    if (!active) throw new ProblemError('not_found', `The account has no active token named "${name}".`);
    const revokedAt = Date.now();
    await this.database.db.updateTable('tokens').set({ revokedAt }).where('id', '=', active.id).execute();
    return { ...active, revokedAt };
  }

  /** The principal behind a bearer secret; throws `invalid_token` for unknown, revoked or expired tokens. */
  async authenticate(secret: string): Promise<Principal> {
    if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) throw invalidToken('The token is malformed.');
    const token = await this.tokensByHash.get(hashSecret(secret));
    const now = Date.now();
    if (!token) throw invalidToken('The token is unknown.');
    if (token.revokedAt !== null) throw invalidToken('The token has been revoked.');
    if (token.expiresAt !== null && token.expiresAt <= now) throw invalidToken('The token has expired.');
    if (token.lastUsedAt === null || now - token.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
      await this.database.db.updateTable('tokens').set({ lastUsedAt: now }).where('id', '=', token.id).execute();
      token.lastUsedAt = now;
    }
    return { userId: token.userId, token, scopes: new Set(JSON.parse(token.scopes) as string[]) };
  }

  private findActive(userId: string, name: string): Promise<TokenRow | undefined> {
    return this.database.db
      .selectFrom('tokens')
      .selectAll()
      .where('userId', '=', userId)
      .where('name', '=', name)
      .where('revokedAt', 'is', null)
      .executeTakeFirst();
  }
}

export function invalidToken(detail: string): ProblemError {
  return new ProblemError('invalid_token', detail);
}

/** The Token resource of 2.1. */
export function toTokenResource(token: TokenRow) {
  return {
    name: token.name,
    scopes: JSON.parse(token.scopes) as string[],
    expiresAt: isoOrNull(token.expiresAt),
    lastUsedAt: isoOrNull(token.lastUsedAt),
    createdAt: new Date(token.createdAt).toISOString(),
  };
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
