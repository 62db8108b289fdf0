import { createHash } from 'node:crypto';
import type { Challenge } from 'altcha-lib';

/**
 * Solves an ALTCHA challenge (SHA-256, cost 1) as the widget's worker does, and gives the widget's
 * field value (base64 of `{ challenge, solution }`). The library's own solver awaits every hash:
 * this loop does the same work some ten times faster, and the server checks it with the library.
 */
export function solveAltcha(challenge: Challenge): string {
  const { salt, nonce, keyPrefix } = challenge.parameters;
  const prefix = Buffer.from(keyPrefix, 'hex');
  // the key of counter n: SHA-256(salt ‖ nonce ‖ n as a big-endian uint32)
  const input = Buffer.concat([Buffer.from(salt, 'hex'), Buffer.from(nonce, 'hex'), Buffer.alloc(4)]);
  for (let counter = 0; counter <= 0xffffffff; counter++) {
    input.writeUInt32BE(counter, input.length - 4);
    const key = createHash('sha256').update(input).digest();
    if (key.subarray(0, prefix.length).equals(prefix)) {
      const solution = { counter, derivedKey: key.toString('hex') };
      return encodeAltcha({ challenge: { parameters: challenge.parameters, signature: challenge.signature }, solution });
    }
  }
  throw new Error('the challenge has no solution');
}

/** The widget's field value of any payload, for answers made up by a test. */
export function encodeAltcha(payload: unknown): string {
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

/** The payload inside a widget's field value. */
export function decodeAltcha(answer: string): any {
  return JSON.parse(Buffer.from(answer, 'base64').toString('utf8'));
}
