// How a visitor's file leaves Formgate (issue 28), from the API and the dashboard alike: always as a
// download, never rendered on Formgate's origins whatever type the visitor declared.
import type { FastifyReply } from 'fastify';
import { downloadDisposition } from '../domain/uploads.js';
import type { FileDownload } from '../services/submission-files.js';

const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The declared type without its parameters when it is a plain `type/subtype`, else `application/octet-stream`. */
export function downloadType(declared: string): string {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  return CONTENT_TYPE.test(type) ? type : 'application/octet-stream';
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
