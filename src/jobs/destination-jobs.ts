import type { Queryable } from '../db/database.js';
import { DESTINATION_KINDS, DESTINATIONS_PER_FORM, type DestinationKind } from '../domain/destinations.js';
import type { JobToEnqueue } from './outbox.js';

// The jobs of a form's destinations (domain/destinations.ts; issue 42, item 4), written by intake
// and by the other writers of accepted submissions (a held one released, one marked not spam), in
// the transaction that accepts the submission.

/** The job kinds of the destinations: one per service, the same words as the destination's `kind`. */
export const DESTINATION_JOB_KINDS: readonly string[] = DESTINATION_KINDS;

/** A destination as intake carries it: which service, and which row the job reads when it is sent. */
export interface DestinationTarget {
  id: string;
  kind: DestinationKind;
}

/** What a destination's job carries: the row it reads at each try (the settings and secret of that moment). */
export interface DestinationPayload {
  destinationId: string;
  formId: string;
}

/** One job per destination, for one accepted submission. */
export function destinationJobs(destinations: readonly DestinationTarget[] | undefined, submission: { id: string; formId: string }): JobToEnqueue[] {
  if (!destinations || destinations.length === 0) return [];
  return destinations.map((destination) => ({
    kind: destination.kind,
    payload: { destinationId: destination.id, formId: submission.formId } satisfies DestinationPayload,
    submissionId: submission.id,
    // one record per submission and destination, the same on every try
    idempotencyKey: `${submission.id}:${destination.id}`,
  }));
}

/** A form's destinations, for the writers of accepted submissions outside intake. */
export async function destinationsOfForm(db: Queryable, formId: string): Promise<DestinationTarget[]> {
  const rows = await db
    .selectFrom('formDestinations')
    .select(['id', 'kind'])
    .where('formId', '=', formId)
    .orderBy('createdAt')
    .limit(DESTINATIONS_PER_FORM)
    .execute();
  return rows as DestinationTarget[];
}
