import { type Column, DataTable } from './data-table.js';
import type { SubmissionFile } from '../../services/submission-files.js';

/** A size as people read it: "812 bytes", "48.2 KB", "3.4 MB". */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A submission's files: each stored one with a Download link, each dropped one with why. */
export function FileList({ submissionId, files }: { submissionId: string; files: SubmissionFile[] }) {
  const columns: Column<SubmissionFile>[] = [
    { label: 'Field', cell: (file) => file.field },
    { label: 'File', cell: (file) => file.name },
    { label: 'Type', cell: (file) => file.type },
    { label: 'Size', cell: (file) => (file.stored ? fileSize(file.size) : <span class="muted">—</span>) },
    {
      label: 'Download',
      hideLabel: true,
      cell: (file) =>
        file.stored ? (
          <a href={`/submissions/${submissionId}/files/${file.id}`} download={file.name} aria-label={`Download ${file.name}`}>
            Download
          </a>
        ) : (
          <span class="muted">{`Dropped: ${file.droppedReason ?? 'not stored'}`}</span>
        ),
    },
  ];
  return <DataTable label="Files" class="files" columns={columns} rows={files} rowKey={(file) => file.id} wrapClass="listing" />;
}
