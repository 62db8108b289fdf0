import DataLoader from 'dataloader';
import type { Database } from '../../db/database.js';
import { fromJson } from '../../db/database.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import { DESTINATION_NAMES, destinationSettingsOf, isDestinationKind } from '../../domain/destinations.js';
import { withFileLinks } from '../../domain/file-values.js';
import { submitterAddress } from '../../domain/submitter-address.js';
import type { DestinationPayload } from '../destination-jobs.js';
import { lookupBySubmission, storedEmailControls, submissionGone, submissionIdOf, type Channel, type DeliveryReceipt, type Job } from './channel.js';
import { type DestinationApiOptions, type LiveDestination, sendToDestination } from './destination-apis.js';
import type { DeliveryFiles } from './submission-files.js';

/**
 * Sends submissions to a form's destinations (domain/destinations.ts): the job names the destination
 * and the submission, and each try reads both as they are then (a changed token or mapping applies
 * to jobs already waiting; a destination removed meanwhile sends nothing, for good). Retried on the
 * webhook's schedule (jobs/delivery.ts). How each try went is kept on the destination, for its page.
 */
export class DestinationDelivery implements Channel {
  private readonly destinations: DataLoader<string, (LiveDestination & { formId: string }) | undefined>;

  constructor(
    private readonly database: Database,
    private readonly options: DestinationApiOptions,
    private readonly files: DeliveryFiles | null,
  ) {
    this.destinations = new DataLoader(
      async (ids) => {
        const rows = await this.database.db
          .selectFrom('formDestinations')
          .select(['id', 'formId', 'kind', 'settings', 'secret'])
          .where('id', 'in', [...ids])
          .execute();
        const found = new Map(rows.map((row) => [row.id, row]));
        return ids.map((id) => {
          const row = found.get(id);
          if (!row || !isDestinationKind(row.kind)) return undefined;
          return { id: row.id, formId: row.formId, kind: row.kind, settings: destinationSettingsOf(row.settings), secret: row.secret };
        });
      },
      { cache: false },
    );
  }

  private readonly submissions = lookupBySubmission((submissionIds) =>
    this.database.db.selectFrom('submissions').select(['id', 'formId', 'data', 'emailControls']).where('id', 'in', submissionIds).execute(),
  );

  async send(job: Job): Promise<DeliveryReceipt> {
    const payload = job.payload as Partial<DestinationPayload> | null;
    if (!payload || typeof payload.destinationId !== 'string') throw new DeliveryError('the job names no destination', { permanent: true });
    const [destination, submission] = await Promise.all([this.destinations.load(payload.destinationId), this.submissions.load(submissionIdOf(job))]);
    if (!destination || destination.kind !== job.kind)
      throw new DeliveryError(`not sent: the form’s ${isDestinationKind(job.kind) ? DESTINATION_NAMES[job.kind] : job.kind} destination was removed`, {
        permanent: true,
      });
    if (!submission) throw submissionGone();
    if (submission.formId !== destination.formId) throw new DeliveryError('not sent: the destination belongs to another form', { permanent: true });
    const stored = fromJson<Record<string, unknown>>(submission.data);
    const email = submitterAddress({ data: stored, controls: storedEmailControls(submission.emailControls) });
    const data = this.files ? await this.linked(submission.id, stored) : stored;
    try {
      const receipt = await sendToDestination(destination, { data, email }, this.options);
      await this.note(destination.id, 'ok', null);
      return receipt;
    } catch (err) {
      const error = err instanceof DeliveryError ? err : new DeliveryError(err instanceof Error ? err.message : String(err), { permanent: false, cause: err });
      await this.note(destination.id, 'failed', error.message);
      throw error;
    }
  }

  /** The fields with the submission's files linked for 7 days from now, as a webhook's are. */
  private async linked(submissionId: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
    const files = this.files!;
    const now = Date.now();
    const stored = await files.of(submissionId, fields);
    return withFileLinks(fields, stored, (file) => files.signedUrl(file, now));
  }

  /** How the last try went, on the destination (bookkeeping: a failure to write it changes nothing of the delivery). */
  private async note(id: string, status: 'ok' | 'failed', error: string | null): Promise<void> {
    await this.database.db
      .updateTable('formDestinations')
      .set({ lastTriedAt: Date.now(), lastStatus: status, lastError: error === null ? null : error.slice(0, 500) })
      .where('id', '=', id)
      .execute()
      .catch(() => undefined);
  }
}
