import type { ParsedSubmission } from './fields.js';
import type { UploadSession } from './uploads.js';

/**
 * Puts each stored file's object where its part stood among the fields: the parts were placed as
 * texts that only this post's session knows (a random marker), so a list for `multiple` inputs and
 * repeated names comes out as for repeated text fields.
 */
export function withFiles(parsed: ParsedSubmission, uploads: UploadSession): ParsedSubmission {
  if (uploads.files.some((file) => file.storageKey !== null)) parsed.data = replaced(parsed.data, uploads) as Record<string, unknown>;
  return parsed;
}

function replaced(value: unknown, uploads: UploadSession): unknown {
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
