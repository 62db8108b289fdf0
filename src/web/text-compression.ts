import { negotiate } from '@fastify/accept-negotiator';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** What a text response is compressed with, best first (the dashboard's @fastify/compress says the same). */
export const TEXT_ENCODINGS = ['br', 'gzip'] as const;
export type TextEncoding = (typeof TEXT_ENCODINGS)[number];
/** Smaller than this, a response is sent as it is: compressing it saves less than its headers weigh. */
export const COMPRESSION_THRESHOLD = 1024;
// Brotli's quality 4 (as @fastify/compress uses): close to gzip's speed, smaller; 11 is far slower.
const BROTLI_QUALITY = 4;

/**
 * `text` compressed for a client whose Accept-Encoding is `accepted` (q-values honoured; `br` first,
 * then `gzip`), or as it is when the client takes neither or the text is under the threshold.
 * NOTE: only for responses that carry no secret (BREACH: a secret beside reflected input leaks
 * through the compressed length); the submit surface's pages carry none.
 */
export function compressText(text: string, accepted: string | undefined): { body: Buffer; encoding: TextEncoding | null } {
  const body = Buffer.from(text);
  const encoding = accepted && body.length >= COMPRESSION_THRESHOLD ? negotiate(accepted, [...TEXT_ENCODINGS]) : null;
  if (encoding === 'br') return { body: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }), encoding };
  if (encoding === 'gzip') return { body: gzipSync(body), encoding };
  return { body, encoding: null };
}
