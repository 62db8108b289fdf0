import DataLoader from 'dataloader';
import type { Database } from '../../db/database.js';
import { storedFilesOfSubmissions } from '../../db/delivered-files.js';
import { fileIdsNamedIn, type DeliveredFile } from '../../domain/file-values.js';
import { FILE_LINK_LIFETIME_MS, type FileLinks } from '../../files/signed-links.js';

/** The stored files of each submission, for the jobs that start together in one query. */
export function storedFilesLoader(database: Database): DataLoader<string, DeliveredFile[]> {
  return new DataLoader(
    async (submissionIds) => {
      const bySubmission = await storedFilesOfSubmissions(database.db, submissionIds);
      return submissionIds.map((id) => bySubmission.get(id) ?? []);
    },
    // nothing kept between batches: a file deleted meanwhile is not linked on a later try
    { cache: false },
  );
}

/**
 * What the channels know of a submission's files: which objects of its `data` are its stored files,
 * and a signed link to each made when it is sent (so a retry days later carries a fresh one).
 */
export class DeliveryFiles {
  private readonly stored: DataLoader<string, DeliveredFile[]>;

  constructor(
    database: Database,
    private readonly links: Pick<FileLinks, 'signedUrl'>,
  ) {
    this.stored = storedFilesLoader(database);
  }

  /** The submission's stored files that `data` names; none, without a query, when `data` names no file. */
  async of(submissionId: string | null, data: unknown): Promise<DeliveredFile[]> {
    if (submissionId === null) return [];
    const named = new Set(fileIdsNamedIn(data));
    if (named.size === 0) return [];
    return (await this.stored.load(submissionId)).filter((file) => named.has(file.id));
  }

  /** A link that fetches the file without a token for FILE_LINK_LIFETIME_MS (7 days) from `now`. */
  signedUrl(file: DeliveredFile, now: number): string {
    return this.links.signedUrl(file.id, now + FILE_LINK_LIFETIME_MS);
  }
}
