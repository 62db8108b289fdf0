import { randomFillSync } from 'node:crypto';

// Lowercase base32: URL-safe, never starts with '-', and every byte maps without bias.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const ID_LENGTH = 20;

// Random bytes are drawn 4 KiB at a time, as crypto.randomUUID does: one call per id cost more
// than the rest of making it (about 3% of a submission).
const pool = Buffer.alloc(ID_LENGTH * 200);
let offset = pool.length;

/** A random 20-character identifier (100 bits). */
export function newId(): string {
  if (offset + ID_LENGTH > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  let id = '';
  for (let i = 0; i < ID_LENGTH; i++) id += ALPHABET[pool[offset + i]! & 31];
  offset += ID_LENGTH;
  return id;
}
