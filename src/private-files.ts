import fs from 'node:fs';
import fsp from 'node:fs/promises';

// The data folder holds the database (the instance's secret, visitors' submissions, sessions) and
// the outbox (emails with reset links): only the user Formgate runs as may read them, whatever the
// umask. A umask can only take permissions away, so these modes are the most anyone gets.
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` and its missing parents as 0700; folders already there keep their mode (the operator's choice). */
export function makePrivateDirSync(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** makePrivateDirSync, without blocking the event loop. */
export async function makePrivateDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Creates `file` empty as 0600 unless it is already there (then it is left as it is). */
export function createPrivateFileSync(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Writes a new file as 0600; it must not exist yet. */
export async function writePrivateFile(file: string, data: Uint8Array | string): Promise<void> {
  await fsp.writeFile(file, data, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
}

/**
 * Those of `paths` that exist and that users other than their owner may read or enter: what an
 * earlier version made under a usual umask (0755 and 0644). Serve warns about them at start.
 */
export function openToOthers(paths: string[]): string[] {
  return paths.filter((file) => {
    try {
      return (fs.statSync(file).mode & 0o077) !== 0;
    } catch {
      return false;
    }
  });
}
