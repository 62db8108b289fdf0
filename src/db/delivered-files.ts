import type { DeliveredFile } from '../domain/file-values.js';
import { withoutHiddenCharacters } from '../domain/uploads.js';
import type { Queryable } from './database.js';

/**
 * The stored files of some submissions (not the dropped ones: they have no bytes to link to), each
 * submission's in the order they were sent: what deliveries and email previews list. Bounded by
 * FILES_PER_SUBMISSION_MAX rows a submission; read through the index on (submission_id, position).
 */
export async function storedFilesOfSubmissions(db: Queryable, submissionIds: readonly string[]): Promise<Map<string, DeliveredFile[]>> {
  const bySubmission = new Map<string, DeliveredFile[]>();
  if (submissionIds.length === 0) return bySubmission;
  const rows = await db
    .selectFrom('submissionFiles')
    .select(['id', 'submissionId', 'field', 'name', 'type', 'size'])
    .where('submissionId', 'in', submissionIds)
    .where('storageKey', 'is not', null)
    .orderBy('submissionId')
    .orderBy('position')
    .execute();
  for (const { submissionId, ...file } of rows) {
    const list = bySubmission.get(submissionId) ?? [];
    // a name stored before names were cleaned of bidirectional controls is cleaned as it leaves (issue 38, item 17)
    list.push({ ...file, name: withoutHiddenCharacters(file.name), size: Number(file.size) });
    bySubmission.set(submissionId, list);
  }
  return bySubmission;
}
