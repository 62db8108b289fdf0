import { sql } from 'kysely';
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { Database, Queryable } from '../db/database.js';
import { unlessStorageUnavailable } from '../db/storage-errors.js';
import { KeptRows } from '../db/kept-rows.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { TokenRow } from '../db/schema/token.js';
import { isScope, SCOPES } from '../domain/scopes.js';
import { AUTOMATION_KEY_PREFIX } from '../domain/hooks.js';
import type { AuditLog } from './audit-log.js';
import type { AutomationKeys } from './automation-keys.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { tokenCreatedMessage, type TokenOrigin } from '../mail/account-mail.js';
import { enqueueAccountEmail } from './mail-outbox.js';

/** A stored token (its hash, never its secret), as the dashboard lists it. */
export type Token = TokenRow;

/** Who is calling the management API: an account, through one of its tokens. */
export interface Principal {
  userId: string;
  token: TokenRow;
  scopes: ReadonlySet<string>;
  /** An automation-tool key's one workspace (services/automation-keys.ts); absent: a token, which reaches every workspace of its account. */
  workspaceId?: string;
  /** The automation-tool key the call came with; absent: an API token (`token` is then the token). */
  automationKeyId?: string;
}

const TOKEN_PREFIX = 'fg_';
// The dashboard lists an account's tokens on one page; past this many, the oldest revoked ones drop off.
const LISTED_TOKENS = 200;
// lastUsedAt is written at most once a minute per token: accurate to the minute, no write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
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

/** A token with whether its account is disabled (AdminAccounts.setDisabled). */
type TokenWithAccount = TokenRow & { accountDisabledAt: number | null };

export class TokenService {
  // Every API request authenticates: built once.
  // with its account's disabledAt: a disabled account's tokens are refused
  private readonly tokenByHash = new PreparedQuery<{ tokenHash: string }, TokenWithAccount>((db, { tokenHash }) =>
    db
      .selectFrom('tokens')
      .innerJoin('users', 'users.id', 'tokens.userId')
      .select(TOKEN_COLUMNS.map((column) => `tokens.${column}` as const))
      .select('users.disabledAt as accountDisabledAt')
      .where('tokens.tokenHash', '=', tokenHash),
  );

  /** By hash: kept in memory while the database's count of the changes to tokens stays put (db/kept-rows.ts). */
  private readonly tokensByHash: { get(tokenHash: string): Promise<TokenWithAccount | undefined> };

  constructor(
    private readonly database: Database,
    /** Read when a token is made: `formgate serve` settles the public URL once it listens. */
    private readonly config: Pick<Config, 'publicUrl'>,
    private readonly audit: AuditLog,
    /** The workspaces' automation-tool keys, accepted wherever a token is (issue 42, item 1). */
    private readonly automationKeys?: Pick<AutomationKeys, 'authenticate' | 'requireReach'>,
  ) {
    const lookup = (tokenHash: string) => this.tokenByHash.executeTakeFirst(database.db, { tokenHash });
    // NOTE: a revoke counts as a change, so it applies from the next turn of the event loop on:
    // to every request that arrives after the revoke was answered, as the API promises (on
    // PostgreSQL this instance hears its own commit's notification before the commit returns).
    this.tokensByHash = database.countsChanges ? new KeptRows<TokenWithAccount>(() => database.changeCount('tokens'), lookup) : { get: lookup };
  }

  /**
   * Creates a token; the secret is returned here once and only its hash is kept. The account is
   * emailed in the same transaction (name, scopes, when, from where): a token made with a stolen
   * session or a stolen password does not go unnoticed.
   */
  async createToken(
    userId: string,
    input: { name: string; scopes: string[]; expiresAt?: Date | null },
    /** Where it was made; the account is emailed about it. The dashboard and the CLI always give it; fixtures (tests, the bench) do not. */
    origin?: TokenOrigin,
  ): Promise<{ token: TokenRow; secret: string }> {
    const problems = tokenInputProblems(input);
    if (problems.length) throw validationError(problems);
    const name = input.name.trim();
    const expiresAt = input.expiresAt ? input.expiresAt.getTime() : null;

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
    await this.database.transaction(async (trx) => {
      await trx.insertInto('tokens').values(token).execute();
      await this.audit.record({ action: 'token.created', target: tokenTarget(token), details: { scopes: JSON.parse(token.scopes), expiresAt } }, trx);
      if (!origin) return;
      const { email } = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
      await enqueueAccountEmail(trx, email, tokenCreatedMessage(email, token, origin, this.config.publicUrl));
    });
    return { token, secret };
  }

