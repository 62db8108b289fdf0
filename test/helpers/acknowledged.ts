import assert from 'node:assert/strict';
import { fromJson, type Database } from '../../src/db/database.js';
import { until } from './eventually.js';
import type { SmtpSink } from './smtp-sink.js';
import type { SubmissionStream } from './submission-stream.js';

export interface KeptFigures {
  submissionsAcknowledged: number;
  submissionsFound: number;
  /** Refused with a 503 and stored all the same (PostgreSQL: a commit whose answer the killed connection lost). */
  refusedYetStored: number;
  deliveriesExpected: number;
  delivered: number;
  duplicated: number;
}

/**
 * Checks the promise of a fault suite once the faults are over: every submission the stream saw
 * acknowledged is stored exactly once with its data, and its notification (one recipient) reaches
 * the SMTP sink. Waits for the deliveries up to `deadlineMs`; answers the figures.
 */
export async function checkAcknowledged(
  database: Database,
  formId: string,
  stream: SubmissionStream,
  sink: SmtpSink,
  deadlineMs = 45_000,
): Promise<KeptFigures> {
  const rows = await database.db.selectFrom('submissions').select(['id', 'data', 'status']).where('formId', '=', formId).execute();
  const byRef = new Map<string, { id: string; status: string }[]>();
  for (const row of rows) {
    const ref = fromJson<{ ref?: string }>(row.data).ref ?? '';
    byRef.set(ref, [...(byRef.get(ref) ?? []), { id: row.id, status: row.status }]);
  }
  let found = 0;
  for (const { ref, id } of stream.acknowledged) {
    const stored = byRef.get(ref) ?? [];
    assert.equal(stored.length, 1, `acknowledged submission ${ref} (${id}) is stored ${stored.length} times`);
    assert.equal(stored[0]!.id, id, `acknowledged submission ${ref} is stored under the id it was answered with`);
    assert.equal(stored[0]!.status, 'accepted');
    found++;
  }
  const refusedYetStored = stream.refused.filter((ref) => byRef.has(ref)).length;

  const expected = new Set(stream.acknowledged.map(({ id }) => id));
  const mailsOf = () => {
    const counts = new Map<string, number>();
    for (const mail of sink.messages) {
      const id = /Submission (\w+)/.exec(mail.parsed.text ?? '')?.[1];
      if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };
  await until(
    `every acknowledged submission's notification (${expected.size}) to arrive`,
    () => [...expected].every((id) => mailsOf().has(id)),
    deadlineMs,
    100,
  ).catch((error: Error) => {
    const missing = [...expected].filter((id) => !mailsOf().has(id));
    throw new Error(`${error.message}: ${missing.length} missing, e.g. ${missing.slice(0, 5).join(', ')}`);
  });
  // every job recorded as done: none is left to run again (and be sent twice) after the figures
  await until(
    'every delivery job to be recorded as done',
    async () => {
      const open = await database.db
        .selectFrom('jobs')
        .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('submissions.formId', '=', formId)
        .where('jobs.status', '!=', 'done')
        .executeTakeFirstOrThrow();
      return Number(open.n) === 0;
    },
    deadlineMs,
    100,
  );
  const mails = mailsOf();
  const delivered = [...expected].filter((id) => mails.has(id)).length;
  const duplicated = [...expected].filter((id) => (mails.get(id) ?? 0) > 1).length;
  return {
    submissionsAcknowledged: stream.acknowledged.length,
    submissionsFound: found,
    refusedYetStored,
    deliveriesExpected: expected.size,
    delivered,
    duplicated,
  };
}
