import assert from 'node:assert/strict';
import { until } from './eventually.js';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema/index.js';
import type { LoadAnswer } from './submit-load.js';
import type { ReceivedMail } from './smtp-sink.js';
import type { ReceivedRequest } from './webhook-receiver.js';

/** A stored submission, as the audit compares it with what was sent. */
export interface StoredSubmission {
  id: string;
  formId: string;
  status: string;
  data: Record<string, unknown>;
}

/** Every submission stored for `formIds`, whatever its status. */
export async function storedSubmissions(db: Kysely<DB>, formIds: string[]): Promise<StoredSubmission[]> {
  const rows = await db.selectFrom('submissions').select(['id', 'formId', 'status', 'data']).where('formId', 'in', formIds).execute();
  return rows.map((row) => ({ ...row, data: typeof row.data === 'string' ? JSON.parse(row.data) : (row.data as Record<string, unknown>) }));
}

export interface Audit {
  acknowledged: number;
  refused: number;
  connectionFailed: number;
  /** Acknowledged submissions found stored, once each, with their data. */
  found: number;
  /** Stored although their request got no answer (the server died after the commit, before answering). */
  storedUnanswered: number;
  deliveriesExpected: number;
  /** Expected deliveries that arrived (at least once). */
  delivered: number;
  /** Extra copies of deliveries that had already arrived (each with the same key as the first). */
  emailDuplicates: number;
  webhookDuplicates: number;
  /** The submissions whose email or webhook arrived more than once: how many extra copies each. */
  extraCopies: { email: Map<string, number>; webhook: Map<string, number> };
}

export interface AuditInput {
  answers: LoadAnswer[];
  stored: StoredSubmission[];
  /** What each form should deliver for each accepted submission. */
  delivers: (formId: string) => { email: boolean; webhook: boolean };
  mails: ReceivedMail[];
  hooks: ReceivedRequest[];
  /** Finds a marker in a delivery's content (an email's text, a webhook's body). */
  markerPattern: RegExp;
}

/**
 * Compares what the load was told with what was stored and what arrived, asserting: each
 * acknowledged submission stored exactly once with its data, nothing refused stored, nothing stored
 * twice for one request, every delivery of every stored submission arrived, and each copy of a
 * delivery under the one idempotency key of its submission (the webhook-id, the email's Message-ID).
 */
export function auditLoad({ answers, stored, delivers, mails, hooks, markerPattern }: AuditInput): Audit {
  const sent = new Map(answers.map((answer) => [answer.marker, answer]));
  const byMarker = new Map<string, StoredSubmission>();
  for (const row of stored) {
    const marker = String(row.data.marker);
    assert.ok(sent.has(marker), `stored submission ${row.id} carries a marker the load never sent: ${marker}`);
    assert.ok(!byMarker.has(marker), `one request stored twice: ${marker} as ${byMarker.get(marker)?.id} and ${row.id}`);
    byMarker.set(marker, row);
  }

  let found = 0;
  let storedUnanswered = 0;
  for (const answer of answers) {
    const row = byMarker.get(answer.marker);
    if (answer.outcome === 'acknowledged') {
      assert.ok(row, `acknowledged submission ${answer.id} (${answer.marker}) was not stored`);
      assert.equal(row.id, answer.id, `${answer.marker}: stored under the id it was acknowledged with`);
      assert.equal(row.formId, answer.formId);
      assert.equal(row.status, 'accepted', `${answer.marker}: accepted`);
      assert.deepEqual(row.data, answer.fields, `${answer.marker}: stored with the data sent`);
      found += 1;
    } else if (answer.outcome === 'refused') {
      assert.equal(row, undefined, `${answer.marker} was refused (${answer.status}: ${answer.detail}) yet stored as ${row?.id}`);
    } else if (row) {
      storedUnanswered += 1;
    }
  }

  // Every accepted submission's deliveries are owed, answered or not: it was committed.
  const owedMail = new Set<string>();
  const owedHook = new Set<string>();
  for (const row of byMarker.values()) {
    if (row.status !== 'accepted') continue;
    const owed = delivers(row.formId);
    if (owed.email) owedMail.add(row.id);
    if (owed.webhook) owedHook.add(row.id);
  }
  const mailKeys = keysByMarker(
    mails.map((mail) => ({ key: mail.parsed.messageId ?? '', text: mail.parsed.text ?? '' })),
    byMarker,
    markerPattern,
    (key, id) => key.startsWith(`<${id}.`),
    'email Message-ID',
  );
  const hookKeys = keysByMarker(
    hooks.map((hook) => ({ key: String(hook.headers['webhook-id']), text: hook.rawBody })),
    byMarker,
    markerPattern,
    (key, id) => key === id,
    'webhook-id',
  );
  const missingMail = [...owedMail].filter((id) => !mailKeys.has(id));
  const missingHook = [...owedHook].filter((id) => !hookKeys.has(id));
  assert.deepEqual(missingMail, [], `${missingMail.length} notification(s) never arrived`);
  assert.deepEqual(missingHook, [], `${missingHook.length} webhook(s) never arrived`);
  return {
    acknowledged: answers.filter((a) => a.outcome === 'acknowledged').length,
    refused: answers.filter((a) => a.outcome === 'refused').length,
    connectionFailed: answers.filter((a) => a.outcome === 'connection-failed').length,
    found,
    storedUnanswered,
    deliveriesExpected: owedMail.size + owedHook.size,
    delivered: [...owedMail].filter((id) => mailKeys.has(id)).length + [...owedHook].filter((id) => hookKeys.has(id)).length,
    emailDuplicates: mails.length - mailKeys.size,
    webhookDuplicates: hooks.length - hookKeys.size,
    extraCopies: { email: extras(mailKeys), webhook: extras(hookKeys) },
  };
}

