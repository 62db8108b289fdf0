// The file store's counters on /metrics (issue 39, item 15): counted here, around whichever store
// FORMGATE_FILES names, so a folder and a bucket count alike and no caller can forget to.
import { finished, PassThrough, type Readable } from 'node:stream';
import type { FileStore, StoredFile } from './file-store.js';

/** What the counters hear (metrics/metrics.ts). */
export interface FileStoreCounts {
  fileStored(bytes: number): void;
  fileRemoved(count: number): void;
  fileWriteFailed(): void;
}

/**
 * `store`, counting the files it stored whole and their bytes, the files it removed, and the writes
 * it failed. A write whose body failed (the visitor went away, a limit or the allowance cut it) is
 * not the store's failure and is not counted.
 */
export function countedFileStore(store: FileStore, counts: FileStoreCounts): FileStore {
  const counted: FileStore = {
    kind: store.kind,
    describe: () => store.describe(),
    read: (key: string): Promise<StoredFile | null> => store.read(key),
    check: () => store.check(),
    async write(key: string, body: Readable, name: string): Promise<number> {
      // NOTE: the store is handed a relay, not the body: a store that fails destroys what it was
      // given, often with its own error, so only the relay tells whose failure it was
      const relay = new PassThrough();
      // the failure is the write's rejection; the relay may fail before the store listens to it
      relay.on('error', () => undefined);
      let bodyError: Error | null = null;
      finished(body, { writable: false }, (error) => {
        if (!error) return;
        bodyError = error;
        relay.destroy(error);
      });
      if (body.readableEnded) relay.end();
      else body.pipe(relay);
      try {
        const bytes = await store.write(key, relay, name);
        counts.fileStored(bytes);
        return bytes;
      } catch (error) {
        // the body's own failure, as the caller caused it (not the relay's echo of it)
        if (bodyError) throw bodyError;
        counts.fileWriteFailed();
        // as the stores do with the body they are given: whoever feeds it hears of the failure
        if (!body.destroyed) {
          body.once('error', () => undefined);
          body.destroy(error as Error);
        }
        throw error;
      }
    },
    async remove(keys: readonly string[]): Promise<void> {
      await store.remove(keys);
      counts.fileRemoved(keys.length);
    },
  };
  if (store.removeAbandoned) counted.removeAbandoned = (olderThan: number) => store.removeAbandoned!(olderThan);
  return counted;
}
