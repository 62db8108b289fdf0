import type { UserRow } from '../db/schema/user.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import { INSTANCE_USAGES, type InstanceUsage } from '../domain/plans.js';
import { ProblemError, validationError } from '../errors.js';
import type { InstanceSettings } from './instance-settings.js';
import type { UserService } from './users.js';

/** The refusal of a setup once an account exists: it makes no account, and certainly no admin. */
export const ALREADY_SET_UP = 'Formgate is already set up: log in, or ask its admin for an invitation.';

/**
 * A fresh installation's first day: the first account (the instance admin) and how the
 * installation is used, in one transaction. Of two visitors setting up at once, only the one who
 * takes the `instance-admin` claim gets an account; the other's is rolled back.
 */
export class SetupService {
  constructor(
    private readonly users: UserService,
    private readonly instance: InstanceSettings,
  ) {}

  /** Whether the setup page is still there: until the first account exists. */
  async open(): Promise<boolean> {
    return !(await this.users.hasAnyAccount());
  }

  /** `workspaceName`: the first workspace's, so that pages and invitations never say "My workspace". */
  async setUp(email: string, password: string, usage: string, workspaceName: string): Promise<{ user: UserRow; workspace: WorkspaceRow }> {
    const fixed = this.instance.view().defaultPlanFromEnvironment;
    if (!fixed && !(INSTANCE_USAGES as readonly string[]).includes(usage)) {
      throw validationError(['usage: choose “For me and my team” or “Hosting forms for others”']);
    }
    if (!(await this.open())) throw new ProblemError('conflict', ALREADY_SET_UP);
    const created = await this.users.createUser(
      email,
      password,
      async (trx, user) => {
        // NOTE: the claim was taken (or not) just before, in this transaction: a second visitor rolls back here
        if (user.isAdmin !== 1) throw new ProblemError('conflict', ALREADY_SET_UP);
        if (!fixed) await this.instance.setUsage(usage as InstanceUsage, trx);
      },
      workspaceName,
    );
    await this.instance.refresh();
    return created;
  }
}
