import type { FilesConfig } from '../config/files-location.js';
import type { FileStore } from './file-store.js';
import { FolderFileStore } from './folder-store.js';
import { S3FileStore } from './s3-store.js';

/** The store FORMGATE_FILES names. */
export function openFileStore(config: FilesConfig): FileStore {
  switch (config.kind) {
    case 'folder':
      return new FolderFileStore(config.folder);
    case 's3':
      return new S3FileStore(config);
  }
}
