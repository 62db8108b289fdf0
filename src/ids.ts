import { randomFillSync } from 'node:crypto';

// Lowercase base32: URL-safe, never starts with '-', and every byte maps without bias. Listed in
// ASCII order, so that the time digits of ids sort as their times do.
const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';
const TIME_LENGTH = 9; // 45 bits of milliseconds: until the year 3084
const RANDOM_LENGTH = 11; // 55 bits

// Random bytes are drawn 2 KiB at a time, as crypto.randomUUID does: one call per id cost more
// than the rest of making it.
const pool = Buffer.alloc(RANDOM_LENGTH * 200);
let offset = pool.length;

/**
 * A 20-character identifier: the time in milliseconds, then 55 random bits. Ids made one after
 * another sort together (as ULIDs and UUIDv7 do), so each new row's id lands at the end of its
 * index instead of on a random page: random ids dirtied a page per row and index in every commit,
 * about a quarter of a submission's cost on SQLite. Ids are never secrets: each lookup by id is
 * checked against the caller's access.
 */
export function newId(): string {
  return idAt(Date.now());
}

/** An id made at `now` (epoch ms): newId's own, and the tests'. */
export function idAt(now: number): string {
  let time = '';
  for (let i = 0, t = now; i < TIME_LENGTH; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32]! + time;
  if (offset + RANDOM_LENGTH > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[pool[offset + i]! & 31];
  offset += RANDOM_LENGTH;
  return time + random;
}
