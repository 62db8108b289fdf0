import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { UserRow } from '../db/schema/user.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import { ProblemError, validationError } from '../errors.js';
import { enqueueAccountEmail } from './mail-outbox.js';
import type { SignupLinks } from './signup-links.js';
import { emailProblem, type UserService } from './users.js';
import { normaliseEmail } from '../domain/email-address.js';
import { workspaceNameForEmail } from '../domain/workspace-name.js';

export const SIGNUP_LINK_INVALID = 'This sign-up link has expired or is not valid.';
export const SIGNUP_LINK_USED = 'This sign-up link was already used: an account has this address. Log in.';

/** Where a sign-up link stands: what its page shows. */
export type SignupLinkState = { state: 'valid'; email: string } | { state: 'used'; email: string } | { state: 'invalid' };

/**
 * Open sign-up (FORMGATE_SIGNUP=open) by emailed link: an account is made only for an address
 * whose owner followed the link, and asking answers the same whether or not the address has an
 * account (its owner is told by email instead).
 */
export class SignupService {
  constructor(
    private readonly database: Database,
    private readonly users: UserService,
    private readonly links: SignupLinks,
    /** Read when a link is made: `formgate serve` settles the public URL once it listens. */
    private readonly config: Pick<Config, 'publicUrl'>,
  ) {}

  /**
   * Emails a link to finish signing up to a new address, or a note to an address that has an
   * account: one email either way, so the two take the same path. `mayEmail` (the rate limits)
   * can stop the email; the caller answers the same whatever happened.
   */
  async request(email: string, mayEmail: (normalised: string) => Promise<boolean>): Promise<void> {
    const problem = emailProblem(email);
    if (problem) throw validationError([problem]);
    const address = normaliseEmail(email);
    const existing = await this.users.findByEmail(address);
    if (!(await mayEmail(address))) return;
    const publicUrl = this.config.publicUrl;
    const message = existing
      ? {
          subject: 'Someone tried to sign up to Formgate with your address',
          paragraphs: [
            `Someone asked to create a Formgate account for ${address} at ${publicUrl}, but this address already has one. Nothing about your account changed.`,
            `Forgot your password? Choose a new one at ${publicUrl}/forgot-password.`,
          ],
          action: { label: 'Log in', url: `${publicUrl}/login` },
          footer: 'If it was not you, ignore this email.',
        }
      : {
          subject: 'Finish signing up to Formgate',
          paragraphs: [
            `Someone (we hope you) asked to create a Formgate account for ${address} at ${publicUrl}.`,
            'Follow the link to choose a password and finish. It works within the next 24 hours.',
          ],
          action: { label: 'Choose a password', url: `${publicUrl}/signup/confirm?token=${this.links.issue(address)}` },
          footer: 'If you did not ask for this, ignore this email: no account is made without the link.',
          oneTimeLink: true,
        };
    await enqueueAccountEmail(this.database.db, address, message);
  }

  /** What a link's page shows: the form for a link still good, "log in" once used, else a dead link. */
  async linkState(token: string): Promise<SignupLinkState> {
    const claim = this.links.read(token);
    if (!claim) return { state: 'invalid' };
    if (await this.users.findByEmail(claim.email)) return { state: 'used', email: claim.email };
    return { state: 'valid', email: claim.email };
  }

  /**
   * Makes the account (and its workspace, as any sign-up) for the link's address. A link works
   * once: the second use, or the loser of two at once, finds the address taken (`conflict`).
   * `workspaceName` as the page asked it; left out, the one offered from the address (domain/workspace-name.ts).
   */
  async confirm(token: string, password: string, workspaceName?: string): Promise<{ user: UserRow; workspace: WorkspaceRow }> {
    const claim = this.links.read(token);
    if (!claim) throw new ProblemError('not_found', SIGNUP_LINK_INVALID);
    try {
      return await this.users.createUser(claim.email, password, undefined, workspaceName ?? workspaceNameForEmail(claim.email));
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'conflict') throw new ProblemError('conflict', SIGNUP_LINK_USED);
      throw error;
    }
  }
}
