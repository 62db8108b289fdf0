import { randomBytes, scrypt as scryptCallback } from 'node:crypto';
import { promisify } from 'node:util';
import { isUniqueViolation, type Database } from '../db/database.js';
import type { UserRow } from '../db/schema/user.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const DEFAULT_WORKSPACE_NAME = 'My workspace';

/** Lower-cased and trimmed: one account per address whatever its spelling. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class UserService {
  constructor(private readonly database: Database) {}

  /** Creates an account with its one free workspace, in one transaction. */
  async createUser(email: string, password?: string): Promise<{ user: UserRow; workspace: WorkspaceRow }> {
    const normalised = normaliseEmail(email);
    if (!EMAIL.test(normalised) || normalised.length > 254) throw validationError([`email: "${email}" is not an e-mail address`]);
    if (password !== undefined && password.length < 8) throw validationError(['password: must be at least 8 characters']);
    const now = Date.now();
    const user: UserRow = { id: newId(), email: normalised, passwordHash: password ? await hashPassword(password) : null, createdAt: now };
    const workspace: WorkspaceRow = {
      id: newId(),
      name: DEFAULT_WORKSPACE_NAME,
      plan: 'FREE',
      ownerId: user.id,
      submissionsUsed: 0,
      quotaNotifiedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.database.transaction(async (trx) => {
        await trx.insertInto('users').values(user).execute();
        await trx.insertInto('workspaces').values(workspace).execute();
        await trx.insertInto('workspaceMembers').values({ workspaceId: workspace.id, userId: user.id, role: 'owner', createdAt: now }).execute();
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ProblemError('conflict', `An account with the e-mail address ${normalised} already exists.`);
      throw error;
    }
    return { user, workspace };
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    return this.database.db.selectFrom('users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
  }

  /** The account with this address, or a `not_found` problem naming it. */
  async requireByEmail(email: string): Promise<UserRow> {
    const user = await this.findByEmail(email);
    if (!user) throw new ProblemError('not_found', `No account has the e-mail address ${normaliseEmail(email)}.`);
    return user;
  }
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('base64url')}$${key.toString('base64url')}`;
}
