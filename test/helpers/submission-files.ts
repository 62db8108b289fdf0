import { Readable } from 'node:stream';
import type { NewSubmissionFileRow } from '../../src/db/schema/submission-file.js';
import type { SubmissionStatus } from '../../src/db/schema/submission.js';
import { storageKey } from '../../src/files/file-store.js';
import { newId } from '../../src/ids.js';
import { searchTextOf } from '../../src/services/search-text.js';
import type { TestApp } from './app.js';

/** A file of a submission to write: its bytes, or null for a file dropped with `droppedReason`. */
export interface FileSpec {
  field: string;
  name: string;
  type: string;
  bytes: Buffer | string | null;
  droppedReason?: string;
}

export interface WrittenFile {
  id: string;
  name: string;
  size: number;
  url: string;
}

/**
 * A submission with files, written as the intake writes one (objects through ctx.files, rows in
 * submission_files, `file_bytes` added, each stored file in `data` as `{ name, type, size, url }`,
 * a list when a field has several), so that reads can be tested apart from the intake.
 */
export async function insertSubmissionWithFiles(
  app: TestApp,
  form: { id: string; workspaceId: string },
  files: FileSpec[],
  options: { fields?: Record<string, unknown>; status?: SubmissionStatus; createdAt?: number } = {},
): Promise<{ submissionId: string; files: WrittenFile[] }> {
  const submissionId = newId();
  const createdAt = options.createdAt ?? Date.now();
  const data: Record<string, unknown> = { ...(options.fields ?? {}) };
  const written: WrittenFile[] = [];
  const rows: NewSubmissionFileRow[] = [];
  let stored = 0;
  for (const [position, file] of files.entries()) {
    const id = newId();
    const bytes = file.bytes === null ? null : Buffer.from(file.bytes);
    const key = bytes === null ? null : storageKey(form.workspaceId, id);
    if (key && bytes) {
      await app.ctx.files.write(key, Readable.from([bytes]), file.name);
      stored += bytes.length;
      const value = { name: file.name, type: file.type, size: bytes.length, url: app.ctx.fileLinks.url(id) };
      const previous = data[file.field];
      data[file.field] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
      written.push({ id, name: file.name, size: bytes.length, url: value.url });
    } else {
      written.push({ id, name: file.name, size: 0, url: app.ctx.fileLinks.url(id) });
    }
    rows.push({
      id,
      submissionId,
      formId: form.id,
      workspaceId: form.workspaceId,
      field: file.field,
      position,
      name: file.name,
      type: file.type,
      size: bytes?.length ?? 0,
      storageKey: key,
      droppedReason: key ? null : (file.droppedReason ?? 'Uploads are off for this form.'),
      createdAt,
    });
  }
  await app.ctx.database.transaction(async (trx) => {
    await trx
      .insertInto('submissions')
      .values({
        id: submissionId,
        formId: form.id,
        workspaceId: form.workspaceId,
        data: JSON.stringify(data),
        status: options.status ?? 'accepted',
        createdAt,
        searchText: searchTextOf(data),
      })
      .execute();
    if (rows.length) await trx.insertInto('submissionFiles').values(rows).execute();
    await trx
      .updateTable('workspaces')
      .set((eb) => ({ fileBytes: eb('fileBytes', '+', stored) }))
      .where('id', '=', form.workspaceId)
      .execute();
  });
  return { submissionId, files: written };
}
