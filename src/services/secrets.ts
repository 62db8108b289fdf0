import { createHash, randomBytes } from 'node:crypto';

/** A new secret for a cookie or an emailed link: 256 random bits, URL-safe. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of a secret: its SHA-256, hex. A stolen table opens no session and no link. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
