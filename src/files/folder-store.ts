import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkedKey, type FileStore, type StoredFile } from './file-store.js';

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

  async write(key: string, body: Readable, _contentType: string): Promise<number> {
    const target = this.pathOf(key);
    try {
      await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    } catch (error) {
      body.destroy();
      throw error;
    }
    const partial = `${target}.${randomBytes(6).toString('hex')}.partial`;
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
