import type { FilesConfig } from '../config/files-location.js';
import type { FileStore } from './file-store.js';
import { FolderFileStore } from './folder-store.js';

/** The store FORMGATE_FILES names. */
export function openFileStore(config: FilesConfig): FileStore {
  switch (config.kind) {
    case 'folder':
      return new FolderFileStore(config.folder);
    case 's3':
      // TODO(issue 28): the S3-compatible store lands with its own change; until then such a configuration is refused at start.
      throw new Error(`FORMGATE_FILES: files in an S3-compatible bucket (s3://${config.bucket}) are not supported by this build yet`);
  }
}
