import type { Database } from '../db/database.js';
import { Backlog, type BacklogReading } from '../jobs/backlog.js';
import { VERSION } from '../version.js';

/** A form whose deliveries of one kind failed lately: the admin's lead to a broken channel. */
export interface FailingChannel {
  formId: string;
  formName: string;
  workspaceName: string;
  kind: string;
  failed: number;
  lastFailedAt: number;
  lastError: string | null;
}

/** What the admin page says of the installation's health. */
export interface InstanceHealth {
  version: string;
  backlog: BacklogReading;
  failing: FailingChannel[];
}

/** How far back a failed delivery counts as "lately". */
export const FAILING_WINDOW_MS = 7 * 86_400_000;
const FAILING_SHOWN = 20;

/** The delivery backlog (as /healthz reads it), the channels failing across the instance, and the version. */
export class InstanceHealthService {
  private readonly backlog: Backlog;

  constructor(private readonly database: Database) {
    this.backlog = new Backlog(database);
  }

  async read(now = Date.now()): Promise<InstanceHealth> {
    const [backlog, failing] = await Promise.all([this.backlog.read(), this.failing(now)]);
    return { version: VERSION, backlog, failing };
  }

  /** Forms and kinds with deliveries given up in the last week, most failures first. */
  private async failing(now: number): Promise<FailingChannel[]> {
    const rows = await this.database.db
      .selectFrom('jobs')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
      .select(['forms.id as formId', 'forms.name as formName', 'workspaces.name as workspaceName', 'jobs.kind'])
      .select((eb) => [eb.fn.countAll<number | string>().as('failed'), eb.fn.max('jobs.updatedAt').as('lastFailedAt')])
      .where('jobs.status', '=', 'failed')
      .where('jobs.updatedAt', '>=', now - FAILING_WINDOW_MS)
      .groupBy(['forms.id', 'forms.name', 'workspaces.name', 'jobs.kind'])
      .orderBy('failed', 'desc')
      .limit(FAILING_SHOWN)
      .execute();
    const errors = await Promise.all(
      rows.map((r) =>
        this.database.db
          .selectFrom('jobs')
          .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
          .select('jobs.lastError')
          .where('submissions.formId', '=', r.formId)
          .where('jobs.kind', '=', r.kind)
          .where('jobs.status', '=', 'failed')
          .orderBy('jobs.updatedAt', 'desc')
          .limit(1)
          .executeTakeFirst(),
      ),
    );
    return rows.map((r, i) => ({
      formId: r.formId,
      formName: r.formName,
      workspaceName: r.workspaceName,
      kind: r.kind,
      failed: Number(r.failed),
      lastFailedAt: Number(r.lastFailedAt),
      lastError: errors[i]?.lastError ?? null,
    }));
  }
}
