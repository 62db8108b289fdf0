import type { Generated, Insertable, Selectable } from 'kysely';

/** pending: waiting or being tried (see `leaseUntil`); done: delivered; failed: given up. */
export type JobStatus = 'pending' | 'done' | 'failed';

/** One side effect in the outbox, e.g. an email; `kind` names the channel that delivers it. */
export interface JobTable {
  id: string;
  kind: string;
  /** What the channel needs, as JSON text (text on SQLite, json on PostgreSQL). */
  payload: unknown;
  status: JobStatus;
  /** Tries started so far; also fences a worker whose lease expired from finishing the job. */
  attempts: Generated<number>;
  /** Epoch ms from which the job is due. */
  runAt: number;
  /** Epoch ms until which a worker holds the job; a crashed worker's lease simply runs out. */
  leaseUntil: number | null;
  lastError: string | null;
  /** Epoch ms before which the receiver asked not to be tried again (its `Retry-After`); null when it asked nothing. */
  notBefore: Generated<number | null>;
  /** Whose capacity the job takes in a worker: email, webhook or slack (jobs/lanes.ts). */
  lane: Generated<string>;
  /** Where it goes (the SMTP server, Slack, a webhook's origin): a success there brings its backed-off jobs forward. */
  destination: string | null;
  /** When the try under way began; cleared when it is recorded. Set with a lapsed lease, the try was cut off. */
  tryStartedAt: number | null;
  submissionId: string | null;
  idempotencyKey: string;
  createdAt: number;
  updatedAt: number;
}
export type JobRow = Selectable<JobTable>;
export type NewJobRow = Insertable<JobTable>;

/** interrupted: the worker stopped (crash, kill, lost database) before the try ended; the receiver may have it. */
export type AttemptOutcome = 'ok' | 'retry' | 'failed' | 'interrupted';

/** One try at delivering a job. */
export interface JobAttemptTable {
  id: string;
  jobId: string;
  startedAt: number;
  finishedAt: number;
  outcome: AttemptOutcome;
  /** The receiver's status (SMTP reply code, HTTP status) when it gave one. */
  statusCode: number | null;
  error: string | null;
  /** What the receiver answered a successful try (the SMTP server's reply line), when it says. */
  response: string | null;
  /** The `.eml` file an email was written to instead of sent (no FORMGATE_SMTP_URL). */
  writtenTo: string | null;
  /** Where the try went when that is read at send time (a webhook's URL): a retry goes to the form's current address. */
  target: Generated<string | null>;
}
export type JobAttemptRow = Selectable<JobAttemptTable>;
