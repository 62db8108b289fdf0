import { randomBytes } from 'node:crypto';

// Lowercase base32: URL-safe, never starts with '-', and every byte maps without bias.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** A random 20-character identifier (100 bits). */
export function newId(): string {
  const bytes = randomBytes(20);
  let id = '';
  for (let i = 0; i < 20; i++) id += ALPHABET[bytes[i]! & 31];
  return id;
}
