import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Files looked at per run: the outbox of a busy installation without SMTP can hold millions. */
export const OUTBOX_FILES_PER_RUN = 10_000;

/**
 * Removes the `.eml` files written instead of sent (no FORMGATE_SMTP_URL) whose modification time
 * is older than `cutoff`, so the outbox folder does not fill the disk. Only regular `*.eml` files
 * directly in `dir`: whatever else an operator keeps there (subfolders, links) is left alone.
 */
export async function purgeOutboxFiles(dir: string, cutoff: number, maxFiles = OUTBOX_FILES_PER_RUN): Promise<{ files: number; more: boolean }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.eml'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files: 0, more: false };
    throw err;
  }
  // NOTE: the writer names each file after the time it wrote it (mail/transport.ts), so in name
  // order the oldest come first and a run that stops at its cap has removed the oldest.
  names.sort();
  let files = 0;
  for (const name of names.slice(0, maxFiles)) {
    const path = join(dir, name);
    const stats = await lstat(path).catch(() => null);
    if (!stats?.isFile() || stats.mtimeMs >= cutoff) continue;
    await unlink(path).catch((err: NodeJS.ErrnoException) => {
      // another instance removed it first
      if (err.code !== 'ENOENT') throw err;
    });
    files++;
  }
  return { files, more: names.length > maxFiles };
}
