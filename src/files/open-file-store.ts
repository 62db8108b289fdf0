import type { FilesConfig } from '../config/files-location.js';
import { countedFileStore, type FileStoreCounts } from './counted-store.js';
import type { FileStore } from './file-store.js';
import { FolderFileStore } from './folder-store.js';
import { S3FileStore } from './s3-store.js';

/** The store FORMGATE_FILES names; with `counts` (FORMGATE_METRICS on), what it stores, removes and fails to store is counted. */
export function openFileStore(config: FilesConfig, counts: FileStoreCounts | null = null): FileStore {
  const store = config.kind === 'folder' ? new FolderFileStore(config.folder) : new S3FileStore(config);
  return counts ? countedFileStore(store, counts) : store;
}
