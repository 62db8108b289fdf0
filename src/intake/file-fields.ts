import type { Readable } from 'node:stream';
import type { ParsedSubmission } from './fields.js';

/** Where a multipart post's file parts go as they arrive: the store (UploadSession), or only counted (EchoFiles). */
export interface FileParts {
  /** The most bytes the whole body may have beyond its text fields. */
  readonly bodyCap: number;
  /** One file part: the text standing for it among the fields, or null when it is no file or is not kept. */
  part(field: string, stream: Readable, info: { filename?: string; mimeType?: string }): Promise<string | null>;
  /** The value of `data` that `text` stands for, when it stands for a file. */
  valueOf(text: string): unknown;
  /** The body's declared length, told before it is read: the most its files can take. */
  expect?(bytes: number): void;
  /** Whether `text` stood for a file that was dropped after its part was read: it is then no field. */
  droppedLater?(text: string): boolean;
  /** Whether some part stands for a file among the fields. */
  holdsFiles(): boolean;
  /** Resolves once every part is taken; rejects when one failed. */
  settled(): Promise<void>;
  /** The post is not stored: undoes what its parts left. */
  discard(): Promise<void>;
}

/**
 * Puts each stored file's object where its part stood among the fields: the parts were placed as
 * texts that only this post's session knows (a random marker), so a list for `multiple` inputs and
 * repeated names comes out as for repeated text fields.
 */
export function withFiles(parsed: ParsedSubmission, uploads: FileParts): ParsedSubmission {
  if (uploads.holdsFiles()) parsed.data = replaced(parsed.data, uploads) as Record<string, unknown>;
  return parsed;
}

function replaced(value: unknown, uploads: FileParts): unknown {
  if (typeof value === 'string') return uploads.valueOf(value) ?? value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = replaced(value[i], uploads);
  } else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const next = replaced(object[key], uploads);
      if (next !== object[key]) Object.defineProperty(object, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
  }
  return value;
}
