import { CompiledQuery, type RawBuilder, type Kysely } from 'kysely';
import type { DailyCountTable } from './schema/daily-count.js';
import type { DB } from './schema/index.js';
import type { NewJobRow } from './schema/job.js';
import type { NewSubmissionRow } from './schema/submission.js';
import { nameStatement } from './prepared-query.js';

/** A submission row as intake writes it. */
export type IntakeSubmissionRow = Required<
  Pick<NewSubmissionRow, 'id' | 'formId' | 'workspaceId' | 'data' | 'status' | 'searchText' | 'emailControls' | 'spamReasons' | 'unread' | 'createdAt'>
>;
/** A job row as the outbox writes it (jobs/outbox.ts). */
export type IntakeJobRow = Required<
  Pick<NewJobRow, 'id' | 'kind' | 'payload' | 'status' | 'runAt' | 'lane' | 'destination' | 'submissionId' | 'idempotencyKey' | 'createdAt' | 'updatedAt'>
>;

/** One batch of intake, whole: what each workspace's counter takes, and every row it writes. */
export interface IntakeBatch {
  /** Each workspace's accepted submissions of the batch (spam counts nothing). */
  counts: [workspaceId: string, count: number][];
  submissions: IntakeSubmissionRow[];
  jobs: IntakeJobRow[];
  days: DailyCountTable[];
}

// What each array parameter holds, in order: a column and its type as PostgreSQL takes it.
const SUBMISSION_COLUMNS = [
  ['id', 'text'],
  ['form_id', 'text'],
  ['workspace_id', 'text'],
  ['data', 'json'],
  ['status', 'text'],
  ['search_text', 'text'],
  ['email_controls', 'json'],
  ['spam_reasons', 'text'],
  ['unread', 'int4'],
  ['created_at', 'int8'],
] as const;
const JOB_COLUMNS = [
  ['id', 'text'],
  ['kind', 'text'],
  ['payload', 'json'],
  ['status', 'text'],
  ['run_at', 'int8'],
  ['lane', 'text'],
  ['destination', 'text'],
  ['submission_id', 'text'],
  ['idempotency_key', 'text'],
  ['created_at', 'int8'],
  ['updated_at', 'int8'],
] as const;
const DAY_COLUMNS = [
  ['form_id', 'text'],
  ['workspace_id', 'text'],
  ['day', 'int4'],
  ['accepted', 'int4'],
  ['spam', 'int4'],
  ['last_at', 'int8'],
] as const;

/** `INSERT INTO table (columns) SELECT … FROM unnest($n::type[], …)`, its arrays numbered from `first`, written only when the batch fits. */
function insertFromArrays(table: string, columns: readonly (readonly [string, string])[], first: number): string {
  const names = columns.map(([name]) => name).join(', ');
  // json travels as text in a text[] (a json[] would be parsed twice); the cast happens per row
  const arrays = columns.map(([, type], i) => `$${first + i}::${type === 'json' ? 'text' : type}[]`).join(', ');
  const values = columns.map(([name, type]) => (type === 'json' ? `${name}::json` : name)).join(', ');
  return `INSERT INTO ${table} (${names}) SELECT ${values} FROM unnest(${arrays}) AS batch (${names}) WHERE (SELECT ok FROM fits)`;
}

const statements = new Map<string, string>();

/**
 * The batch's whole write on PostgreSQL as one statement, so one round trip (and no BEGIN and
 * COMMIT, since a statement is atomic on its own) instead of six: every workspace of the batch is
 * locked in id order (two instances' batches cannot deadlock), and only if each one's allowance
 * holds all of its part are the counters moved and the submissions, their delivery jobs and the
 * day counts written. Otherwise nothing is written and `false` is answered: the caller counts the
 * batch one submission at a time in a transaction. The arrays keep the text the same for every
 * batch, so each connection parses and plans it once (a prepared statement).
 * `allowance`: the allowance of the plan in a row's `plan` column, as SQL (services/allowance.ts).
 */
export async function writeIntakeBatch(db: Kysely<DB>, batch: IntakeBatch, allowance: RawBuilder<number>): Promise<boolean> {
  const allowanceText = allowance.compile(db).sql;
  let text = statements.get(allowanceText);
  if (!text) {
    const jobsFrom = 3 + SUBMISSION_COLUMNS.length;
    const daysFrom = jobsFrom + JOB_COLUMNS.length;
    text = `WITH wanted AS (SELECT * FROM unnest($1::text[], $2::int4[]) AS wanted (id, n)),
locked AS MATERIALIZED (SELECT id, submissions_used, plan FROM workspaces WHERE id IN (SELECT id FROM wanted) ORDER BY id FOR UPDATE),
fits AS MATERIALIZED (SELECT count(*) = (SELECT count(*) FROM wanted) AS ok FROM locked JOIN wanted USING (id) WHERE locked.submissions_used + wanted.n <= ${allowanceText}),
counted AS (UPDATE workspaces SET submissions_used = workspaces.submissions_used + wanted.n FROM wanted WHERE workspaces.id = wanted.id AND (SELECT ok FROM fits) RETURNING 1),
stored AS (${insertFromArrays('submissions', SUBMISSION_COLUMNS, 3)} RETURNING 1),
queued AS (${insertFromArrays('jobs', JOB_COLUMNS, jobsFrom)} RETURNING 1),
days AS (${insertFromArrays('daily_counts', DAY_COLUMNS, daysFrom)}
  ON CONFLICT (form_id, day) DO UPDATE SET accepted = daily_counts.accepted + excluded.accepted, spam = daily_counts.spam + excluded.spam,
  last_at = GREATEST(daily_counts.last_at, excluded.last_at) RETURNING 1)
SELECT ok FROM fits`;
    if (allowance.compile(db).parameters.length > 0) throw new Error('the allowance must be written with literals');
    nameStatement(text);
    statements.set(allowanceText, text);
  }
  const { counts, submissions: s, jobs: j, days } = batch;
  // two instances' batches lock day rows in one order: by form, then day
  const d = [...days].sort((a, b) => (a.formId < b.formId ? -1 : a.formId > b.formId ? 1 : a.day - b.day));
  const parameters = [
    counts.map(([id]) => id),
    counts.map(([, n]) => n),
    s.map((row) => row.id),
    s.map((row) => row.formId),
    s.map((row) => row.workspaceId),
    s.map((row) => row.data),
    s.map((row) => row.status),
    s.map((row) => row.searchText),
    s.map((row) => row.emailControls),
    s.map((row) => row.spamReasons),
    s.map((row) => row.unread),
    s.map((row) => row.createdAt),
    j.map((row) => row.id),
    j.map((row) => row.kind),
    j.map((row) => row.payload),
    j.map((row) => row.status),
    j.map((row) => row.runAt),
    j.map((row) => row.lane),
    j.map((row) => row.destination),
    j.map((row) => row.submissionId),
    j.map((row) => row.idempotencyKey),
    j.map((row) => row.createdAt),
    j.map((row) => row.updatedAt),
    d.map((row) => row.formId),
    d.map((row) => row.workspaceId),
    d.map((row) => row.day),
    d.map((row) => row.accepted),
    d.map((row) => row.spam),
    d.map((row) => row.lastAt),
  ];
  const result = await db.executeQuery<{ ok: boolean }>(CompiledQuery.raw(text, parameters));
  return result.rows[0]?.ok === true;
}
