// How a visitor's file leaves Formgate (issue 28), from the API and the dashboard alike: always as a
// download, never rendered on Formgate's origins whatever type the visitor declared.
import type { FastifyReply } from 'fastify';
import { safeFileName } from '../domain/uploads.js';
import type { FileDownload } from '../services/submission-files.js';

const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The declared type without its parameters when it is a plain `type/subtype`, else `application/octet-stream`. */
export function downloadType(declared: string): string {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  return CONTENT_TYPE.test(type) ? type : 'application/octet-stream';
}

/**
 * `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266, RFC 8187): the safe name, its ASCII
 * form for old clients (anything else, quotes and backslashes as `_`), and the exact one encoded.
 */
export function downloadDisposition(name: string): string {
  const safe = safeFileName(name);
  const ascii = safe.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(safe).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Sends the file's bytes as a download: attachment, nosniff, a sandboxing CSP, never cached. */
export function sendDownload(reply: FastifyReply, file: FileDownload): FastifyReply {
  return reply
    .header('content-type', downloadType(file.type))
    .header('content-length', String(file.size))
    .header('content-disposition', downloadDisposition(file.name))
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "sandbox; default-src 'none'")
    .header('cache-control', 'private, no-store')
    .send(file.body);
}
