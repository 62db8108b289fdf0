import type { SubmissionFile } from '../../services/submission-files.js';

/** A size as people read it: "812 bytes", "48.2 KB", "3.4 MB". */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A submission's files: each stored one with a Download link, each dropped one with why. */
export function FileList({ submissionId, files }: { submissionId: string; files: SubmissionFile[] }) {
  return (
    <div class="table-wrap listing">
      <table class="stack files">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">File</th>
            <th scope="col">Type</th>
            <th scope="col">Size</th>
            <th scope="col">
              <span class="visually-hidden">Download</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {files.map((file) => (
            <tr key={file.id}>
              <td data-label="Field">{file.field}</td>
              <td data-label="File">{file.name}</td>
              <td data-label="Type">{file.type}</td>
              <td data-label="Size">{file.stored ? fileSize(file.size) : <span class="muted">—</span>}</td>
              <td data-label="Download">
                {file.stored ? (
                  <a href={`/submissions/${submissionId}/files/${file.id}`} download={file.name} aria-label={`Download ${file.name}`}>
                    Download
                  </a>
                ) : (
                  <span class="muted">{`Dropped: ${file.droppedReason ?? 'not stored'}`}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
