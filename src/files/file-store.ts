// Where the bytes of uploaded files live (issue 28): a folder on this machine, or an S3-compatible
// bucket that several instances share (FORMGATE_FILES). Rows in submission_files say which object
// belongs to which submission; the store only keeps bytes under keys Formgate makes.
import type { Readable } from 'node:stream';

/** An object's bytes as a stream, and how many there are. */
export interface StoredFile {
  body: Readable;
  size: number;
}

export interface FileStore {
  /** `folder` or `s3`: for logs, /healthz and /metrics. */
  readonly kind: 'folder' | 's3';
  /** Where the files go, without credentials ("folder /var/lib/formgate/files", "s3://bucket/prefix at https://…"). */
  describe(): string;
  /**
   * Streams `body` to `key` as it arrives, never holding it whole in memory; resolves with the bytes
   * written. When `body` fails (the visitor went away, a limit was passed and the caller destroyed
   * it) it rejects, and nothing is left under `key`. `name` is the file's safe name, for a store
   * that labels its objects (a bucket: as a download); the visitor's declared type is never stored.
   */
  write(key: string, body: Readable, name: string): Promise<number>;
  /** The object's bytes; null when there is none under `key`. */
  read(key: string): Promise<StoredFile | null>;
  /** Deletes the objects; one that is not there is no error. */
  remove(keys: readonly string[]): Promise<void>;
  /** Resolves when the store can be written and read (a small probe), rejects with why not: /healthz. */
  check(): Promise<void>;
  /**
   * Removes what writes cut short by a crash left behind (a folder's partial files) once older than
   * `olderThan` (epoch ms), at most a bounded number a call; answers how many. A bucket has no such
   * pieces to find cheaply: its lifecycle rule aborts incomplete multipart uploads (operations.md).
   */
  removeAbandoned?(olderThan: number): Promise<number>;
}

/**
 * The key of a new file: the workspace, then a random id. Never anything a visitor sent, so no
 * filename can reach a path, and a workspace's files can be found by their prefix.
 */
export function storageKey(workspaceId: string, fileId: string): string {
  return `${workspaceId}/${fileId}`;
}

// Keys Formgate makes: ids and slashes only, so a key can never leave the folder or the bucket's prefix.
const KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** `key` itself when it is one Formgate makes; throws otherwise (a bug, never a visitor's input). */
export function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
  return key;
}
