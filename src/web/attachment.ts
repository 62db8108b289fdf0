import type { FastifyReply } from 'fastify';
import type { ExportFormat, SubmissionExport } from '../services/exports.js';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8; header=present',
  json: 'application/json; charset=utf-8',
};

const MAX_SLUG = 60;

/** A name as a file name's first part: letters and digits of any script, the rest one `-`; `ascii` keeps a-z and 0-9 only. */
function slug(name: string, ascii: boolean): string {
  const text = ascii ? name.normalize('NFKD').replace(/\p{M}/gu, '') : name.normalize('NFC');
  const words = text.toLowerCase().replace(ascii ? /[^a-z0-9]+/g : /[^\p{L}\p{N}]+/gu, '-');
  return [...words.replace(/^-+|-+$/g, '')].slice(0, MAX_SLUG).join('').replace(/-+$/, '');
}

/**
 * `attachment; filename="contact-submissions-2026-11-24.csv"`: the name of the form or workspace
 * made safe for any file system, and (RFC 6266) `filename*` in UTF-8 when the name is not ASCII,
 * with the ASCII one for older clients.
 */
export function attachmentDisposition(title: string, format: ExportFormat, now = new Date()): string {
  const file = (base: string) => `${base || 'export'}-submissions-${now.toISOString().slice(0, 10)}.${format}`;
  const ascii = file(slug(title, true));
  const unicode = file(slug(title, false));
  if (ascii === unicode) return `attachment; filename="${ascii}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(unicode)}`;
}

/** Sends an export as a download: streamed; an error after the first byte cuts the connection (Fastify logs it). */
export function sendExport(reply: FastifyReply, exported: SubmissionExport, format: ExportFormat): FastifyReply {
  return reply
    .header('content-type', CONTENT_TYPES[format])
    .header('content-disposition', attachmentDisposition(exported.title, format))
    .header('cache-control', 'no-store')
    .send(exported.body);
}
