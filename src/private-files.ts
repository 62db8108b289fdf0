import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

// The data folder holds the database (the instance's secret, visitors' submissions, sessions) and
// the outbox (emails with reset links): only the user Formgate runs as may read them, whatever the
// umask. A umask can only take permissions away, so these modes are the most anyone gets.
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * A folder Formgate's user may not write in: most often a host folder mounted into the container,
 * which runs as uid 1000, owned by another user. A bare EACCES named neither (issue 38).
 */
export class FolderAccessError extends Error {
  constructor(
    readonly folder: string,
    cause: NodeJS.ErrnoException,
  ) {
    const owner = `${process.getuid?.() ?? 1000}:${process.getgid?.() ?? 1000}`;
    super(
      `Formgate (running as ${owner}) may not write in the folder ${folder} (${cause.code}): give it to that user, as root: \`chown -R ${owner} ${folder}\`. ` +
        `In the container image Formgate runs as 1000:1000: run \`chown -R 1000:1000\` on the host's folder mounted at ${folder}.`,
      { cause },
    );
    this.name = 'FolderAccessError';
  }
}

/** The folder to name when writing `target` was refused: the nearest one that exists (mkdir -p stops there). */
function refusingFolder(target: string, isFolder: boolean): string {
  let folder = path.resolve(isFolder ? target : path.dirname(target));
  while (!fs.existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  return folder;
}

/** `error` as a FolderAccessError when it is a refusal to write in a folder; anything else as it is. */
function named(error: unknown, target: string, isFolder: boolean): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' ? new FolderAccessError(refusingFolder(target, isFolder), error as NodeJS.ErrnoException) : error;
}

/** Creates `dir` and its missing parents as 0700; folders already there keep their mode (the operator's choice). */
export function makePrivateDirSync(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    throw named(error, dir, true);
  }
}

/** makePrivateDirSync, without blocking the event loop. */
export async function makePrivateDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE }).catch((error: unknown) => {
    throw named(error, dir, true);
  });
}

/** Creates `file` empty as 0600 unless it is already there (then it is left as it is). */
export function createPrivateFileSync(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw named(error, file, false);
  }
}

/** Writes a new file as 0600; it must not exist yet. */
export async function writePrivateFile(file: string, data: Uint8Array | string): Promise<void> {
  await fsp.writeFile(file, data, { mode: PRIVATE_FILE_MODE, flag: 'wx' }).catch((error: unknown) => {
    throw named(error, file, false);
  });
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