  /** Revokes the account's active token of that name; it stops working at once. */
  async revokeToken(userId: string, name: string): Promise<TokenRow> {
    const active = await this.findActive(userId, name.trim());
    if (!active) throw new ProblemError('not_found', `The account has no active token named "${name}".`);
    const revokedAt = Date.now();
    await this.database.transaction(async (trx) => {
      await trx.updateTable('tokens').set({ revokedAt }).where('id', '=', active.id).execute();
      await this.audit.record({ action: 'token.revoked', target: tokenTarget(active) }, trx);
    });
    return { ...active, revokedAt };
  }

  /** How many of the account's tokens the API accepts now: said beside "Also revoke my API tokens". */
  async countActive(userId: string, now = Date.now()): Promise<number> {
    const row = await this.database.db
      .selectFrom('tokens')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('userId', '=', userId)
      .where('revokedAt', 'is', null)
      .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Revokes every token of the account ("log out everywhere" with its box ticked); returns how many. */
  revokeAll(userId: string): Promise<number> {
    return this.database.transaction(async (trx) => {
      const count = await revokeAllTokens(trx, userId);
      if (count > 0) await this.audit.record({ action: 'token.revoked_all', target: { kind: 'account', id: userId }, details: { count } }, trx);
      return count;
    });
  }

  /** The account's tokens for its tokens page: the usable ones first, then revoked and expired ones, newest first in each. */
  listTokens(userId: string, now = Date.now()): Promise<TokenRow[]> {
    return this.database.db
      .selectFrom('tokens')
      .select(TOKEN_COLUMNS)
      .where('userId', '=', userId)
      .orderBy(sql`case when revoked_at is null and (expires_at is null or expires_at > ${now}) then 0 else 1 end`)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(LISTED_TOKENS)
      .execute();
  }

  /** One of the account's own tokens; another account's (or no) token is `not_found`, the same answer either way. */
  async getToken(userId: string, tokenId: string): Promise<TokenRow> {
    const token = await this.database.db.selectFrom('tokens').select(TOKEN_COLUMNS).where('id', '=', tokenId).where('userId', '=', userId).executeTakeFirst();
    if (!token) throw new ProblemError('not_found', 'The account has no such token.');
    return token;
  }

  /**
   * Revokes one of the account's tokens by id (the dashboard's Revoke button); it stops working at
   * the next request. Revoking a revoked token changes nothing, so a repeated post is harmless.
   */
  async revokeTokenById(userId: string, tokenId: string): Promise<TokenRow> {
    const token = await this.getToken(userId, tokenId);
    if (token.revokedAt !== null) return token;
    const revokedAt = Date.now();
    await this.database.transaction(async (trx) => {
      const revoked = await trx.updateTable('tokens').set({ revokedAt }).where('id', '=', token.id).where('revokedAt', 'is', null).executeTakeFirst();
      if (Number(revoked.numUpdatedRows) > 0) await this.audit.record({ action: 'token.revoked', target: tokenTarget(token) }, trx);
    });
    return { ...token, revokedAt };
  }

  /** The principal behind a bearer secret; throws `invalid_token` for unknown, revoked or expired tokens. */
  async authenticate(secret: string): Promise<Principal> {
    if (secret.startsWith(AUTOMATION_KEY_PREFIX) && this.automationKeys) return this.automationKeys.authenticate(secret);
    if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) throw invalidToken('The token is malformed.');
    const token = await this.tokensByHash.get(hashSecret(secret));
    const now = Date.now();
    if (!token) throw invalidToken('The token is unknown.');
    if (token.revokedAt !== null) throw invalidToken('The token has been revoked.');
    if (token.accountDisabledAt !== null) throw invalidToken('The token’s account is disabled.');
    if (token.expiresAt !== null && token.expiresAt <= now) throw invalidToken('The token has expired.');
    if (token.lastUsedAt === null || now - token.lastUsedAt >= LAST_USED_RESOLUTION_MS) await this.noteUse(token, now);
    return { userId: token.userId, token, scopes: new Set(JSON.parse(token.scopes) as string[]) };
  }

