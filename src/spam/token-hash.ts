/**
 * A token as a workspace's lessons keep it (services/spam-lessons.ts): a 53-bit hash, so that the
 * database holds no word a visitor typed, only a number a word can be checked against. Two 32-bit
 * FNV-1a-style hashes with different primes, 32 and 21 of their bits: collisions among a workspace's
 * 10,000 tokens are about one in a hundred million, and a collision only shares a count.
 */
export function tokenHash(token: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}
