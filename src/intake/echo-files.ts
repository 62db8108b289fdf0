import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DEFAULT_FILE_UPLOADS, FILES_PER_SUBMISSION_MAX, safeFileName } from '../domain/uploads.js';
import { validationError } from '../errors.js';
import type { FileParts } from './file-fields.js';

/**
 * The file parts of a post to `/echo`: read and described as a form would store them (name, type,
 * size; no link, as nothing is stored), never kept. At most the default limits' bytes in all.
 */
export class EchoFiles implements FileParts {
  readonly bodyCap = DEFAULT_FILE_UPLOADS.maxTotalSize + 64 * 1024;
  private readonly marker = `\uE000echo-${randomBytes(12).toString('base64url')}-`;
  private readonly files: { name: string; type: string; size: number }[] = [];
  private readonly parts: Promise<unknown>[] = [];

  part(field: string, stream: Readable, info: { filename?: string; mimeType?: string }): Promise<string | null> {
    const taken = new Promise<string | null>((resolve, reject) => {
      let size = 0;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.once('error', reject);
      stream.once('end', () => {
        // as a form would: an empty file input is no file, a control's file is ignored
        if (field.startsWith('_') || (size === 0 && !info.filename)) return resolve(null);
        if (this.files.length >= FILES_PER_SUBMISSION_MAX) {
          return reject(validationError([`${field}: at most ${FILES_PER_SUBMISSION_MAX} files in one submission`], 'The submission carried too many files.'));
        }
        this.files.push({ name: safeFileName(info.filename ?? ''), type: (info.mimeType ?? '').trim() || 'application/octet-stream', size });
        resolve(`${this.marker}${this.files.length - 1}`);
      });
    });
    this.parts.push(taken);
    return taken;
  }

  valueOf(text: string): unknown {
    return text.startsWith(this.marker) ? this.files[Number(text.slice(this.marker.length))] : undefined;
  }

  holdsFiles(): boolean {
    return this.files.length > 0;
  }

  async settled(): Promise<void> {
    await Promise.all(this.parts);
  }

  async discard(): Promise<void> {}
}