  /** An automation-tool key's call must name nothing outside its workspace (AutomationKeys.requireReach); a token's may. */
  async requireReach(principal: Principal, params: unknown, query: unknown): Promise<void> {
    if (principal.workspaceId === undefined || !this.automationKeys) return;
    await this.automationKeys.requireReach(principal, (params ?? {}) as Record<string, unknown>, (query ?? {}) as Record<string, unknown>);
  }

  /**
   * Writes when the token was last used. It is bookkeeping: while the database cannot write (its disk
   * full), a request that only reads is still served, and the time is written at a later use.
   */
  private async noteUse(token: TokenRow, now: number): Promise<void> {
    if (await unlessStorageUnavailable(this.database.db.updateTable('tokens').set({ lastUsedAt: now }).where('id', '=', token.id).execute())) {
      token.lastUsedAt = now;
    }
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

/** What is wrong with a token to be made (`field: problem` lines): none when it can be made. */
export function tokenInputProblems(input: { name: string; scopes: string[]; expiresAt?: Date | null }): string[] {
  const problems: string[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 128) problems.push('name: must be 1 to 128 characters');
  if (input.scopes.length === 0) problems.push(`scopes: name at least one of ${SCOPES.join(', ')}`);
  for (const scope of input.scopes) if (!isScope(scope)) problems.push(`scopes: "${scope}" is not one of ${SCOPES.join(', ')}`);
  const expiresAt = input.expiresAt ? input.expiresAt.getTime() : null;
  if (expiresAt !== null && (Number.isNaN(expiresAt) || expiresAt <= Date.now())) problems.push('expiresAt: must be a date-time in the future');
  return problems;
}

/**
 * Revokes every token of the account that is not revoked yet, in the caller's transaction (a
 * password reset or change): they stop working at the next request. Returns how many.
 */
export async function revokeAllTokens(db: Queryable, userId: string, now = Date.now()): Promise<number> {
  const result = await db.updateTable('tokens').set({ revokedAt: now }).where('userId', '=', userId).where('revokedAt', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A token as the audit log names it. */
function tokenTarget(token: Pick<TokenRow, 'id' | 'name'>) {
  return { kind: 'token', id: token.id, name: token.name };
}

export function invalidToken(detail: string): ProblemError {
  return new ProblemError('invalid_token', detail);
}

export type TokenStatus = 'active' | 'revoked' | 'expired';

/** Whether the API accepts the token now; a revoked token reads as revoked even once past its expiry. */
export function tokenStatus(token: Pick<TokenRow, 'revokedAt' | 'expiresAt'>, now = Date.now()): TokenStatus {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'expired';
  return 'active';
}

/**
 * The expiry of a token given as a day (`YYYY-MM-DD`, the dashboard's date input): the last
 * millisecond of that day in UTC, so a token "expiring on" a day works all of that day everywhere.
 * Not a real day: an invalid Date, which `createToken` refuses with its other problems.
 */
export function endOfDayUtc(day: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return new Date(Number.NaN);
  const [year, month, date] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const start = new Date(Date.UTC(year, month, date));
  if (start.getUTCFullYear() !== year || start.getUTCMonth() !== month || start.getUTCDate() !== date) return new Date(Number.NaN);
  return new Date(start.getTime() + 86_400_000 - 1);
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