/**
 * Each arrival's submission, found by the marker in its content; asserts every copy for one
 * submission carries one key, and that key is the submission's. Answers, by submission id, its key and copies.
 */
function keysByMarker(
  arrivals: { key: string; text: string }[],
  byMarker: Map<string, StoredSubmission>,
  markerPattern: RegExp,
  keyIsFor: (key: string, submissionId: string) => boolean,
  keyName: string,
): Map<string, { key: string; copies: number }> {
  const keyOf = new Map<string, { key: string; copies: number }>();
  for (const { key, text } of arrivals) {
    const marker = markerPattern.exec(text)?.[0];
    const row = marker === undefined ? undefined : byMarker.get(marker);
    assert.ok(row, `a delivery (${keyName} ${key}) for no stored submission: ${text.slice(0, 200)}`);
    assert.ok(keyIsFor(key, row.id), `${keyName} ${key} is not the key of submission ${row.id} (${marker})`);
    const first = keyOf.get(row.id);
    assert.ok(first === undefined || first.key === key, `two copies of ${row.id}'s delivery under different keys: ${first?.key} and ${key}`);
    keyOf.set(row.id, { key, copies: (first?.copies ?? 0) + 1 });
  }
  return keyOf;
}

function extras(arrived: Map<string, { copies: number }>): Map<string, number> {
  return new Map([...arrived].filter(([, { copies }]) => copies > 1).map(([id, { copies }]) => [id, copies - 1]));
}

/**
 * The duplicated deliveries whose job has fewer tries cut off (recorded as interrupted) than extra
 * copies: sent twice although nothing interrupted a try. Each entry says which and how many.
 */
/**
 * The load's end-of-run promises: the load was steady, every acknowledged submission stored, every
 * delivery arrived, nothing refused or failed, every duplicate explained by a try a kill cut off,
 * and duplicates within `duplicateBound` (the jobs in flight at the kills).
 */
export function assertNothingLost(
  audit: Audit,
  { minAcknowledged, failed, unexplained, duplicateBound }: { minAcknowledged: number; failed: unknown[]; unexplained: string[]; duplicateBound: number },
): void {
  assert.ok(audit.acknowledged > minAcknowledged, `the load was steady: ${audit.acknowledged} acknowledged`);
  assert.equal(audit.found, audit.acknowledged, 'every acknowledged submission stored');
  assert.equal(audit.delivered, audit.deliveriesExpected, 'every delivery arrived');
  assert.equal(audit.refused, 0, 'no request was refused (a kill cuts connections; it never answers no)');
  assert.deepEqual(failed, [], 'no delivery of the load failed');
  assert.deepEqual(unexplained, [], 'every duplicate came from a try cut off by a kill');
  assert.ok(audit.emailDuplicates <= duplicateBound, `duplicate emails ${audit.emailDuplicates} ≤ ${duplicateBound}`);
  assert.ok(audit.webhookDuplicates <= duplicateBound, `duplicate webhooks ${audit.webhookDuplicates} ≤ ${duplicateBound}`);
}

export async function unexplainedCopies(db: Kysely<DB>, extra: Audit['extraCopies']): Promise<string[]> {
  const unexplained: string[] = [];
  for (const [kind, copies] of [
    ['notification', extra.email],
    ['webhook', extra.webhook],
  ] as const) {
    for (const [submissionId, count] of copies) {
      const interrupted = await db
        .selectFrom('jobAttempts')
        .innerJoin('jobs', 'jobs.id', 'jobAttempts.jobId')
        .select('jobAttempts.id')
        .where('jobs.submissionId', '=', submissionId)
        .where('jobs.kind', '=', kind)
        .where('jobAttempts.outcome', '=', 'interrupted')
        .execute();
      if (interrupted.length < count) unexplained.push(`${kind} of ${submissionId}: ${count} extra, ${interrupted.length} interrupted`);
    }
  }
  return unexplained;
}

/** Waits, with a deadline, until no job is pending (each done or failed); on timeout names the jobs left. */
export async function waitForDrain(db: Kysely<DB>, deadlineMs: number): Promise<void> {
  const pending = () =>
    db.selectFrom('jobs').select(['id', 'kind', 'attempts', 'runAt', 'leaseUntil', 'lastError']).where('status', '=', 'pending').limit(5).execute();
  try {
    await until('no delivery pending', async () => (await pending()).length === 0, deadlineMs, 100);
  } catch {
    assert.fail(`deliveries still pending after ${deadlineMs} ms (at ${Date.now()}): ${JSON.stringify(await pending())}`);
  }
}

/** The jobs of `formIds`' submissions that failed for good. */
export function failedJobs(db: Kysely<DB>, formIds: string[]): Promise<{ id: string; lastError: string | null }[]> {
  return db
    .selectFrom('jobs')
    .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
    .select(['jobs.id', 'jobs.lastError'])
    .where('submissions.formId', 'in', formIds)
    .where('jobs.status', '=', 'failed')
    .execute();
}
