import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkedKey, type FileStore, type StoredFile } from './file-store.js';

// Files being written, under random names in a folder of their own (on the same file system, so
// the rename is atomic): what a crash leaves there is found without walking every stored file.
const PARTIAL_FOLDER = '.partial';
/** Partial files looked at per removeAbandoned call: the folder holds only writes in flight and crash leftovers. */
const ABANDONED_PER_CALL = 1000;

/**
 * Files in a folder of this machine: one instance, or several sharing a network folder. A file is
 * written under a temporary name and renamed when whole, so a reader never sees half of one.
 */
export class FolderFileStore implements FileStore {
  readonly kind = 'folder';

  constructor(private readonly folder: string) {}

  describe(): string {
    return `folder ${this.folder}`;
  }

  async write(key: string, body: Readable, _name: string): Promise<number> {
    const target = this.pathOf(key);
    const partials = path.join(this.folder, PARTIAL_FOLDER);
    try {
      await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await fs.promises.mkdir(partials, { recursive: true, mode: 0o700 });
    } catch (error) {
      body.destroy();
      throw error;
    }
    const partial = path.join(partials, randomBytes(12).toString('hex'));
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
    });
    try {
      await pipeline(body, fs.createWriteStream(partial, { mode: 0o600 }));
      await fs.promises.rename(partial, target);
      return size;
    } catch (error) {
      await fs.promises.rm(partial, { force: true });
      throw error;
    }
  }

  async read(key: string): Promise<StoredFile | null> {
    const file = this.pathOf(key);
    try {
      const handle = await fs.promises.open(file, 'r');
      const { size } = await handle.stat();
      return { body: handle.createReadStream(), size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async remove(keys: readonly string[]): Promise<void> {
    for (const key of keys) await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async removeAbandoned(olderThan: number): Promise<number> {
    const partials = path.join(this.folder, PARTIAL_FOLDER);
    let names: string[];
    try {
      names = (await fs.promises.readdir(partials)).slice(0, ABANDONED_PER_CALL);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const file = path.join(partials, name);
      const stat = await fs.promises.stat(file).catch(() => null);
      if (stat === null || stat.mtimeMs >= olderThan) continue;
      await fs.promises.rm(file, { force: true });
      removed++;
    }
    return removed;
  }

  async check(): Promise<void> {
    await fs.promises.mkdir(this.folder, { recursive: true, mode: 0o700 });
    const probe = path.join(this.folder, `.probe-${randomBytes(6).toString('hex')}`);
    await fs.promises.writeFile(probe, 'ok', { mode: 0o600 });
    await fs.promises.rm(probe, { force: true });
  }

  private pathOf(key: string): string {
    return path.join(this.folder, ...checkedKey(key).split('/'));
  }
}
